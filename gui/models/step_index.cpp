#include "gui/models/step_index.hpp"

#include <algorithm>

namespace ts::gui {

namespace {

bool starts_before(const store::Step& s, std::int64_t t) {
  return s.start_ns < t;
}

}  // namespace

StepIndex::StepIndex(const store::Reader& reader, StepConsumer& also) : reader_(&reader) {
  const auto add = [&](const store::Step& s) {
    if (size_ % kSampleEvery == 0) samples_.push_back(s);
    const std::int64_t end = store::sat_add(s.start_ns, s.dur_ns);
    extent_ = extent_
                  ? std::pair{std::min(extent_->first, s.start_ns), std::max(extent_->second, end)}
                  : std::pair{s.start_ns, end};
    ++size_;
    also.add(s);
  };
  if (reader.each_step(add)) {
    samples_.shrink_to_fit();
    return;
  }
  // The file returned a step out of order: hold them all, sorted, and start again.
  size_ = 0;
  samples_.clear();
  extent_.reset();
  held_ = reader.steps();
  also.restart(held_.size());
  holds_ = true;
  for (const store::Step& s : held_) add(s);
}

std::size_t StepIndex::starting_before(std::int64_t t) const {
  if (holds_)
    return static_cast<std::size_t>(
        std::partition_point(held_.begin(), held_.end(),
                             [&](const store::Step& s) { return starts_before(s, t); }) -
        held_.begin());
  const auto after = std::partition_point(
      samples_.begin(), samples_.end(), [&](const store::Step& s) { return starts_before(s, t); });
  if (after == samples_.begin()) return 0;
  const auto j = static_cast<std::size_t>(after - samples_.begin()) - 1;
  // At most kSampleEvery rows: the next sample starts at or after t.
  const auto rest = static_cast<std::size_t>(std::max<std::int64_t>(
      1, reader_->steps_from_until(samples_[j], t)));  // the sample itself starts before t
  return std::min(size_, j * kSampleEvery + rest);
}

std::size_t StepIndex::starting_in(std::int64_t t0, std::int64_t t1) const {
  return t0 < t1 ? starting_before(t1) - std::min(starting_before(t1), starting_before(t0)) : 0;
}

store::Step StepIndex::at(std::size_t index) const {
  if (holds_) return held_.at(index);
  const store::Step& sample = samples_.at(index / kSampleEvery);
  const std::vector<store::Step> run =
      reader_->steps_from(sample, static_cast<std::int64_t>(index % kSampleEvery) + 1);
  return run.empty() ? sample : run.back();
}

std::vector<store::Step> StepIndex::from_before(std::int64_t t0, std::int64_t t1) const {
  if (holds_) {
    auto first = std::partition_point(held_.begin(), held_.end(),
                                      [&](const store::Step& s) { return starts_before(s, t0); });
    if (first != held_.begin()) --first;
    const auto last = std::partition_point(
        first, held_.end(), [&](const store::Step& s) { return starts_before(s, t1); });
    return {first, last};
  }
  std::vector<store::Step> out;
  if (const auto before = reader_->last_step_before(t0)) out.push_back(*before);
  const std::vector<store::Step> in = reader_->steps_starting_in(t0, t1);
  out.insert(out.end(), in.begin(), in.end());
  return out;
}

void StepIndex::each_numbered(std::int64_t first, std::int64_t last,
                              const std::function<void(const store::Step&)>& fn) const {
  if (holds_) {
    for (const store::Step& s : held_)
      if (s.step >= first && s.step <= last) fn(s);
    return;
  }
  reader_->each_numbered_step(first, last, [&](const store::Step& s) {
    fn(s);
    return true;
  });
}

std::optional<store::Step> StepIndex::numbered(std::int64_t number) const {
  if (holds_) {
    const auto it = std::find_if(held_.begin(), held_.end(),
                                 [&](const store::Step& s) { return s.step == number; });
    return it == held_.end() ? std::nullopt : std::optional(*it);
  }
  std::optional<store::Step> found;
  reader_->each_numbered_step(number, number, [&](const store::Step& s) {
    found = s;
    return false;
  });
  return found;
}

StepIndex::Around StepIndex::around(std::optional<std::int64_t> number, std::size_t before,
                                    std::size_t after) const {
  if (size_ == 0) return {};
  std::size_t i = size_ / 2;
  if (const auto s = number ? numbered(*number) : std::nullopt) {
    // Its index: the first step starting when it does (steps of one trainer never share a start).
    i = std::min(size_ - 1, starting_before(s->start_ns));
  }
  const std::size_t first = i - std::min(i, before);
  const std::size_t last = std::min(size_ - 1, i + after);
  Around out;
  out.centre = i - first;
  if (holds_) {
    out.steps.assign(held_.begin() + static_cast<std::ptrdiff_t>(first),
                     held_.begin() + static_cast<std::ptrdiff_t>(last) + 1);
  } else {
    out.steps = reader_->steps_from(at(first), static_cast<std::int64_t>(last - first + 1));
  }
  return out;
}

}  // namespace ts::gui
