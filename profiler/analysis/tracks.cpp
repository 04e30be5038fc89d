#include "profiler/analysis/tracks.hpp"

#include <algorithm>

namespace ts::analysis {

namespace {

// Ids up to this many get the dense table (4 MiB at most).
constexpr std::uint32_t kDenseIds = 1u << 20;

TrackRole role_of(const store::Track& t, std::span<const std::uint32_t> trainer_tracks) {
  switch (t.kind) {
    case trace::TrackKind::device_queue:
      return TrackRole::device;
    case trace::TrackKind::thread:
      return std::find(trainer_tracks.begin(), trainer_tracks.end(), t.id) != trainer_tracks.end()
                 ? TrackRole::trainer
                 : TrackRole::worker;
    case trace::TrackKind::counter:
      break;
  }
  return TrackRole::ignored;
}

}  // namespace

TrackTable::TrackTable(std::span<const store::Track> tracks,
                       std::span<const std::uint32_t> trainer_tracks,
                       std::span<const std::int64_t> group_processes) {
  std::uint32_t max_id = 0;
  for (const store::Track& t : tracks) max_id = std::max(max_id, t.id);
  const bool dense = max_id < kDenseIds;
  if (dense) dense_.assign(tracks.empty() ? 0 : std::size_t{max_id} + 1, -1);
  for (const store::Track& t : tracks) {
    if (index(t.id) >= 0) continue;  // a duplicate id: the first row wins
    int group = 0;
    TrackRole role = role_of(t, trainer_tracks);
    if (!group_processes.empty()) {
      const auto it = std::find(group_processes.begin(), group_processes.end(), t.process);
      if (it == group_processes.end()) {
        role = TrackRole::ignored;
      } else {
        group = static_cast<int>(it - group_processes.begin());
      }
    }
    const int i = static_cast<int>(roles_.size());
    roles_.push_back(role);
    groups_.push_back(group);
    if (dense) {
      dense_[t.id] = i;
    } else {
      sparse_.emplace(t.id, i);
    }
  }
}

}  // namespace ts::analysis
