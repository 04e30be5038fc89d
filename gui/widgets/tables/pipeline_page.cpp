#include "gui/widgets/tables/pipeline_page.hpp"

#include <QVBoxLayout>

#include "gui/models/format.hpp"
#include "gui/widgets/tables/table_view.hpp"

namespace ts::gui {

PipelinePage::PipelinePage(QWidget* parent)
    : QWidget(parent), model_(new StageModel(this)), summary_(new QLabel(this)) {
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::RichText);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(summary_);
  layout->addWidget(make_table_view(model_, nullptr, this), 1);
}

void PipelinePage::set_report(const Report* report) {
  model_->set_pipeline(report ? report->pipeline : PipelineStats{});
  if (!report) {
    summary_->clear();
    return;
  }
  const PipelineStats& p = report->pipeline;
  if (p.stages.empty()) {
    summary_->setText(tr("No input pipeline events were recorded."));
    return;
  }
  QStringList parts;
  parts << (p.bottleneck_stage ? tr("Bottleneck stage: <b style='color:#c62828'>%1</b>")
                                     .arg(display_text(*p.bottleneck_stage).toHtmlEscaped())
                               : tr("No stage is on the critical path"));
  if (p.workers) parts << tr("workers %1").arg(*p.workers);
  if (p.prefetch) parts << tr("prefetch %1").arg(*p.prefetch);
  if (p.cache)
    parts << tr("cache %1").arg(display_text(*p.cache, kMaxShownValueBytes).toHtmlEscaped());
  if (p.prefetch_fill_mean)
    parts << tr("prefetch buffer fill, mean %1").arg(*p.prefetch_fill_mean, 0, 'f', 2);
  if (p.samples == 0) parts << tr("figures per event (batch size unknown)");
  summary_->setText(parts.join(QStringLiteral(" · ")));
}

}  // namespace ts::gui
