#include "profiler/analysis/step_figures.hpp"

#include <algorithm>

namespace ts::analysis {

void StepFigures::add(const store::Step& s, const PartIntervalsWindow& view,
                      const AnalysisOptions& options) {
  const Interval window{s.start_ns, s.start_ns + s.dur_ns};
  StepSummary st;
  st.step = s.step;
  st.start_ns = s.start_ns;
  st.dur_ns = s.dur_ns;
  st.parts = break_down(window, view, breakdown_scratch_);
  st.input_ns = input_ns(st.parts);
  st.input_pct = percent(st.input_ns, st.dur_ns);
  st.input_verdict = step_verdict_for(st.input_pct, st.dur_ns, options);
  st.input_bound = st.input_verdict != Verdict::none;
  st.h2d_all_ns = overlap_length(view[Part::h2d], window);
  // Input wait during which an input stage ran: wait - (wait minus the stages' time).
  clip(view[Part::input_wait], window, breakdown_scratch_.clipped);
  subtract(breakdown_scratch_.clipped, view.input_work, breakdown_scratch_.fresh);
  st.input_wait_all_ns = total_length(breakdown_scratch_.clipped);
  st.input_work_in_wait_ns = st.input_wait_all_ns - total_length(breakdown_scratch_.fresh);
  h2d_total_ns += st.h2d_all_ns;

  step_gaps_.clear();
  const WindowIdle w = device_idle(window, s.step, view, step_gaps_, idle_scratch_);
  st.device_busy_ns = w.busy_ns;
  busy_ns += w.busy_ns;
  idle_ns += w.idle_ns;
  st.idle_by_cause_ns = w.by_cause_ns;
  for (int c = 0; c < kIdleCauseCount; ++c) idle_by_cause_ns[c] += w.by_cause_ns[c];
  std::int64_t listed = 0;
  for (const IdleGap& g : step_gaps_) {
    if (g.end_ns - g.start_ns < options.min_listed_gap_ns) continue;
    ++listed;
    if (options.keep_gaps) gaps.push_back(g);
  }
  listed_gaps += listed;
  listed_gaps_per_step.push_back(
      static_cast<std::uint32_t>(std::min<std::int64_t>(listed, UINT32_MAX)));

  for (int p = 0; p < kPartCount; ++p) breakdown.ns[p] += st.parts.ns[p];
  step_time_total_ns += st.dur_ns;
  if (st.input_bound) ++input_bound_steps;
  if (st.input_verdict == Verdict::high) ++input_bound_steps_high;
  per_step.push_back(st);
}

void StepFigures::append(StepFigures&& later) {
  per_step.append(later.per_step);
  for (int p = 0; p < kPartCount; ++p) breakdown.ns[p] += later.breakdown.ns[p];
  step_time_total_ns += later.step_time_total_ns;
  h2d_total_ns += later.h2d_total_ns;
  input_bound_steps += later.input_bound_steps;
  input_bound_steps_high += later.input_bound_steps_high;
  busy_ns += later.busy_ns;
  idle_ns += later.idle_ns;
  for (int c = 0; c < kIdleCauseCount; ++c) idle_by_cause_ns[c] += later.idle_by_cause_ns[c];
  gaps.insert(gaps.end(), later.gaps.begin(), later.gaps.end());
  listed_gaps += later.listed_gaps;
  listed_gaps_per_step.insert(listed_gaps_per_step.end(), later.listed_gaps_per_step.begin(),
                              later.listed_gaps_per_step.end());
  later = StepFigures{};
}

}  // namespace ts::analysis
