#include "gui/models/row_merger.hpp"

#include <algorithm>

namespace ts::gui {

void RowMerger::add(const Zone& z, std::vector<Zone>& out) {
  const std::int64_t dur = z.end_ns - z.start_ns;
  if (open_ && !wide(z) &&
      static_cast<double>(z.start_ns) < static_cast<double>(run_.end_ns) + min_ns_ &&
      static_cast<double>(std::max(run_.end_ns, z.end_ns) - run_.start_ns) <= max_run_ns_) {
    run_.end_ns = std::max(run_.end_ns, z.end_ns);
    run_.count += z.count;
    if (dur > longest_) {
      longest_ = dur;
      run_.label = z.label;
    }
    return;
  }
  flush(out);
  if (wide(z)) {
    out.push_back(z);
    return;
  }
  open_ = true;
  run_ = z;
  longest_ = dur;
}

void RowMerger::flush(std::vector<Zone>& out) {
  if (open_) out.push_back(run_);
  open_ = false;
}

}  // namespace ts::gui
