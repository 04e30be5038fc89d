#include "profiler/analysis/device_idle.hpp"

#include <algorithm>
#include <utility>

namespace ts::analysis {

std::string_view idle_cause_name(IdleCause c) {
  switch (c) {
    case IdleCause::input:
      return "input";
    case IdleCause::collective:
      return "collective";
    case IdleCause::host:
      return "host";
    case IdleCause::sync:
      return "sync";
    case IdleCause::other:
      break;
  }
  return "other";
}

WindowIdle device_idle(Interval window, std::int64_t step, const PartIntervalsWindow& intervals,
                       std::vector<IdleGap>& gaps_out, IdleScratch& s) {
  WindowIdle w;
  if (window.length() == 0) return w;
  gaps(intervals.device_busy, window, s.gaps);
  const std::pair<IdleCause, std::span<const Interval>> causes[] = {
      {IdleCause::input, intervals[Part::input_wait]},
      {IdleCause::collective, intervals[Part::collective]},
      {IdleCause::host, intervals.host_busy},
      {IdleCause::sync, intervals[Part::sync]},
  };
  for (const Interval& gap : s.gaps) {
    w.idle_ns += gap.length();
    s.pieces.clear();
    s.claimed.clear();
    for (const auto& [cause, set] : causes) {
      clip(set, gap, s.clipped);
      if (s.clipped.empty()) continue;
      subtract(s.clipped, s.claimed, s.fresh);
      for (const Interval& i : s.fresh) s.pieces.push_back({i.start, i.end, step, cause});
      unite(s.claimed, s.fresh, s.merged);
      std::swap(s.claimed, s.merged);
    }
    gaps(s.claimed, gap, s.rest);
    for (const Interval& i : s.rest) s.pieces.push_back({i.start, i.end, step, IdleCause::other});
    std::sort(s.pieces.begin(), s.pieces.end(),
              [](const IdleGap& a, const IdleGap& b) { return a.start_ns < b.start_ns; });
    for (const IdleGap& g : s.pieces) {
      w.by_cause_ns[static_cast<int>(g.cause)] += g.end_ns - g.start_ns;
      gaps_out.push_back(g);
    }
  }
  w.busy_ns = window.length() - w.idle_ns;
  return w;
}

}  // namespace ts::analysis
