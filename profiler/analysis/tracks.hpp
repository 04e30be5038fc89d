// What each track of a trace is to the analysis, looked up by track id once per event. Ids are
// small and dense in every trace trainscope writes, so the table is a vector indexed by id; a
// damaged or hostile file with huge ids gets a hash map instead of a giant vector.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::analysis {

enum class TrackRole : std::uint8_t {
  ignored,  // counters, unknown ids
  trainer,  // a thread holding step events
  worker,   // any other thread (input workers, the writer)
  device,   // a device queue
};

class TrackTable {
 public:
  TrackTable() = default;
  // step_tracks: the tracks the steps were recorded on (the trainer threads).
  TrackTable(std::span<const store::Track> tracks, std::span<const std::uint32_t> step_tracks);

  TrackRole role(std::uint32_t id) const {
    const int i = index(id);
    return i < 0 ? TrackRole::ignored : roles_[static_cast<std::size_t>(i)];
  }
  // A dense index 0..size()-1 of a known track, -1 for an unknown id.
  int index(std::uint32_t id) const {
    if (id < dense_.size()) return dense_[id];
    if (sparse_.empty()) return -1;
    const auto it = sparse_.find(id);
    return it == sparse_.end() ? -1 : it->second;
  }
  std::size_t size() const { return roles_.size(); }

 private:
  std::vector<int> dense_;                         // by id, when ids are small
  std::unordered_map<std::uint32_t, int> sparse_;  // otherwise
  std::vector<TrackRole> roles_;                   // by index
};

}  // namespace ts::analysis
