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
// The run as the overview's title names it: "model · backend · device", each value from the
// trace's meta cut to kMaxTitleValueBytes ("run" when the model is unknown): the title is one
// line that does not wrap, and real names are far shorter.
inline constexpr std::size_t kMaxTitleValueBytes = 80;
QString run_title(const analysis::Report& report);
// The partial-trace banner: a line a warning, each cut for display (display_sentence), the first
// kMaxBannerWarnings only and then how many more (a job of 100 000 ranks may warn of each).
inline constexpr std::size_t kMaxBannerWarnings = 20;
QString warning_banner(const std::vector<std::string>& warnings);

}  // namespace ts::gui
