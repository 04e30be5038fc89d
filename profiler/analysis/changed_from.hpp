// Where a capture still running changed since a reload last looked: the earliest start of the
// events it gained (store::Reader::changed_from_ns), noted at each refresh and taken by the next
// reload's analysis or summary (live_analysis.hpp, gui/models/live_summary.hpp), which go on from
// what they kept only when it lies before that. Thread-safe.
#pragma once

#include <algorithm>
#include <cstdint>
#include <mutex>
#include <utility>

namespace ts::analysis {

class ChangedFrom {
 public:
  // The trace gained events starting at or after `from_ns` (INT64_MIN: anything may have changed).
  void note(std::int64_t from_ns) {
    const std::lock_guard lock(mutex_);
    from_ns_ = std::min(from_ns_, from_ns);
  }
  // The earliest time noted since the last take (INT64_MAX: nothing changed); a reload that fails
  // notes it again.
  std::int64_t take() {
    const std::lock_guard lock(mutex_);
    return std::exchange(from_ns_, INT64_MAX);
  }

 private:
  std::mutex mutex_;
  std::int64_t from_ns_ = INT64_MIN;  // nothing seen yet: everything is new
};

}  // namespace ts::analysis
