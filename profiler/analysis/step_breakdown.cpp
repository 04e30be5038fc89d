#include "profiler/analysis/step_breakdown.hpp"

#include <utility>

namespace ts::analysis {

std::string_view part_name(Part p) {
  constexpr std::string_view names[kPartCount] = {
      "device_compute", "collective", "d2h",  "h2d",          "input_wait",
      "input_handoff",  "launch",     "sync", "host_compute", "other"};
  const auto i = static_cast<int>(p);
  return i >= 0 && i < kPartCount ? names[i] : std::string_view("other");
}

std::int64_t Breakdown::total() const {
  std::int64_t sum = 0;
  for (std::int64_t v : ns) sum += v;
  return sum;
}

std::string_view verdict_name(Verdict v) {
  switch (v) {
    case Verdict::high:
      return "high";
    case Verdict::moderate:
      return "moderate";
    case Verdict::none:
      break;
  }
  return "none";
}

Verdict verdict_for(double pct) {
  if (pct >= kHighInputPct) return Verdict::high;
  if (pct >= kModerateInputPct) return Verdict::moderate;
  return Verdict::none;
}

Verdict step_verdict_for(double pct, std::int64_t dur_ns, const AnalysisOptions& options) {
  if (dur_ns <= 0 || !(pct >= options.step_input_bound_pct)) return Verdict::none;
  // A moderate threshold set above the high one leaves no moderate class, never a high step
  // below the moderate threshold.
  return pct >= options.step_input_high_pct ? Verdict::high : Verdict::moderate;
}

Breakdown break_down(Interval window, const PartIntervalsWindow& intervals, BreakdownScratch& s) {
  Breakdown b;
  if (window.length() == 0) return b;
  // Walk the parts in priority order; each takes what of its own time in the window no
  // higher-priority part has claimed yet.
  s.claimed.clear();
  std::int64_t assigned = 0;
  for (int p = 0; p < kPartCount; ++p) {
    if (static_cast<Part>(p) == Part::other) continue;
    clip(intervals.parts[p], window, s.clipped);
    if (s.clipped.empty()) continue;
    subtract(s.clipped, s.claimed, s.fresh);
    const std::int64_t len = total_length(s.fresh);
    b.ns[p] = len;
    assigned += len;
    unite(s.claimed, s.fresh, s.merged);
    std::swap(s.claimed, s.merged);
  }
  b[Part::other] = window.length() - assigned;
  return b;
}

}  // namespace ts::analysis
