// Streaming form of the level-of-detail merge (lod.hpp) at one fixed resolution: zones of a row
// arrive in start order and leave as runs. The trace summary merges each row this way while it
// scans the file, so the whole trace at full zoom-out costs a bounded number of zones per row.
// Unlike drawing, a run also ends when it grows wider than max_run_ns: a dense row must not
// become one zone standing for the whole trace, which closer zoom levels could not take apart
// (nor estimate what loading part of it would cost).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "gui/models/zone.hpp"

namespace ts::gui {

class RowMerger {
 public:
  explicit RowMerger(double min_ns = 1, double max_run_ns = 4)
      : min_ns_(min_ns), max_run_ns_(std::max(min_ns, max_run_ns)) {}

  // Takes the next zone of the row; appends zones that are complete to `out`.
  void add(const Zone& z, std::vector<Zone>& out);
  // Appends the open run, if any.
  void flush(std::vector<Zone>& out);

 private:
  bool wide(const Zone& z) const { return static_cast<double>(z.end_ns - z.start_ns) >= min_ns_; }

  double min_ns_;
  double max_run_ns_;
  bool open_ = false;
  Zone run_;
  std::int64_t longest_ = 0;  // the longest zone's duration in the open run
};

}  // namespace ts::gui
