#include "profiler/analysis/live_analysis.hpp"

#include <algorithm>

#include "profiler/analysis/analyse_with.hpp"
#include "profiler/analysis/kept_report.hpp"

namespace ts::analysis {

namespace {

// The steps starting before t.
std::size_t steps_before(std::span<const store::Step> steps, std::int64_t t) {
  return static_cast<std::size_t>(
      std::partition_point(steps.begin(), steps.end(),
                           [&](const store::Step& s) { return s.start_ns < t; }) -
      steps.begin());
}

bool same_step(const store::Step& a, const store::Step& b) {
  return a.step == b.step && a.start_ns == b.start_ns && a.dur_ns == b.dur_ns && a.track == b.track;
}

// The windows classify the events before `until` alike: the same start, and the same end as far
// as those events go (a window's end moves with the last analysed step).
bool same_up_to(const Interval& a, const Interval& b, std::int64_t until) {
  return a.start == b.start && std::min(a.end, until) == std::min(b.end, until);
}

}  // namespace

bool LiveAnalysis::Conditions::holds_for(const Conditions& now, std::int64_t until_ns) const {
  return options == now.options && tracks == now.tracks &&
         same_up_to(window, now.window, until_ns) &&
         same_up_to(stage_window, now.stage_window, until_ns);
}

std::size_t LiveAnalysis::reused_steps() const {
  const std::lock_guard lock(mutex_);
  return reused_;
}

Report LiveAnalysis::analyse(const store::Reader& reader, const AnalysisOptions& options) {
  const std::int64_t from = changed_.take();
  try {
    std::size_t reused = 0;
    Report report = analyse_with(reader, options, [&](const OnePass& p) {
      Conditions conditions{kept_report_key(options) + (options.keep_gaps ? " gaps" : ""),
                            {},
                            p.selection.window,
                            p.selection.stage_window};
      for (const store::Track& t : reader.tracks())
        conditions.tracks.push_back(
            {t.id, {static_cast<int>(p.tracks.role(t.id)), p.tracks.index(t.id)}});
      const std::lock_guard lock(mutex_);
      const bool reuse =
          kept_ && kept_->until_ns <= from &&
          kept_->conditions.holds_for(conditions, kept_->until_ns) &&
          steps_before(p.steps, kept_->until_ns) == kept_->steps &&
          (kept_->steps == 0 || same_step(p.steps[kept_->steps - 1], kept_->last_step));
      if (!reuse) kept_.reset();
      const std::int64_t start = reuse ? kept_->until_ns : kFromStart;
      const std::size_t first = reuse ? kept_->steps : 0;

      // The next kept pass ends at the start of the last step starting settle_ns_ before the
      // last step's end (never the first step: a pass ends at a step start after it).
      std::size_t settled = first;
      if (!p.steps.empty()) {
        const store::Step& last = p.steps.back();
        const std::int64_t settle = store::sat_add(last.start_ns, last.dur_ns) - settle_ns_;
        settled = std::clamp(steps_before(p.steps, settle), first, p.steps.size() - 1);
      }
      // Cuts: the events up to there in parallel parts (every event, the first time), then the
      // last few seconds on their own.
      std::vector<std::int64_t> cuts{start};
      for (const std::int64_t split :
           split_points(p.steps.subspan(first, settled - first), options.threads))
        if (split > cuts.back()) cuts.push_back(split);
      const bool keeps = settled > first && p.steps[settled].start_ns > cuts.back();
      if (keeps) cuts.push_back(p.steps[settled].start_ns);
      const std::size_t kept_parts = keeps ? cuts.size() - 1 : 0;

      std::vector<EventPass> passes = scan_parts(reader, p.tracks, p.steps, cuts, options,
                                                 p.selection.window, p.selection.stage_window);
      reused = reuse ? kept_->steps : 0;
      // The kept pass grows in place by the parts up to the next one's end; what is returned is
      // one copy of it, with the last seconds merged after.
      std::optional<EventPass> kept_pass;
      if (reuse) kept_pass.emplace(std::move(kept_->pass));
      std::size_t i = 0;
      for (; i < kept_parts; ++i) {
        if (kept_pass)
          kept_pass->merge(std::move(passes[i]));
        else
          kept_pass.emplace(std::move(passes[i]));
      }
      std::optional<EventPass> pass;
      if (kept_pass) pass.emplace(*kept_pass);
      if (keeps) {
        kept_.reset();
        kept_.emplace(Kept{conditions, p.steps[settled].start_ns, settled, p.steps[settled - 1],
                           std::move(*kept_pass)});
      } else if (reuse) {
        kept_->pass = std::move(*kept_pass);  // unchanged: nothing settled since
      }
      for (; i < passes.size(); ++i) {
        if (pass)
          pass->merge(std::move(passes[i]));
        else
          pass.emplace(std::move(passes[i]));
      }
      return std::move(*pass);
    });
    const std::lock_guard lock(mutex_);
    reused_ = reused;
    return report;
  } catch (...) {
    changed_.note(from);
    const std::lock_guard lock(mutex_);
    kept_.reset();
    throw;
  }
}

}  // namespace ts::analysis
