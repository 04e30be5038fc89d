// Indexes, in place, the events a killed capture left staged (schema.sql, event_block), so that
// the stable SQL views show them too. trainscope's own readers do not need it: they index staged
// events in memory when they open a file. The recovered trace gets its overview (overview.hpp).
#pragma once

#include <cstdint>
#include <string>

namespace ts::store {

struct RecoverResult {
  std::uint64_t events_indexed = 0;  // 0: nothing was staged, the file is unchanged
  bool overview_stored = false;      // the trace's overview was built and stored (version 4)
};

// Opens `path` for writing (a trace of a schema version this build reads, refused by name
// otherwise), indexes its staged events and leaves one self-contained file. Throws Error.
RecoverResult recover(const std::string& path);

}  // namespace ts::store
