// Merges the traces of several processes (the ranks of a distributed job) into one trace with
// one `process` row per part and every track of a part pointing at its process. Strings, labels
// and tracks are renumbered; events keep their steps, bytes and arguments; each part's times
// may be moved onto the merged clock (an offset and a drift measured between hosts).
//
// The merge streams: every part is read in key order (start_ns, track) through its own cursor
// and a k-way merge appends the rows to the output in key order, a batch at a time, so memory
// grows with the number of parts (one cursor, one page cache of a few hundred KiB each) and
// the number of distinct strings and tracks, never with the number of events.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "profiler/store/rows.hpp"

namespace ts::store {

struct MergePart {
  std::string path;
  std::string name;  // the process row's name
  std::int64_t rank = kNull;
  std::int64_t pid = kNull;
  std::string host;
  // The part's clock: a time t of the part is t - (offset_ns + drift · (t - ref_ns)) on the
  // merged clock (offset_ns: the part's clock minus the merged clock at ref_ns, a time of the
  // part's clock).
  std::int64_t offset_ns = 0;
  double drift = 0;
  std::int64_t ref_ns = 0;
  // The prefix of this part's meta values that differ from the first part's: "rank.1." keeps
  // rank 1's pipeline.preset as rank.1.pipeline.preset. Empty: "part.<index>.".
  std::string meta_prefix;
};

struct MergeResult {
  std::uint64_t events = 0;
  std::uint64_t counter_samples = 0;
  std::uint32_t tracks = 0;
};

struct MergeMeta {
  std::vector<std::pair<std::string, std::string>> extra;  // written last: these win
  // Keys not copied from the parts: a key equal to an entry, or starting with an entry that
  // ends in '.' (the parts' own bookkeeping that `extra` restates for the merged trace).
  std::vector<std::string> drop;
};

// Writes `out` from `parts` (at least one), replacing a trace there (a file that is not a trace
// is refused). Meta: the first part's keys as they are, every other part's keys whose value
// differs from the first part's under its meta_prefix, then meta.extra (which wins);
// clock.origin_ns is the earliest part's; dropped_events is summed and
// dropped_events.track.<id> renumbered.
// Each part must be a finished trace or one whose staged events were indexed (recover()): a part
// with staged events is refused by name. Writes `out` under a temporary name and renames it, so
// a failed merge leaves no half-written trace. Throws Error naming the file.
MergeResult merge_traces(std::span<const MergePart> parts, const std::string& out,
                         const MergeMeta& meta = {});

}  // namespace ts::store
