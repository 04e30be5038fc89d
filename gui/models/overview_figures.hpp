// The key figures of the overview page, taken from the analysis report. Each figure names the
// `trainscope report --json` key it shows (json_key), so a test can check that the viewer and
// the report print the same numbers.
#pragma once

#include <QString>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::gui {

struct Figure {
  QString json_key;    // e.g. "step_time_ms.p90", "device.idle_pct"
  QString label;       // "p90 step time"
  QString value;       // "4.56 ms"
  double raw = 0;      // the number behind value, in the JSON's unit
  QString detail;      // a smaller second line, may be empty
  bool alarm = false;  // the figure is the problem (input-bound, device mostly idle)
};

std::vector<Figure> overview_figures(const analysis::Report& report);
// The verdict sentence, as `trainscope report` prints it (analysis::verdict_sentence).
QString verdict_line(const analysis::Report& report);

}  // namespace ts::gui
