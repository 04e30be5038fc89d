#include "profiler/analysis/steps.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <tuple>

#include "profiler/analysis/intervals.hpp"

namespace ts::analysis {

std::vector<store::Step> clean_steps(std::span<const store::Step> in) {
  std::vector<store::Step> steps(in.begin(), in.end());
  clean_steps_in_place(steps);
  return steps;
}

void clean_steps_in_place(std::vector<store::Step>& steps) {
  for (store::Step& s : steps) {
    const Interval i = event_interval(s.start_ns, s.dur_ns);
    s.start_ns = i.start;
    s.dur_ns = i.length();
  }
  std::sort(steps.begin(), steps.end(), [](const store::Step& a, const store::Step& b) {
    return a.start_ns != b.start_ns ? a.start_ns < b.start_ns : a.step < b.step;
  });
  std::int64_t end = std::numeric_limits<std::int64_t>::min();
  for (store::Step& s : steps) {
    if (s.start_ns < end) {
      const std::int64_t s_end = s.start_ns + s.dur_ns;
      s.start_ns = end;
      s.dur_ns = std::max<std::int64_t>(0, s_end - end);
    }
    end = std::max(end, s.start_ns + s.dur_ns);
  }
}

bool already_clean(std::span<const store::Step> steps) {
  CleanStepsCheck check;
  for (const store::Step& s : steps) {
    check.add(s);
    if (!check.clean()) return false;
  }
  return true;
}

void CleanStepsCheck::add(const store::Step& s) {
  const Interval when = event_interval(s.start_ns, s.dur_ns);
  if (when.start != s.start_ns || when.length() != s.dur_ns || s.start_ns < end_ ||
      (any_ && s.start_ns <= last_start_))
    clean_ = false;
  end_ = when.end;
  last_start_ = s.start_ns;
  any_ = true;
}

std::vector<std::uint32_t> step_tracks(std::span<const store::Step> steps) {
  std::vector<std::uint32_t> tracks;
  for (const store::Step& s : steps)
    if (std::find(tracks.begin(), tracks.end(), s.track) == tracks.end()) tracks.push_back(s.track);
  return tracks;
}

std::optional<store::Step> whole_window_step(const store::Reader& reader) {
  if (reader.step_count() > 0 || !reader.has_events()) return std::nullopt;
  const store::TimeRange range = reader.time_range();
  std::int64_t first = std::numeric_limits<std::int64_t>::max();
  std::int64_t last = std::numeric_limits<std::int64_t>::min();
  std::map<std::uint32_t, std::int64_t> events_per_track;
  reader.scan(range.start_ns, sat_add(range.end_ns, 1), 0, [&](const store::Event& e) {
    const Interval i = event_interval(e.start_ns, e.dur_ns);
    first = std::min(first, i.start);
    last = std::max(last, i.end);
    ++events_per_track[e.track];
  });
  if (last <= first) return std::nullopt;
  // The trainer: the host thread with the most events (the first such on a tie); a trace of
  // device queues only takes its busiest track.
  std::optional<std::uint32_t> thread, any;
  std::int64_t thread_events = 0, any_events = 0;
  for (const auto& [track, n] : events_per_track) {
    const store::Track* t = reader.track(track);
    if (t != nullptr && t->kind == trace::TrackKind::thread && n > thread_events) {
      thread = track;
      thread_events = n;
    }
    if (n > any_events) {
      any = track;
      any_events = n;
    }
  }
  if (!any) return std::nullopt;
  return store::Step{0, first, last - first, thread.value_or(*any)};
}

namespace {

std::string numbers(std::int64_t first, std::int64_t last) {
  return first == last ? std::to_string(first) : std::to_string(first) + "-" + std::to_string(last);
}

std::string asked(const StepRangeFit& f) {
  return "--steps " + std::to_string(f.asked_first) + "-" + std::to_string(f.asked_last);
}

std::string held(const StepRangeFit& f, const std::string& file) {
  if (f.held == 0) return file + " holds no step";
  return file + " holds step" + (f.held_first == f.held_last ? " " : "s ") +
         numbers(f.held_first, f.held_last);
}

}  // namespace

StepRangeFit fit_step_range(const store::Reader& reader,
                            std::pair<std::int64_t, std::int64_t> range) {
  StepRangeFit f;
  std::tie(f.asked_first, f.asked_last) = range;
  reader.each_numbered_step(range.first, range.second, [&](const store::Step& s) {
    f.taken_first = f.taken == 0 ? s.step : std::min(f.taken_first, s.step);
    f.taken_last = f.taken == 0 ? s.step : std::max(f.taken_last, s.step);
    ++f.taken;
    return true;
  });
  if (f.whole()) return f;
  reader.each_step([&](const store::Step& s) {
    f.held_first = f.held == 0 ? s.step : std::min(f.held_first, s.step);
    f.held_last = f.held == 0 ? s.step : std::max(f.held_last, s.step);
    ++f.held;
  });
  return f;
}

std::string step_range_error(const StepRangeFit& f, const std::string& file) {
  if (f.taken > 0) return "";
  return asked(f) + ": " + held(f, file) +
         (f.held > 0 ? ", none in that range"
                     : " (without --steps its whole profiled window is analysed as one step)");
}

std::string step_range_note(const StepRangeFit& f, const std::string& file) {
  if (f.taken == 0 || f.whole()) return "";
  return asked(f) + ": " + held(f, file) + "; analysing step" +
         (f.taken_first == f.taken_last ? " " : "s ") + numbers(f.taken_first, f.taken_last);
}

}  // namespace ts::analysis
