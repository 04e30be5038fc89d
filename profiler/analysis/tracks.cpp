#include "profiler/analysis/tracks.hpp"

#include <algorithm>

namespace ts::analysis {

namespace {

// Ids up to this many get the dense table (4 MiB at most).
constexpr std::uint32_t kDenseIds = 1u << 20;

TrackRole role_of(const store::Track& t, std::span<const std::uint32_t> step_tracks) {
  switch (t.kind) {
    case trace::TrackKind::device_queue:
      return TrackRole::device;
    case trace::TrackKind::thread:
      return std::find(step_tracks.begin(), step_tracks.end(), t.id) != step_tracks.end()
                 ? TrackRole::trainer
                 : TrackRole::worker;
    case trace::TrackKind::counter:
      break;
  }
  return TrackRole::ignored;
}

}  // namespace

TrackTable::TrackTable(std::span<const store::Track> tracks,
                       std::span<const std::uint32_t> step_tracks) {
  std::uint32_t max_id = 0;
  for (const store::Track& t : tracks) max_id = std::max(max_id, t.id);
  const bool dense = max_id < kDenseIds;
  if (dense) dense_.assign(tracks.empty() ? 0 : std::size_t{max_id} + 1, -1);
  for (const store::Track& t : tracks) {
    if (index(t.id) >= 0) continue;  // a duplicate id: the first row wins
    const int i = static_cast<int>(roles_.size());
    roles_.push_back(role_of(t, step_tracks));
    if (dense) {
      dense_[t.id] = i;
    } else {
      sparse_.emplace(t.id, i);
    }
  }
}

}  // namespace ts::analysis
