// What each track of a trace is to the analysis, looked up by track id once per event. Ids are
// small and dense in every trace trainscope writes, so the table is a vector indexed by id; a
// damaged or hostile file with huge ids gets a hash map instead of a giant vector.
//
// A trace of several processes (the ranks of a distributed job, the files of an import) is
// analysed per process: each process that holds steps is a group, numbered 0..groups-1, and a
// track belongs to the group of its process. Tracks of a process without steps are ignored.
#pragma once

#include <cstdint>
#include <span>
#include <unordered_map>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::analysis {

enum class TrackRole : std::uint8_t {
  ignored,  // counters, unknown ids, processes without steps
  trainer,  // a thread holding step events (or named a trainer thread by the trace)
  worker,   // any other thread (input workers, the writer)
  device,   // a device queue
};

class TrackTable {
 public:
  TrackTable() = default;
  // trainer_tracks: the threads that are the trainer — those holding the steps, and those a
  // trace names in its meta `analysis.trainer_tracks` (an import's threads that launch work).
  // group_processes: the process id of each group; empty: one group of every track.
  TrackTable(std::span<const store::Track> tracks, std::span<const std::uint32_t> trainer_tracks,
             std::span<const std::int64_t> group_processes = {});

  TrackRole role(std::uint32_t id) const {
    const int i = index(id);
    return i < 0 ? TrackRole::ignored : roles_[static_cast<std::size_t>(i)];
  }
  // The group of a track that is not ignored (0 in a trace of one group).
  int group(std::uint32_t id) const {
    const int i = index(id);
    return i < 0 ? 0 : groups_[static_cast<std::size_t>(i)];
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
  std::vector<int> groups_;                        // by index
};

}  // namespace ts::analysis
