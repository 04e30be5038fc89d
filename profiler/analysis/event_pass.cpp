#include "profiler/analysis/event_pass.hpp"

#include <algorithm>
#include <exception>
#include <limits>
#include <stdexcept>
#include <thread>
#include <vector>

namespace ts::analysis {

namespace {

// Scan bounds for "everything": far outside any clamped time, with room for the Reader's
// long-event look-back below t0.
constexpr std::int64_t kAll = std::numeric_limits<std::int64_t>::max() / 2;

void scan_part(const store::Reader& reader, const TrackTable& tracks, std::int64_t t0,
               std::int64_t t1, bool first, EventPass& pass) {
  reader.scan(t0, t1, 0, [&](const store::Event& e) {
    // scan() also returns events that started before t0 and reach into the part: they belong
    // to the part before, and are context for this part's steps.
    if (!first && e.start_ns < t0) {
      pass.add_context(e, tracks);
    } else {
      pass.add(e, tracks);
    }
  });
  pass.finish();
}

}  // namespace

std::vector<std::int64_t> split_points(std::span<const store::Step> steps, int threads) {
  constexpr std::size_t kMinStepsToSplit = 256;
  constexpr int kMaxAutoThreads = 4;
  std::size_t parts = 1;
  if (threads == 0 && steps.size() >= kMinStepsToSplit) {
    parts = std::clamp<std::size_t>(std::thread::hardware_concurrency(), 1, kMaxAutoThreads);
  } else if (threads > 1) {
    parts = std::min<std::size_t>(static_cast<std::size_t>(threads), steps.size());
  }
  std::vector<std::int64_t> out;
  for (std::size_t i = 1; i < parts; ++i) {
    const std::int64_t t = steps[i * steps.size() / parts].start_ns;
    if (out.empty() || t > out.back()) out.push_back(t);
  }
  return out;
}

EventPass::EventPass(std::span<const store::Step> steps, const AnalysisOptions& options,
                     bool later_part, Interval analysed, Interval stages_window)
    : stages(later_part),
      steps_(steps),
      analysed_(analysed),
      stages_window_(stages_window),
      options_(&options) {}

void EventPass::close_steps(std::int64_t t) {
  if (next_step_ == steps_.size()) return;
  const store::Step* s = &steps_[next_step_];
  if (s->start_ns + s->dur_ns > t) return;
  // Room for this part's steps once the first one closes (a caller that joins the parts may
  // have made room for more).
  if (next_step_ == 0) figures.per_step.reserve(steps_.size());
  do {
    const Interval window{s->start_ns, s->start_ns + s->dur_ns};
    figures.add(*s, sorter_.live_window(window), *options_);
    ++next_step_;
    s = next_step_ < steps_.size() ? &steps_[next_step_] : nullptr;
  } while (s != nullptr && s->start_ns + s->dur_ns <= t);
  // Nothing before the next step's start can matter any more.
  sorter_.drop_before(s != nullptr ? s->start_ns : t);
}

void EventPass::add(const store::Event& e, const TrackTable& tracks) {
  ++events;
  if (clamped_by_event_interval(e.start_ns, e.dur_ns)) ++clamped_events;
  const Interval when = event_interval(e.start_ns, e.dur_ns);
  close_steps(when.start);
  first_ns = std::min(first_ns, when.start);
  last_ns = std::max(last_ns, when.end);
  const int track = tracks.index(e.track);
  const TrackRole role = tracks.role(e.track);
  switch (role) {
    case TrackRole::device:
      sorter_.add(role, e.category, when.start, when.end);
      if (e.step != store::kNull) note_device_step(e.step);
      if (e.category == trace::Category::kernel || e.category == trace::Category::collective) {
        if (when.start >= analysed_.start && when.start < analysed_.end) {
          kernels.add(e.label, when.length());
        } else if (when.start < analysed_.start) {
          ++warmup_kernels;
          warmup_kernel_ns = sat_add(warmup_kernel_ns, when.length());
        }
      }
      break;
    case TrackRole::trainer:
      sorter_.add(role, e.category, when.start, when.end);
      [[fallthrough]];
    case TrackRole::worker:
      if (stage_index(e.category) >= 0) sorter_.add_input_work(when.start, when.end);
      if (stage_index(e.category) >= 0 && when.start >= stages_window_.start &&
          when.start < stages_window_.end) {
        stages.add(track, e.category, when, e.label);
        if (e.category == trace::Category::input_batch) ++input_batches;
      }
      break;
    case TrackRole::ignored:
      break;
  }
}

void EventPass::note_device_step(std::int64_t step) {
  // Queues interleave a few neighbouring steps (a prefetch copy tagged with the step before):
  // looking back a few entries keeps the list about one entry per step.
  constexpr std::size_t kLookBack = 4;
  const auto from =
      device_steps.end() - static_cast<std::ptrdiff_t>(std::min(kLookBack, device_steps.size()));
  if (std::find(from, device_steps.end(), step) == device_steps.end()) device_steps.push_back(step);
}

void EventPass::add_context(const store::Event& e, const TrackTable& tracks) {
  const TrackRole role = tracks.role(e.track);
  if ((role == TrackRole::trainer || role == TrackRole::worker) && stage_index(e.category) >= 0) {
    const Interval when = event_interval(e.start_ns, e.dur_ns);
    close_steps(when.start);
    sorter_.add_input_work(when.start, when.end);
  }
  if (role != TrackRole::trainer && role != TrackRole::device) return;
  const Interval when = event_interval(e.start_ns, e.dur_ns);
  close_steps(when.start);
  sorter_.add(role, e.category, when.start, when.end);
}

void EventPass::finish() {
  close_steps(std::numeric_limits<std::int64_t>::max());
  device_seen = device_seen || sorter_.device_seen();
  sorter_ = IntervalSorter{};
}

void EventPass::merge(EventPass&& later) {
  figures.append(std::move(later.figures));
  kernels.merge(later.kernels);
  stages.merge(std::move(later.stages));
  events += later.events;
  clamped_events += later.clamped_events;
  warmup_kernels += later.warmup_kernels;
  warmup_kernel_ns = sat_add(warmup_kernel_ns, later.warmup_kernel_ns);
  input_batches += later.input_batches;
  device_steps.insert(device_steps.end(), later.device_steps.begin(), later.device_steps.end());
  first_ns = std::min(first_ns, later.first_ns);
  last_ns = std::max(last_ns, later.last_ns);
  device_seen = device_seen || later.device_seen;
}

namespace {

// scan_parts(); joined: the caller merges every part in order (scan_events), so the parts write
// their steps straight into the first part's list, sized for all of them.
std::vector<EventPass> scan_parts_of(const store::Reader& reader, const TrackTable& tracks,
                                     std::span<const store::Step> steps,
                                     std::span<const std::int64_t> cuts,
                                     const AnalysisOptions& options, Interval analysed,
                                     Interval stages, bool joined) {
  const std::size_t parts = cuts.size();
  if (parts == 0) return {};
  const bool from_start = cuts.front() == kFromStart;
  auto lo = [&](std::size_t i) { return i == 0 && from_start ? -kAll : cuts[i]; };
  auto hi = [&](std::size_t i) { return i + 1 == parts ? kAll : cuts[i + 1]; };
  // A part's steps are those starting inside it.
  auto steps_of = [&](std::size_t i) {
    auto starting_before = [&](std::int64_t t) {
      return std::partition_point(steps.begin(), steps.end(),
                                  [&](const store::Step& s) { return s.start_ns < t; });
    };
    const auto first = i == 0 && from_start ? steps.begin() : starting_before(lo(i));
    const auto last = i + 1 == parts ? steps.end() : starting_before(hi(i));
    return std::span<const store::Step>(first, last);
  };

  std::vector<EventPass> passes;
  passes.reserve(parts);
  for (std::size_t i = 0; i < parts; ++i)
    passes.emplace_back(steps_of(i), options, i > 0 || !from_start, analysed, stages);
  // The first part's list takes every part's steps in the end: room for all of them now.
  if (joined && parts > 1) {
    const std::size_t joined_steps = static_cast<std::size_t>(steps.end() - steps_of(0).begin());
    passes[0].figures.per_step.reserve(joined_steps);
    passes[0].figures.listed_gaps_per_step.reserve(joined_steps);
  }
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> threads;
  // A trace whose staged events the reader indexed in memory is read from a copy of that, not
  // indexed again by every part's reader.
  const std::shared_ptr<const store::Snapshot> copy = parts > 1 ? reader.snapshot_copy() : nullptr;
  for (std::size_t i = 1; i < parts; ++i) {
    threads.emplace_back([&, i] {
      try {
        const store::Reader own(reader.path(), copy, reader);
        scan_part(own, tracks, lo(i), hi(i), false, passes[i]);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  }
  try {
    scan_part(reader, tracks, lo(0), hi(0), from_start, passes[0]);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return passes;
}

}  // namespace

std::vector<EventPass> scan_parts(const store::Reader& reader, const TrackTable& tracks,
                                  std::span<const store::Step> steps,
                                  std::span<const std::int64_t> cuts,
                                  const AnalysisOptions& options, Interval analysed,
                                  Interval stages) {
  return scan_parts_of(reader, tracks, steps, cuts, options, analysed, stages, false);
}

EventPass scan_events(const store::Reader& reader, const TrackTable& tracks,
                      std::span<const store::Step> steps, std::span<const std::int64_t> splits,
                      const AnalysisOptions& options, Interval analysed, Interval stages) {
  std::vector<std::int64_t> cuts{kFromStart};
  cuts.insert(cuts.end(), splits.begin(), splits.end());
  std::vector<EventPass> passes =
      scan_parts_of(reader, tracks, steps, cuts, options, analysed, stages, true);
  for (std::size_t i = 1; i < passes.size(); ++i) passes[0].merge(std::move(passes[i]));
  return std::move(passes[0]);
}

std::vector<EventPass> scan_groups(const store::Reader& reader, const TrackTable& tracks,
                                   std::span<const std::span<const store::Step>> group_steps,
                                   std::span<const Interval> analysed,
                                   std::span<const Interval> stages,
                                   const AnalysisOptions& options) {
  const std::size_t groups = group_steps.size();
  if (groups == 0) return {};
  // The parts: cut at times that split every group's steps into parts of about as many steps.
  std::vector<store::Step> starts;  // every group's step starts, for split_points
  for (const auto& steps : group_steps)
    for (const store::Step& st : steps) {
      store::Step start;
      start.start_ns = st.start_ns;
      starts.push_back(start);
    }
  std::sort(starts.begin(), starts.end(),
            [](const store::Step& a, const store::Step& b) { return a.start_ns < b.start_ns; });
  const std::vector<std::int64_t> times = split_points(starts, options.threads);
  const std::size_t parts = times.size() + 1;
  // cut[i * groups + g]: where group g's part i starts (i in [0, parts]). A group's cut is the
  // start of its first step at or after the part's time, so none of its steps straddles a cut;
  // after its last step, the time itself (or that step's end, when later).
  std::vector<std::int64_t> cut((parts + 1) * groups);
  for (std::size_t g = 0; g < groups; ++g) {
    const auto& steps = group_steps[g];
    cut[g] = -kAll;
    cut[parts * groups + g] = kAll;
    for (std::size_t i = 1; i < parts; ++i) {
      const auto at = std::partition_point(steps.begin(), steps.end(), [&](const store::Step& st) {
        return st.start_ns < times[i - 1];
      });
      std::int64_t c = at != steps.end() ? at->start_ns : times[i - 1];
      if (at == steps.end() && !steps.empty())
        c = std::max(c, sat_add(steps.back().start_ns, steps.back().dur_ns));
      cut[i * groups + g] = std::max(c, cut[(i - 1) * groups + g]);
    }
  }
  const auto steps_of = [&](std::size_t i, std::size_t g) {
    const auto& steps = group_steps[g];
    const auto before = [&](std::int64_t t) {
      return std::partition_point(steps.begin(), steps.end(),
                                  [&](const store::Step& st) { return st.start_ns < t; });
    };
    return std::span<const store::Step>(before(cut[i * groups + g]),
                                        before(cut[(i + 1) * groups + g]));
  };
  std::vector<std::vector<EventPass>> passes(parts);
  for (std::size_t i = 0; i < parts; ++i) {
    passes[i].reserve(groups);
    for (std::size_t g = 0; g < groups; ++g)
      passes[i].emplace_back(steps_of(i, g), options, i > 0, analysed[g], stages[g]);
  }
  // Part i reads the starts from its groups' earliest cut to their latest next cut; each event
  // goes to its group's pass (events of ignored tracks to the first group's) when it starts in
  // the group's part, and is context there when it starts before it and reaches into it.
  const auto scan = [&](const store::Reader& r, std::size_t i) {
    const std::int64_t* lo = &cut[i * groups];
    const std::int64_t* hi = &cut[(i + 1) * groups];
    std::vector<EventPass>& own = passes[i];
    r.scan(*std::min_element(lo, lo + groups), *std::max_element(hi, hi + groups), 0,
           [&](const store::Event& e) {
             const bool ignored = tracks.role(e.track) == TrackRole::ignored;
             const auto g =
                 ignored ? std::size_t{0} : static_cast<std::size_t>(tracks.group(e.track));
             if (e.start_ns >= hi[g]) return;
             if (e.start_ns >= lo[g]) {
               own[g].add(e, tracks);
             } else if (i > 0 && event_interval(e.start_ns, e.dur_ns).end > lo[g]) {
               own[g].add_context(e, tracks);
             }
           });
    for (EventPass& p : own) p.finish();
  };
  std::vector<std::exception_ptr> errors(parts);
  std::vector<std::thread> threads;
  const std::shared_ptr<const store::Snapshot> copy = parts > 1 ? reader.snapshot_copy() : nullptr;
  for (std::size_t i = 1; i < parts; ++i)
    threads.emplace_back([&, i] {
      try {
        const store::Reader own(reader.path(), copy, reader);
        scan(own, i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    });
  try {
    scan(reader, 0);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t i = 1; i < parts; ++i)
    for (std::size_t g = 0; g < groups; ++g) passes[0][g].merge(std::move(passes[i][g]));
  return std::move(passes[0]);
}

}  // namespace ts::analysis
