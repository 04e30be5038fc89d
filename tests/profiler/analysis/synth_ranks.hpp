// A distributed job made of synthetic traces (profiler/synth), one per rank, merged into one trace
// as `trainscope merge` merges ranks: rank r is written with seed r + 1 and the input-bound share
// fractions[r], so the ranks differ.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/store/merge.hpp"
#include "profiler/synth/synth.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::test {

inline std::string merged_synth_ranks(const TempDir& dir, std::int64_t events_per_rank,
                                      const std::vector<double>& fractions) {
  std::vector<store::MergePart> parts;
  for (std::size_t rank = 0; rank < fractions.size(); ++rank) {
    synth::SynthOptions options;
    options.target_events = events_per_rank;
    options.seed = rank + 1;
    options.input_bound_fraction = fractions[rank];
    const std::string part = dir.file("rank" + std::to_string(rank) + ".db");
    synth::write_synthetic_trace(part, options);
    store::MergePart p;
    p.path = part;
    p.name = "rank " + std::to_string(rank);
    p.rank = static_cast<std::int64_t>(rank);
    parts.push_back(p);
  }
  const std::string job = dir.file("job.db");
  store::merge_traces(parts, job);
  return job;
}

}  // namespace ts::test
