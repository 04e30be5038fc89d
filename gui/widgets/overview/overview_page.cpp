#include "gui/widgets/overview/overview_page.hpp"

#include <QFrame>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QVBoxLayout>
#include <algorithm>

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

namespace {

QString verdict_style(Verdict v) {
  const char* colour = v == Verdict::high       ? "#b71c1c"
                       : v == Verdict::moderate ? "#e65100"
                                                : "#1b5e20";
  const char* back = v == Verdict::high       ? "#ffebee"
                     : v == Verdict::moderate ? "#fff3e0"
                                              : "#e8f5e9";
  return QStringLiteral(
             "QLabel{color:%1;background:%2;border-radius:6px;padding:10px;"
             "font-size:17px;font-weight:bold}")
      .arg(QLatin1String(colour), QLatin1String(back));
}

QFrame* card(const Figure& f, QWidget* parent) {
  auto* frame = new QFrame(parent);
  frame->setObjectName(f.json_key);
  frame->setFrameShape(QFrame::StyledPanel);
  frame->setStyleSheet(
      f.alarm
          ? QStringLiteral("QFrame{background:#fff5f5;border:1px solid #ef9a9a;border-radius:6px}")
          : QStringLiteral(
                "QFrame{background:#fafbfc;border:1px solid #dfe3e8;border-radius:6px}"));
  auto* l = new QVBoxLayout(frame);
  l->setContentsMargins(10, 6, 10, 6);
  l->setSpacing(1);
  auto* label = new QLabel(f.label, frame);
  label->setStyleSheet(QStringLiteral("border:none;background:transparent;color:#607d8b"));
  auto* value = new QLabel(f.value, frame);
  value->setObjectName(QStringLiteral("value"));
  value->setStyleSheet(
      QStringLiteral("border:none;background:transparent;font-size:20px;font-weight:bold;color:%1")
          .arg(f.alarm ? QStringLiteral("#c62828") : QStringLiteral("#263238")));
  l->addWidget(label);
  l->addWidget(value);
  if (!f.detail.isEmpty()) {
    auto* detail = new QLabel(f.detail, frame);
    detail->setStyleSheet(QStringLiteral("border:none;background:transparent;color:#78909c"));
    l->addWidget(detail);
  }
  return frame;
}

}  // namespace

OverviewPage::OverviewPage(QWidget* parent)
    : QWidget(parent),
      file_(new QLabel(this)),
      verdict_(new QLabel(this)),
      warnings_(new QLabel(this)),
      cards_(new QWidget(this)),
      chart_(new StepChart(this)),
      lever_model_(new LeverModel(this)),
      lever_table_(new QTableView(this)),
      lever_details_(new QPlainTextEdit(this)),
      recommendations_(new QListWidget(this)) {
  verdict_->setWordWrap(true);
  verdict_->setObjectName(QStringLiteral("verdict"));
  file_->setStyleSheet(QStringLiteral("color:#607d8b"));
  warnings_->setWordWrap(true);
  warnings_->setObjectName(QStringLiteral("warnings"));
  warnings_->setTextFormat(Qt::PlainText);
  warnings_->setStyleSheet(
      QStringLiteral("QLabel{color:#6d4c00;background:#fff8e1;border:1px solid #ffca28;"
                     "border-radius:6px;padding:6px 10px}"));
  warnings_->hide();
  new QGridLayout(cards_);
  recommendations_->setWordWrap(true);
  recommendations_->setMaximumHeight(150);
  recommendations_->setSelectionMode(QAbstractItemView::NoSelection);
  recommendations_->setStyleSheet(
      QStringLiteral("QListWidget{border:none;background:transparent}"
                     "QListWidget::item{padding:3px}"));
  auto* rec_title = new QLabel(tr("Recommendations"), this);
  QFont bold = rec_title->font();
  bold.setBold(true);
  rec_title->setFont(bold);
  auto* levers_title = new QLabel(tr("Levers, by what they would save"), this);
  levers_title->setFont(bold);

  lever_table_->setObjectName(QStringLiteral("levers"));
  lever_table_->setModel(lever_model_);
  lever_table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  lever_table_->setSelectionMode(QAbstractItemView::SingleSelection);
  lever_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  lever_table_->setAlternatingRowColors(true);
  lever_table_->setShowGrid(false);
  lever_table_->setWordWrap(false);
  lever_table_->verticalHeader()->hide();
  lever_table_->verticalHeader()->setDefaultSectionSize(22);
  lever_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  lever_table_->horizontalHeader()->setSectionResizeMode(LeverModel::Title, QHeaderView::Stretch);
  lever_table_->setMaximumHeight(150);
  lever_details_->setObjectName(QStringLiteral("lever_details"));
  lever_details_->setReadOnly(true);
  lever_details_->setFrameShape(QFrame::NoFrame);
  lever_details_->setStyleSheet(
      QStringLiteral("QPlainTextEdit{color:#37474f;background:#fafbfc;border:1px solid #dfe3e8;"
                     "border-radius:6px;padding:2px 6px}"));
  connect(lever_table_->selectionModel(), &QItemSelectionModel::currentRowChanged, this,
          &OverviewPage::show_lever_details);
  recommendations_->setMaximumHeight(100);

  auto* layout = new QVBoxLayout(this);
  layout->addWidget(file_);
  layout->addWidget(verdict_);
  layout->addWidget(warnings_);
  layout->addWidget(cards_);
  layout->addWidget(chart_, 1);
  layout->addWidget(levers_title);
  // The table and the selected lever's details side by side: the overview stays one screen.
  auto* levers_row = new QHBoxLayout;
  levers_row->addWidget(lever_table_, 5);
  levers_row->addWidget(lever_details_, 4);
  layout->addLayout(levers_row);
  layout->addWidget(rec_title);
  layout->addWidget(recommendations_);
  connect(chart_, &StepChart::stepActivated, this, &OverviewPage::stepActivated);
  show_pending();
}

void OverviewPage::set_session(TraceSession* session) {
  if (session_) disconnect(session_, nullptr, this, nullptr);
  session_ = session;
  if (!session) {
    file_->clear();
    show_pending();
    return;
  }
  connect(session, &TraceSession::reportReady, this, &OverviewPage::show_report);
  connect(session, &TraceSession::backgroundFailed, this, [this] {
    if (session_ && !session_->report()) show_pending();
  });
  if (session->report())
    show_report();
  else
    show_pending();
}

void OverviewPage::clear_cards() {
  auto* grid = static_cast<QGridLayout*>(cards_->layout());
  while (QLayoutItem* item = grid->takeAt(0)) {
    delete item->widget();
    delete item;
  }
  figures_.clear();
}

void OverviewPage::show_warnings(const std::vector<std::string>& warnings) {
  warnings_->setText(warning_banner(warnings));
  warnings_->setVisible(!warnings.empty());
}

void OverviewPage::show_pending() {
  clear_cards();
  show_warnings({});
  chart_->set_report(nullptr, {});
  lever_model_->clear();
  show_lever_details({});
  recommendations_->clear();
  if (session_ && !session_->analysis_error().isEmpty()) {
    verdict_->setStyleSheet(verdict_style(Verdict::high));
    verdict_->setText(tr("The trace could not be analysed: %1").arg(session_->analysis_error()));
  } else {
    verdict_->setStyleSheet(QStringLiteral("QLabel{color:#546e7a;font-size:17px;padding:10px}"));
    verdict_->setText(session_ ? tr("Analysing %1…").arg(session_->file_name())
                               : tr("Open a trace: File → Open, or drop a file on this window."));
  }
}

void OverviewPage::show_report() {
  if (!session_ || !session_->report()) return;
  const Report& r = *session_->report();
  const QString run = run_title(r);
  file_->setText(
      session_->source().isEmpty()
          ? session_->path() + " — " + run
          : tr("%1 — %2 (imported into %3)").arg(session_->source(), run, session_->path()));
  verdict_->setStyleSheet(verdict_style(r.verdict));
  verdict_->setText(verdict_line(r));
  show_warnings(r.warnings);

  clear_cards();
  figures_ = overview_figures(r);
  auto* grid = static_cast<QGridLayout*>(cards_->layout());
  grid->setContentsMargins(0, 0, 0, 0);
  const int columns = 4;
  for (std::size_t i = 0; i < figures_.size(); ++i)
    grid->addWidget(card(figures_[i], cards_), static_cast<int>(i) / columns,
                    static_cast<int>(i) % columns);

  chart_->set_report(&r, session_->step_bars());
  show_levers(r);
  recommendations_->clear();
  for (const std::string& rec : r.recommendations)
    recommendations_->addItem(QStringLiteral("•  ") + display_sentence(rec));
  if (r.recommendations.empty())
    recommendations_->addItem(tr("Nothing to recommend: no rule fired."));
}

void OverviewPage::show_levers(const Report& r) {
  lever_model_->set_report(r);
  // Each row 22 px under a header: as many rows as there are, up to six, without a scroll bar.
  const int rows = std::min(lever_model_->rowCount(), 6);
  const int height = std::max(
      lever_table_->horizontalHeader()->sizeHint().height() + std::max(rows, 1) * 22 + 4, 140);
  // At most that; a smaller window shrinks the table to a few rows (it scrolls) before the chart.
  for (QWidget* w : {static_cast<QWidget*>(lever_table_), static_cast<QWidget*>(lever_details_)}) {
    w->setMaximumHeight(height);
    w->setMinimumHeight(std::min(height, 72));
  }
  if (lever_model_->rowCount() > 0)
    lever_table_->setCurrentIndex(lever_model_->index(0, LeverModel::Title));
  else
    show_lever_details({});
}

void OverviewPage::show_lever_details(const QModelIndex& index) {
  if (!index.isValid()) {
    lever_details_->setPlainText(lever_model_->rowCount() == 0 && session_ && session_->report()
                                     ? tr("No lever applies to this trace.")
                                     : QString());
    return;
  }
  const QString title = lever_model_->index(index.row(), LeverModel::Title).data().toString();
  lever_details_->setPlainText(title + QLatin1Char('\n') +
                               index.data(LeverModel::DetailsRole).toString());
}

QStringList OverviewPage::recommendations() const {
  QStringList out;
  for (int i = 0; i < recommendations_->count(); ++i) out << recommendations_->item(i)->text();
  return out;
}

}  // namespace ts::gui
