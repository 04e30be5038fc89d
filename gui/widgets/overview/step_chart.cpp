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

void StepChart::set_report(const analysis::Report* report) {
  chart()->removeAllSeries();
  for (QAbstractAxis* a : chart()->axes()) {
    chart()->removeAxis(a);
    delete a;
  }
  bars_.clear();
  if (report) rebuild(*report);
}

void StepChart::rebuild(const analysis::Report& report) {
  bars_ = step_bars(report.per_step);
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

  double top = 0;
  for (const StepBar& b : bars_) top = std::max(top, b.total_ms());
  top = top > 0 ? top * 1.12 : 1;
  const double n = static_cast<double>(bars_.size());

  // Behind the bars: a red band under each marked (input-bound) bar. The area series does not
  // own its lines: parent them to it.
  auto* band = new QAreaSeries;
  auto* band_upper = new QLineSeries(band);
  auto* band_lower = new QLineSeries(band);
  for (std::size_t i = 0; i < bars_.size(); ++i) {
    const double x = static_cast<double>(i);
    const double y = bars_[i].marked() ? top : 0;
    band_upper->append(x - 0.5, y);
    band_upper->append(x + 0.5, y);
    band_lower->append(x - 0.5, 0);
    band_lower->append(x + 0.5, 0);
  }
  band->setUpperSeries(band_upper);
  band->setLowerSeries(band_lower);
  band->setName(tr("input-bound step"));
  QColor red = part_color(analysis::Part::input_wait);
  QColor faint = red;
  faint.setAlpha(40);
  band->setBrush(faint);
  band->setPen(Qt::NoPen);
  chart()->addSeries(band);

  auto* series = new QStackedBarSeries;
  series->setBarWidth(0.8);
  for (int p = 0; p < analysis::kPartCount; ++p) {
    auto* set = new QBarSet(part_label(static_cast<analysis::Part>(p)));
    for (const StepBar& b : bars_) *set << b.part_ms[static_cast<std::size_t>(p)];
    set->setColor(part_color(static_cast<analysis::Part>(p)));
    set->setBorderColor(part_color(static_cast<analysis::Part>(p)).darker(115));
    series->append(set);
  }
  chart()->addSeries(series);

  // Above the bars: a red triangle over each input-bound bar.
  auto* marks = new QScatterSeries;
  marks->setName(tr("input-bound"));
  marks->setMarkerShape(QScatterSeries::MarkerShapeTriangle);
  marks->setMarkerSize(bars_.size() > 100 ? 7 : 11);
  marks->setColor(red);
  marks->setBorderColor(red.darker(130));
  for (std::size_t i = 0; i < bars_.size(); ++i)
    if (bars_[i].marked()) marks->append(static_cast<double>(i), bars_[i].total_ms() + top * 0.04);
  chart()->addSeries(marks);

  auto* x = new QCategoryAxis;
  x->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
  x->setRange(-0.5, n - 0.5);
  const std::size_t every = std::max<std::size_t>(1, bars_.size() / 16);
  for (std::size_t i = 0; i < bars_.size(); i += every)
    x->append(QString::number(bars_[i].first_step), static_cast<double>(i));
  x->setTitleText(per_bar == 1 ? tr("step") : tr("first step of each bar"));
  x->setGridLineVisible(false);
  auto* y = new QValueAxis;
  y->setRange(0, top);
  y->setTitleText(tr("ms"));
  y->setLabelFormat(QStringLiteral("%.3g"));
  chart()->addAxis(x, Qt::AlignBottom);
  chart()->addAxis(y, Qt::AlignLeft);
  for (QAbstractSeries* s : chart()->series()) {
    s->attachAxis(x);
    s->attachAxis(y);
  }
  // The band explains itself through the triangles; keep the legend to parts and the mark.
  for (QLegendMarker* m : chart()->legend()->markers(band)) m->setVisible(false);

  connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
    if (index >= 0 && static_cast<std::size_t>(index) < bars_.size())
      emit stepActivated(bars_[static_cast<std::size_t>(index)].first_step);
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
    if (b.input_bound)
      tip += tr(" — %1 input-bound").arg(b.count == 1 ? QString() : QString::number(b.input_bound));
    for (int p = 0; p < analysis::kPartCount; ++p)
      if (b.part_ms[static_cast<std::size_t>(p)] > 0)
        tip += QStringLiteral("\n  %1: %2")
                   .arg(part_label(static_cast<analysis::Part>(p)),
                        format_ms(b.part_ms[static_cast<std::size_t>(p)]));
    tip += tr("\nclick to open in the timeline");
    QToolTip::showText(QCursor::pos(), tip, this);
  });
}

}  // namespace ts::gui
