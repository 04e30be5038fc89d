#include "gui/widgets/overview/step_chart.hpp"

#include <QAreaSeries>
#include <QBarSet>
#include <QCategoryAxis>
#include <QChart>
#include <QLegendMarker>
#include <QLineSeries>
#include <QScatterSeries>
#include <QStackedBarSeries>
#include <QToolTip>
#include <QValueAxis>
#include <algorithm>

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

StepChart::StepChart(QWidget* parent) : QChartView(parent) {
  setRenderHint(QPainter::Antialiasing);
  setMinimumHeight(240);
  chart()->setMargins(QMargins(4, 4, 4, 4));
  chart()->legend()->setAlignment(Qt::AlignBottom);
}

void StepChart::set_report(const Report* report, std::vector<StepBar> bars) {
  chart()->removeAllSeries();
  for (QAbstractAxis* a : chart()->axes()) {
    chart()->removeAxis(a);
    delete a;
  }
  bars_ = report ? std::move(bars) : std::vector<StepBar>{};
  if (report) rebuild(*report);
}

// A band the chart's full height behind the bars that `covers` picks, drawn with `brush`.
QAreaSeries* StepChart::add_band(const std::function<bool(const StepBar&)>& covers, double top,
                                 const QString& name, const QBrush& brush) {
  // An area series does not own its lines: parent them to it.
  auto* band = new QAreaSeries;
  auto* upper = new QLineSeries(band);
  auto* lower = new QLineSeries(band);
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    const double x = static_cast<double>(i), h = covers(bars_[i]) ? top : 0.0;
    upper->append(x - 0.5, h);
    upper->append(x + 0.5, h);
    lower->append(x - 0.5, 0);
    lower->append(x + 0.5, 0);
  }
  band->setUpperSeries(upper);
  band->setLowerSeries(lower);
  band->setName(name);
  band->setBrush(brush);
  band->setPen(Qt::NoPen);
  chart()->addSeries(band);
  return band;
}

void StepChart::rebuild(const Report& report) {
  if (bars_.empty()) {
    chart()->setTitle(tr("No steps recorded"));
    return;
  }
  const std::size_t per_bar = bars_.front().count;
  chart()->setTitle(per_bar == 1
                        ? tr("Step time by part (ms)")
                        : tr("Step time by part (ms), each bar the mean of %1 steps").arg(per_bar));
  QFont title = chart()->titleFont();
  title.setBold(true);
  chart()->setTitleFont(title);

  // The Y axis first: its round top (1, 2, 5 × 10^n ticks, not 0.992, 1.98) is the bands' height.
  // Spikes count up to 3 times the 90th percentile of the bars (beyond, they are cut at the top).
  std::vector<double> totals;
  double top = 0, spike = 0;
  for (const StepBar& b : bars_) {
    totals.push_back(b.total_ms());
    top = std::max(top, b.total_ms());
    spike = std::max(spike, b.max_ms);
  }
  std::nth_element(totals.begin(), totals.begin() + totals.size() * 9 / 10, totals.end());
  top = std::max(top, std::min(spike, 3 * totals[totals.size() * 9 / 10]));
  auto* y = new QValueAxis;
  y->setRange(0, top > 0 ? top * 1.12 : 1);
  y->applyNiceNumbers();
  top = y->max();
  const double n = static_cast<double>(bars_.size());

  // Behind the bars: a grey band under the warm-up the figures leave out. (A step's input time
  // is drawn in its bar, in ms like the rest: the input wait and host-to-device copy parts; the
  // marks above say which steps pass the input thresholds.)
  QAreaSeries* warm = add_band([](const StepBar& b) { return b.warmup > 0; }, top,
                               tr("warm-up (left out)"), QColor(0x90, 0xa4, 0xae, 60));
  // And a hatched band over the bars of steps without device events (a capture sampling them):
  // their bars hold no device parts because none were recorded, not because the device idled.
  bool any_unsampled = false;
  for (const StepBar& b : bars_) any_unsampled = any_unsampled || b.fully_unsampled();
  QAreaSeries* unsampled =
      add_band([](const StepBar& b) { return b.fully_unsampled(); }, top, tr("device not sampled"),
               QBrush(QColor(0x90, 0xa4, 0xae), Qt::BDiagPattern));

  auto* series = new QStackedBarSeries;
  series->setBarWidth(0.8);
  for (int p = 0; p < kPartCount; ++p) {
    auto* set = new QBarSet(part_label(static_cast<Part>(p)));
    for (const StepBar& b : bars_) *set << b.part_ms[static_cast<std::size_t>(p)];
    set->setColor(part_color(static_cast<Part>(p)));
    set->setBorderColor(part_color(static_cast<Part>(p)).darker(115));
    series->append(set);
  }
  chart()->addSeries(series);

  // A bar of several steps is their mean: a tick at its slowest step keeps a spike in sight.
  if (per_bar > 1) {
    auto* worst = new QScatterSeries;
    worst->setName(tr("slowest step of a bar"));
    worst->setMarkerShape(QScatterSeries::MarkerShapeRectangle);
    worst->setMarkerSize(4);
    worst->setColor(QColor(0x37, 0x47, 0x4f));
    worst->setBorderColor(QColor(0x37, 0x47, 0x4f));
    for (std::size_t i = 0; i < bars_.size(); ++i)
      worst->append(static_cast<double>(i), bars_[i].max_ms);
    chart()->addSeries(worst);
  }
  // Epoch boundaries: a vertical line where a bar starts a new epoch.
  for (std::size_t i = 1; i < bars_.size(); ++i) {
    if (bars_[i].epoch <= 0 || bars_[i].epoch == bars_[i - 1].epoch) continue;
    auto* line = new QLineSeries;
    line->setName(tr("epoch %1").arg(bars_[i].epoch));
    line->append(static_cast<double>(i) - 0.5, 0);
    line->append(static_cast<double>(i) - 0.5, top);
    line->setPen(QPen(QColor(0x54, 0x6e, 0x7a), 1, Qt::DashLine));
    chart()->addSeries(line);
    for (QLegendMarker* m : chart()->legend()->markers(line)) m->setVisible(false);
  }

  // Above the bars: a triangle over each bar holding input-bound steps, red for highly and
  // orange for moderately input-bound (the report's two counts), by the bar's highest class.
  const QString high_pct =
      QString::number(std::max(report.step_input_high_pct, report.step_input_bound_pct));
  const QString moderate_pct = QString::number(report.step_input_bound_pct);
  for (const Verdict v : {Verdict::high, Verdict::moderate}) {
    auto* marks = new QScatterSeries;
    // Short: the legend has a dozen entries. The tooltip names the class in words.
    marks->setName(v == Verdict::high ? tr("input ≥ %1 %").arg(high_pct)
                                      : tr("input ≥ %1 %").arg(moderate_pct));
    marks->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
    marks->setMarkerSize(bars_.size() > 100 ? 7 : 11);
    marks->setColor(input_class_color(v));
    marks->setBorderColor(input_class_color(v).darker(130));
    std::size_t marked = 0;
    for (std::size_t i = 0; i < bars_.size(); ++i)
      if (bars_[i].mark() == v) {
        marks->append(static_cast<double>(i), std::min(bars_[i].total_ms() + top * 0.04, top));
        ++marked;
      }
    chart()->addSeries(marks);
    if (marked == 0)
      for (QLegendMarker* m : chart()->legend()->markers(marks)) m->setVisible(false);
  }

  auto* x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  x->setRange(-0.5, n - 0.5);
  const std::size_t every = std::max<std::size_t>(1, bars_.size() / 16);
  for (std::size_t i = 0; i < bars_.size(); i += every)
    x->append(QString::number(bars_[i].first_step), static_cast<double>(i));
  x->setTitleText(per_bar == 1 ? tr("step") : tr("first step of each bar"));
  x->setGridLineVisible(false);
  y->setTitleText(tr("ms"));
  y->setLabelFormat(QStringLiteral("%.3g"));
  chart()->addAxis(x, Qt::AlignBottom);
  chart()->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : chart()->series()) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  bool any_warm = false;
  for (const StepBar& b : bars_) any_warm = any_warm || b.warmup > 0;
  if (!any_warm)
    for (QLegendMarker* m : chart()->legend()->markers(warm)) m->setVisible(false);
  if (!any_unsampled)
    for (QLegendMarker* m : chart()->legend()->markers(unsampled)) m->setVisible(false);

  connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
    if (index >= 0 && static_cast<std::size_t>(index) < bars_.size())
      emit stepActivated(bars_[static_cast<std::size_t>(index)].worst_step);
  });
  connect(series, &QStackedBarSeries::hovered, this, [this](bool on, int index, QBarSet*) {
    if (!on || index < 0 || static_cast<std::size_t>(index) >= bars_.size()) {
      QToolTip::hideText();
      return;
    }
    const StepBar& b = bars_[static_cast<std::size_t>(index)];
    QString tip = b.count == 1 ? tr("step %1").arg(b.first_step)
                               : tr("steps %1–%2 (mean)").arg(b.first_step).arg(b.last_step);
    tip += QStringLiteral(": %1").arg(format_ms(b.total_ms()));
    if (b.count > 1) tip += tr(", slowest: step %1, %2").arg(b.worst_step).arg(format_ms(b.max_ms));
    if (b.count == 1 && b.input_bound) {
      tip += QStringLiteral(" — ") + input_class_label(b.mark());
    } else if (b.input_bound) {
      tip += tr(" — input-bound: %1 highly, %2 moderately")
                 .arg(b.input_bound_high)
                 .arg(b.input_bound - b.input_bound_high);
    }
    tip += tr(", input %1").arg(format_pct(b.input_pct()));
    if (b.warmup) tip += tr(" (warm-up, left out of the figures)");
    if (b.fully_unsampled())
      tip += tr("\n  device parts not sampled (no device events recorded)");
    else if (b.unsampled > 0)
      tip += tr("\n  device parts recorded in %1 of its %2 steps")
                 .arg(b.count - b.unsampled)
                 .arg(b.count);
    for (int p = 0; p < kPartCount; ++p)
      if (b.part_ms[static_cast<std::size_t>(p)] > 0)
        tip += QStringLiteral("\n  %1: %2")
                   .arg(part_label(static_cast<Part>(p)),
                        format_ms(b.part_ms[static_cast<std::size_t>(p)]));
    tip += b.count == 1 ? tr("\nclick to open it in the timeline")
                        : tr("\nclick to open the slowest in the timeline");
    QToolTip::showText(QCursor::pos(), tip, this);
  });
}

}  // namespace ts::gui
