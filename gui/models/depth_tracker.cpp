#include "gui/models/depth_tracker.hpp"

namespace ts::gui {

int DepthTracker::push(std::uint32_t track, std::int64_t start_ns, std::int64_t end_ns) {
  std::vector<std::int64_t>& ends = open_ends_[track];
  while (!ends.empty() && ends.back() <= start_ns) ends.pop_back();
  const int depth = static_cast<int>(ends.size());
  ends.push_back(end_ns);
  return depth;
}

}  // namespace ts::gui
