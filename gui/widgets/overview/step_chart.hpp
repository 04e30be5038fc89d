// The overview's step-time chart (Qt Charts): one stacked bar per step (or per run of steps,
// step_bars.hpp) split by breakdown part, input-bound bars marked with a red triangle above
// them and a red band behind them. Clicking a bar asks to open that step in the timeline.
#pragma once

#include <QAreaSeries>
#include <QChartView>
#include <cstdint>
#include <functional>
#include <vector>

#include "gui/models/step_bars.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

class StepChart : public QChartView {
  Q_OBJECT

 public:
  explicit StepChart(QWidget* parent = nullptr);
  // The report and the bars of its per-step figures (the session's step_bars()); null clears
  // the chart.
  void set_report(const Report* report, std::vector<StepBar> bars);
  const std::vector<StepBar>& bars() const { return bars_; }

 signals:
  void stepActivated(std::int64_t step);

 private:
  void rebuild(const Report& report);
  QAreaSeries* add_band(const std::function<bool(const StepBar&)>& covers, double top,
                        const QString& name, const QBrush& brush);

  std::vector<StepBar> bars_;
};

}  // namespace ts::gui
