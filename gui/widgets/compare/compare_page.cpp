#include "gui/widgets/compare/compare_page.hpp"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSplitter>
#include <QVBoxLayout>

#include "gui/widgets/tables/table_view.hpp"

namespace ts::gui {

ComparePage::ComparePage(QWidget* parent)
    : QWidget(parent),
      comparison_(new TraceComparison(this)),
      header_(new QLabel(this)),
      figures_(new DiffModel(this)),
      kernels_(new KernelDiffModel(this)),
      levers_(new LeverDiffModel(this)) {
  header_->setWordWrap(true);
  header_->setTextFormat(Qt::RichText);
  auto* open = new QPushButton(tr("Compare with…"), this);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(open);
  auto* split = new QSplitter(Qt::Vertical, this);
  split->addWidget(make_table_view(figures_, nullptr, split));
  split->addWidget(make_table_view(levers_, nullptr, split));
  split->addWidget(make_table_view(kernels_, nullptr, split));
  split->setSizes({480, 160, 240});
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(split, 1);
  connect(open, &QPushButton::clicked, this, &ComparePage::openRequested);
  connect(comparison_, &TraceComparison::changed, this, &ComparePage::refresh);
  connect(comparison_, &TraceComparison::failed, this, &ComparePage::failed);
  refresh();
}

void ComparePage::set_session(TraceSession* session) {
  session_ = session;
  comparison_->set_a(session);
}

void ComparePage::refresh() {
  const QString b_path = comparison_->b_path();
  if (const RunDiff* diff = comparison_->diff(); diff && session_) {
    figures_->set_diff(*diff, comparison_->currency());
    kernels_->set_kernels(diff->kernels);
    levers_->set_levers(diff->levers, comparison_->currency());
    QStringList lines;
    for (const QString& line : comparison_->notes()) lines << line.toHtmlEscaped();
    header_->setText(
        tr("<b>A</b> %1 &nbsp;→&nbsp; <b>B</b> %2<br><b>%3</b><br>%4<br>"
           "<span style='color:#607d8b'>Per-step figures, so runs of different "
           "lengths compare fairly. Red: worse in B, green: better.</span>")
            .arg(QFileInfo(session_->source().isEmpty() ? session_->path() : session_->source())
                     .fileName()
                     .toHtmlEscaped(),
                 QFileInfo(b_path).fileName().toHtmlEscaped(),
                 comparison_->headline().toHtmlEscaped(), lines.join(QStringLiteral("<br>"))));
    return;
  }
  figures_->clear();
  kernels_->set_kernels({});
  levers_->set_levers({});
  if (!session_)
    header_->setText(tr("Open a trace first."));
  else if (!b_path.isEmpty())
    header_->setText(tr("Analysing %1…").arg(QFileInfo(b_path).fileName().toHtmlEscaped()));
  else
    header_->setText(tr("Compare <b>%1</b> with a second trace: step time, breakdown and kernels "
                        "side by side.")
                         .arg(QFileInfo(session_->path()).fileName().toHtmlEscaped()));
}

}  // namespace ts::gui
