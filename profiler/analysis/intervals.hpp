// Interval algebra over half-open time intervals [start, end) in nanoseconds: the building
// block of the step breakdown and the device idle gaps. A "set" here is a sorted, disjoint
// list: starts strictly increasing, every interval non-empty, and no two touching (a.end <
// b.start), so that equal sets have equal lists and total_length() never double counts.
// Operations write into an output vector (cleared first) so that callers looping over many
// steps reuse its capacity instead of allocating per step.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

namespace ts::analysis {

struct Interval {
  std::int64_t start = 0;
  std::int64_t end = 0;  // exclusive
  std::int64_t length() const { return end > start ? end - start : 0; }
  bool operator==(const Interval&) const = default;
};

using IntervalSet = std::vector<Interval>;

// Times from a trace file are clamped to ±kTimeLimit (2^61 ns, 73 years: Unix-epoch times of
// imported traces, ~1.8·10^18 ns in 2026, fit until 2043) and durations to [0, kTimeLimit]
// before any arithmetic, so that a hostile file cannot overflow an end (at most 2^62), a length
// or a sum of lengths of disjoint intervals (all stay below 3·2^61 < 2^63).
inline constexpr std::int64_t kTimeLimit = std::int64_t{1} << 61;
inline Interval event_interval(std::int64_t start_ns, std::int64_t dur_ns) {
  const std::int64_t s = start_ns < -kTimeLimit  ? -kTimeLimit
                         : start_ns > kTimeLimit ? kTimeLimit
                                                 : start_ns;
  const std::int64_t d = dur_ns < 0 ? 0 : dur_ns > kTimeLimit ? kTimeLimit : dur_ns;
  return {s, s + d};
}
// True when event_interval() changes these times: only a damaged or hostile file has such
// events, and the report counts them (a warning) since its figures use the clamped times.
inline bool clamped_by_event_interval(std::int64_t start_ns, std::int64_t dur_ns) {
  return start_ns < -kTimeLimit || start_ns > kTimeLimit || dur_ns < 0 || dur_ns > kTimeLimit;
}
// a + b for non-negative figures, stopping at INT64_MAX instead of overflowing (sums over
// events that may overlap, such as kernel time, are not bounded by the trace's span).
inline std::int64_t sat_add(std::int64_t a, std::int64_t b) {
  std::int64_t out;
  return __builtin_add_overflow(a, b, &out) ? (b > 0 ? INT64_MAX : INT64_MIN) : out;
}

// Turns any list (unsorted, overlapping, touching, empty intervals) into a set.
void normalise(IntervalSet& v);
// True when `v` already is a set as described above.
bool is_normal(std::span<const Interval> v);

// Sum of lengths. For a set this is the measure of the union.
std::int64_t total_length(std::span<const Interval> set);

// out = a ∪ b, a ∩ b, a \ b. Inputs must be sets; the output is a set. `out` must not alias
// an input.
void unite(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out);
void intersect(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out);
void subtract(std::span<const Interval> a, std::span<const Interval> b, IntervalSet& out);

// out = set ∩ window (the parts of `set` inside the window).
void clip(std::span<const Interval> set, Interval window, IntervalSet& out);
// out = window \ set: the gaps the set leaves inside the window, in time order.
void gaps(std::span<const Interval> set, Interval window, IntervalSet& out);
// |set ∩ window| without building it.
std::int64_t overlap_length(std::span<const Interval> set, Interval window);
// The sub-span of a set holding every interval that overlaps the window (binary search):
// what clip() and overlap_length() need to look at.
std::span<const Interval> overlapping(std::span<const Interval> set, Interval window);

// Builds a set from intervals added one by one. Adding them in non-decreasing start order (as a
// time-ordered scan delivers them) merges in O(1) each; any other order is still accepted and
// sorted when the set is read. A streaming reader reads the set as it grows (live()) and drops
// what lies behind it (drop_before()), so memory stays bounded by the stretch of time between.
class SetBuilder {
 public:
  void add(std::int64_t start, std::int64_t end) {
    if (end <= start) return;
    if (set_.size() > head_) {  // merge only into a live interval: a dropped one is forgotten
      Interval& last = set_.back();
      if (start < last.start) {
        sorted_ = false;
      } else if (start <= last.end) {
        if (end > last.end) last.end = end;
        return;
      }
    }
    set_.push_back({start, end});
  }
  // The set built so far, less what drop_before() dropped. Valid until the next call.
  std::span<const Interval> live();
  // Forgets the intervals that end at or before t.
  void drop_before(std::int64_t t);
  // The set (less what was dropped); the builder is empty afterwards.
  IntervalSet finish();

 private:
  IntervalSet set_;
  std::size_t head_ = 0;  // set_[0, head_) was dropped
  bool sorted_ = true;
};

}  // namespace ts::analysis
