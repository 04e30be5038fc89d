// The unrecorded-time lever (lever_rules.hpp): a large share of the step in which nothing was
// recorded, on the host or the device (the breakdown's `other / idle`). The trace cannot say what
// ran there; the usual causes are compilation in the first steps (torch.compile, Triton, XLA),
// host code outside any profiled operator (Python, a data loader in the main process) and a
// window without step markers that takes in start-up. The evidence gives the share and the
// longest stretches (unrecorded_gaps.hpp); the fix is to record that time, or to leave it out.
#include <algorithm>
#include <optional>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/lever_rules.hpp"
#include "profiler/analysis/levers.hpp"
#include "profiler/analysis/unrecorded_gaps.hpp"

namespace ts::analysis::lever_rules {

namespace {

// "13.3 s at +1.20 ms in step 1"
std::string gap_text(const UnrecordedGap& g) {
  return fmt::duration(g.end_ns - g.start_ns) + " at +" +
         fmt::duration(g.start_ns - g.step_start_ns) + " in step " + std::to_string(g.step);
}

bool triton_kernels(const Report& r) {
  return std::any_of(r.kernels.begin(), r.kernels.end(),
                     [](const KernelStat& k) { return k.name.rfind("triton_", 0) == 0; });
}

// What the warm-up rule did with the first steps, and whether the unrecorded time sits there.
void warmup_evidence(const Report& r, Lever& l) {
  if (r.whole_window) {
    l.evidence.push_back(
        "The trace has no step markers: its one step is the whole profiled window, start-up "
        "and compilation included.");
    return;
  }
  if (r.warmup.steps > 0) {
    l.evidence.push_back("The warm-up rule left out " + fmt::count(r.warmup.steps) +
                         (r.warmup.steps == 1 ? " step" : " steps") +
                         (r.warmup.why.empty() ? std::string() : " (" + r.warmup.why + ")") +
                         ": this time is in the analysed steps.");
    return;
  }
  if (r.steps == 1) {
    l.evidence.push_back(
        "The trace holds 1 step, so no first step could be left out as warm-up: if it compiled "
        "(torch.compile, Triton, XLA), the compilation is in these figures.");
    return;
  }
  // Several steps, none left out: is the unrecorded time in the first one?
  std::optional<StepSummary> first;
  for (const StepSummary& s : r.per_step)
    if (!s.warmup) {
      first = s;
      break;
    }
  const std::int64_t all = r.breakdown[Part::other];
  if (first && all > 0 && 2 * first->parts[Part::other] >= all)
    l.evidence.push_back("The first analysed step (" + std::to_string(first->step) + ") holds " +
                         fmt::pct(100.0 * static_cast<double>(first->parts[Part::other]) /
                                  static_cast<double>(all)) +
                         " of it: warm-up or compilation that the profile should leave out.");
}

void fixes(const Report& r, Lever& l) {
  switch (framework(r)) {
    case Framework::pytorch:
      l.fix.push_back(
          "leave compilation and warm-up out of the profile: torch.profiler.schedule(wait=1, "
          "warmup=1, active=3) or start profiling after a few steps (torch.compile and Triton "
          "compile during the first steps)");
      l.fix.push_back(
          "profile with with_stack=True and record_shapes=True so the host's Python in these "
          "gaps is recorded, and name your own code with torch.profiler.record_function");
      l.fix.push_back(
          "a DataLoader with num_workers=0 loads in the main process, outside any profiled "
          "operator: give it workers");
      break;
    case Framework::tensorflow:
      l.fix.push_back(
          "leave tf.function tracing and XLA compilation out of the profile: profile later "
          "batches (TensorBoard callback profile_batch='10,15')");
      l.fix.push_back(
          "tf.profiler.experimental.ProfilerOptions(host_tracer_level=3, python_tracer_level=1) "
          "records the host's Python; name your own code with tf.profiler.experimental.Trace");
      break;
    case Framework::trainscope:
      l.fix.push_back("leave warm-up steps out (--skip-warmup N)");
      l.fix.push_back("name the untraced host code with TS_ZONE so that the capture records it");
      break;
    case Framework::other:
      l.fix.push_back(
          "record the host's code in these gaps (annotations, a Python tracer), and leave "
          "compilation and warm-up steps out of the profile");
      break;
  }
}

}  // namespace

std::optional<Lever> unrecorded_time(const Report& r, const AnalysisOptions& o,
                                     const LeverFacts& f) {
  const double other = per_step(r, r.breakdown[Part::other]);
  const double share = step_pct(r, other);
  if (share < kUnrecordedPct) return std::nullopt;
  Lever l = make(r, o, "unrecorded_time", "Unrecorded time", other, "heuristic",
                 "the step without its unrecorded time, as if the gaps were spent computing: what "
                 "they hold (compilation, Python, loading in the main process) decides how much "
                 "of it can go");
  l.evidence.push_back("Nothing was recorded on the host or the device for " + fmt::pct(share) +
                       " of step time (" + fmt::duration(static_cast<std::int64_t>(other)) +
                       " per step): the trace does not say what ran then.");
  if (!f.unrecorded_gaps.empty()) {
    std::string text;
    // The longest first; those under a tenth of it add nothing to read.
    const std::int64_t longest =
        f.unrecorded_gaps.front().end_ns - f.unrecorded_gaps.front().start_ns;
    for (const UnrecordedGap& g : f.unrecorded_gaps) {
      if (10 * (g.end_ns - g.start_ns) < longest) break;
      text += (text.empty() ? "" : "; ") + gap_text(g);
      const std::string step = "step " + std::to_string(g.step);
      if (std::find(l.points_at.begin(), l.points_at.end(), step) == l.points_at.end())
        l.points_at.push_back(step);
    }
    l.evidence.push_back("Longest stretches: " + text + ".");
  }
  warmup_evidence(r, l);
  if (framework(r) == Framework::pytorch && triton_kernels(r))
    l.evidence.push_back(
        "Triton kernels ran (torch.compile): their compilation runs on the host and records "
        "nothing unless the profile covers it with with_stack=True.");
  fixes(r, l);
  return l;
}

}  // namespace ts::analysis::lever_rules
