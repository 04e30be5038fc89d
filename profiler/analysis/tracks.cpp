#include "profiler/analysis/tracks.hpp"

#include <algorithm>
#include <unordered_map>
#include <vector>

namespace ts::analysis {

namespace {

// Ids up to this many get the dense table (4 MiB at most).
constexpr std::uint32_t kDenseIds = 1u << 20;

// trainers: ascending (a trace may name tens of thousands of trainer threads).
TrackRole role_of(const store::Track& t, std::span<const std::uint32_t> trainers) {
  switch (t.kind) {
    case trace::TrackKind::device_queue:
      return TrackRole::device;
    case trace::TrackKind::thread:
      return std::binary_search(trainers.begin(), trainers.end(), t.id) ? TrackRole::trainer
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
  std::vector<std::uint32_t> trainers(trainer_tracks.begin(), trainer_tracks.end());
  std::sort(trainers.begin(), trainers.end());
  std::unordered_map<std::int64_t, int> group_of;  // the first group of each process
  for (std::size_t g = group_processes.size(); g-- > 0;)
    group_of[group_processes[g]] = static_cast<int>(g);
  for (const store::Track& t : tracks) {
    if (index(t.id) >= 0) continue;  // a duplicate id: the first row wins
    int group = 0;
    TrackRole role = role_of(t, trainers);
    if (!group_processes.empty()) {
      const auto it = group_of.find(t.process);
      if (it == group_of.end()) {
        role = TrackRole::ignored;
      } else {
        group = it->second;
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
