// The steps of a trace as analyse() takes them: grouped by the process that holds them (the ranks
// of a distributed job are analysed each on its own), cleaned per group, and the track roles that
// go with those groups.
#pragma once

#include <cstdint>
#include <vector>

#include "profiler/analysis/tracks.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

// The processes that hold steps, each with its steps (cleaned per process: ranks run at the
// same time, so their steps overlap), ordered by rank, then process id. One group with every
// step when the steps' tracks name no process (every capture of one process).
struct StepGroup {
  std::int64_t process = store::kNull;
  std::vector<store::Step> steps;  // sorted and disjoint
};

// `raw`: the trace's steps (Reader::steps()), taken over: the steps of a trace of one process
// become its group's without a copy.
std::vector<StepGroup> step_groups(const store::Reader& reader, std::vector<store::Step> raw);

// The trainer's threads: `with_steps`, the tracks holding steps (step_tracks()), and those the
// trace names besides (meta analysis.trainer_tracks, "3,5,9": an import's threads that launch
// device work).
std::vector<std::uint32_t> trainer_tracks(const store::Reader& reader,
                                          std::vector<std::uint32_t> with_steps);

// The track roles of an analysis of `groups`: one group of every track when there is at most one
// (a trace whose processes are named keeps to the one holding the steps), else one per group.
TrackTable group_track_table(const store::Reader& reader, const std::vector<StepGroup>& groups,
                             const std::vector<std::uint32_t>& trainers);

}  // namespace ts::analysis
