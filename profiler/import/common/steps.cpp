#include "profiler/import/common/steps.hpp"

#include <algorithm>
#include <map>

namespace ts::import {

namespace {

void by_start(std::vector<StepCandidate>& v) {
  std::sort(v.begin(), v.end(), [](const StepCandidate& a, const StepCandidate& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;  // the enclosing one first
    return a.event < b.event;
  });
}

// The candidates no earlier candidate contains, per thread, in time order.
std::vector<StepCandidate> outermost(std::vector<StepCandidate> v) {
  by_start(v);
  std::map<std::uint32_t, std::int64_t> open_end;  // per thread: the end of the last outermost
  std::vector<StepCandidate> out;
  for (const StepCandidate& c : v) {
    auto [it, fresh] = open_end.try_emplace(c.thread, c.end);
    if (!fresh && c.start < it->second) continue;  // inside the previous outermost one
    it->second = c.end;
    out.push_back(c);
  }
  return out;
}

}  // namespace

StepIndex::StepIndex(std::vector<StepSpan> spans) {
  std::sort(spans.begin(), spans.end(),
            [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });
  starts_.reserve(spans.size());  // exact: a trace can hold millions of steps
  ends_.reserve(spans.size());
  for (const StepSpan& s : spans) {
    starts_.push_back(s.start);
    ends_.push_back(s.end);
  }
  // Numbered one after another (the usual case): no list of numbers.
  if (!spans.empty()) first_step_ = spans.front().step;
  for (std::size_t i = 0; i < spans.size(); ++i)
    if (spans[i].step != first_step_ + static_cast<std::int64_t>(i)) {
      steps_.reserve(spans.size());
      for (const StepSpan& s : spans) steps_.push_back(s.step);
      break;
    }
}

std::int64_t StepIndex::step_at(std::int64_t t) const {
  const auto it = std::upper_bound(starts_.begin(), starts_.end(), t);
  if (it == starts_.begin()) return kNone;
  const auto i = static_cast<std::size_t>(it - starts_.begin() - 1);
  if (t >= ends_[i]) return kNone;
  return steps_.empty() ? first_step_ + static_cast<std::int64_t>(i) : steps_[i];
}

std::vector<StepSpan> steps_from_marker(std::vector<StepCandidate> matches) {
  std::vector<StepSpan> out;
  std::int64_t n = 0;
  for (const StepCandidate& c : outermost(std::move(matches)))
    out.push_back({c.start, c.end, ++n, c.thread, c.event});
  return out;
}

std::vector<StepSpan> steps_from_dataloader(std::vector<StepCandidate> calls,
                                            std::int64_t thread_end) {
  by_start(calls);
  std::vector<StepSpan> out;
  for (std::size_t k = 0; k < calls.size(); ++k) {
    const std::int64_t start = calls[k].start;
    const std::int64_t end =
        k + 1 < calls.size() ? calls[k + 1].start : std::max(thread_end, calls[k].end);
    if (end <= start) continue;  // two calls on one tick: the later one starts the step
    out.push_back({start, end, static_cast<std::int64_t>(out.size()) + 1, calls[k].thread, -1});
  }
  return out;
}

std::vector<StepSpan> steps_from_repeating(std::vector<StepCandidate> annotations,
                                           std::uint32_t& name, int min_repeats) {
  const std::vector<StepCandidate> top = outermost(std::move(annotations));
  std::map<std::uint32_t, std::pair<int, std::size_t>> count;  // name -> (count, first index)
  for (std::size_t i = 0; i < top.size(); ++i) {
    auto [it, fresh] = count.try_emplace(top[i].name, 0, i);
    ++it->second.first;
  }
  int best = 0;
  std::size_t best_first = 0;
  for (const auto& [n, c] : count)
    if (c.first > best || (c.first == best && c.second < best_first)) {
      best = c.first;
      best_first = c.second;
      name = n;
    }
  std::vector<StepSpan> out;
  if (best < min_repeats) return out;
  for (const StepCandidate& c : top)
    if (c.name == name)
      out.push_back({c.start, c.end, static_cast<std::int64_t>(out.size()) + 1, c.thread, c.event});
  return out;
}

}  // namespace ts::import
