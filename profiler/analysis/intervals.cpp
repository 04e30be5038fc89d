#include "profiler/analysis/intervals.hpp"

#include <algorithm>

namespace ts::analysis {

namespace {

// Appends [start, end) to a set being built in start order, merging with the last interval when
// they overlap or touch.
void append(IntervalSet& out, std::int64_t start, std::int64_t end) {
  if (end <= start) return;
  if (!out.empty() && start <= out.back().end) {
    out.back().end = std::max(out.back().end, end);
    return;
  }
  out.push_back({start, end});
}

}  // namespace

void normalise(IntervalSet& v) {
  std::erase_if(v, [](const Interval& i) { return i.end <= i.start; });
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::size_t n = 0;
  for (const Interval& i : v) {
    if (n > 0 && i.start <= v[n - 1].end) {
      v[n - 1].end = std::max(v[n - 1].end, i.end);
    } else {
      v[n++] = i;
    }
  }
  v.resize(n);
}

bool is_normal(std::span<const Interval> v) {
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (v[i].end <= v[i].start) return false;
    if (i > 0 && v[i].start <= v[i - 1].end) return false;
  }
  return true;
}

std::int64_t total_length(std::span<const Interval> set) {
  std::int64_t sum = 0;
  for (const Interval& i : set) sum += i.length();
  return sum;
}

void unite(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out) {
  out.clear();
  std::size_t i = 0, j = 0;
  while (i < a.size() || j < b.size()) {
    const bool take_a = j == b.size() || (i < a.size() && a[i].start <= b[j].start);
    const Interval& next = take_a ? a[i++] : b[j++];
    append(out, next.start, next.end);
  }
}

void intersect(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out) {
  out.clear();
  std::size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    const std::int64_t start = std::max(a[i].start, b[j].start);
    const std::int64_t end = std::min(a[i].end, b[j].end);
    // Both inputs are sets, so the pieces come out in order and never touch.
    if (start < end) out.push_back({start, end});
    if (a[i].end < b[j].end) {
      ++i;
    } else {
      ++j;
    }
  }
}

void subtract(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out) {
  out.clear();
  std::size_t j = 0;
  for (const Interval& x : a) {
    std::int64_t cursor = x.start;
    while (j < b.size() && b[j].end <= cursor) ++j;
    // Walk the holes b punches into x; b[k] may reach past x and punch the next a too, so j
    // only moves past intervals that end inside x.
    std::size_t k = j;
    while (k < b.size() && b[k].start < x.end) {
      if (b[k].start > cursor) out.push_back({cursor, b[k].start});
      cursor = std::max(cursor, b[k].end);
      if (b[k].end > x.end) break;
      ++k;
    }
    j = k;
    if (cursor < x.end) out.push_back({cursor, x.end});
  }
}

std::span<const Interval> overlapping(std::span<const Interval> set, Interval window) {
  // First interval ending after the window starts; sets are sorted by end too.
  auto first = std::partition_point(set.begin(), set.end(),
                                    [&](const Interval& i) { return i.end <= window.start; });
  auto last = std::partition_point(first, set.end(),
                                   [&](const Interval& i) { return i.start < window.end; });
  return {first, last};
}

void clip(std::span<const Interval> set, Interval window, IntervalSet& out) {
  out.clear();
  for (const Interval& i : overlapping(set, window)) {
    const std::int64_t start = std::max(i.start, window.start);
    const std::int64_t end = std::min(i.end, window.end);
    if (start < end) out.push_back({start, end});
  }
}

void gaps(std::span<const Interval> set, Interval window, IntervalSet& out) {
  out.clear();
  std::int64_t cursor = window.start;
  for (const Interval& i : overlapping(set, window)) {
    if (i.start > cursor) out.push_back({cursor, std::min(i.start, window.end)});
    cursor = std::max(cursor, i.end);
  }
  if (cursor < window.end) out.push_back({cursor, window.end});
}

std::int64_t overlap_length(std::span<const Interval> set, Interval window) {
  std::int64_t sum = 0;
  for (const Interval& i : overlapping(set, window))
    sum += std::max<std::int64_t>(0, std::min(i.end, window.end) - std::max(i.start, window.start));
  return sum;
}

std::span<const Interval> SetBuilder::live() {
  if (!sorted_) {
    set_.erase(set_.begin(), set_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
    normalise(set_);
    sorted_ = true;
  }
  return std::span<const Interval>(set_).subspan(head_);
}

void SetBuilder::drop_before(std::int64_t t) {
  live();
  while (head_ < set_.size() && set_[head_].end <= t) ++head_;
  // Compact once the dropped prefix outweighs what is left: O(1) amortised per interval.
  if (head_ > 1024 && head_ * 2 > set_.size()) {
    set_.erase(set_.begin(), set_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
}

IntervalSet SetBuilder::finish() {
  live();
  IntervalSet out(set_.begin() + static_cast<std::ptrdiff_t>(head_), set_.end());
  set_.clear();
  head_ = 0;
  return out;
}

}  // namespace ts::analysis
