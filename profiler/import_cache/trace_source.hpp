// Opening any trace a user has. A trainscope trace opens as it is; a PyTorch/Chrome trace
// (.json, .json.gz), a directory of per-rank traces or a TensorFlow profile is imported into a
// trainscope trace on first use and the import kept as a cache:
//   - beside the source when its directory is writable: SOURCE.trainscope.db for a file,
//     DIR/NAME.trainscope.db inside a directory NAME;
//   - else in the per-user cache directory ($XDG_CACHE_HOME/trainscope, or ~/.cache/trainscope),
//     under a name made from the source's absolute path;
//   - else (neither can take it) in a private temporary folder, removed when the process exits:
//     the command works, and the next one imports again.
// The cache is reused while the source is unchanged: its fingerprint (every source file's path,
// size and a hash of its bytes, and the import options: fingerprint.hpp) is stored in the
// cache's meta (import.fingerprint) and compared on each use. An import hashes its source once:
// before importing when there is a cache to compare with, else afterwards; a source written
// while it is imported or hashed (its files' change times moved) gets no fingerprint, so the
// next use imports it again. A new import is written under a temporary name
// and renamed into place, so concurrent users and crashes never leave a half-written cache.
#pragma once

#include <cstdint>
#include <string>

#include "profiler/import/import.hpp"

namespace ts::import {

struct OpenOptions {
  ImportOptions import;
  std::string cache_dir;  // the per-user cache directory; empty: the default above
};

struct OpenedTrace {
  std::string path;       // the trainscope trace to read
  std::string source;     // what the user named
  bool imported = false;  // made by an import now
  bool reused = false;    // an earlier import of the unchanged source
  // Imported now over a trainscope trace that was at the cache's place and not the import of
  // the source as it is (the source changed, or the file was planted or copied there).
  bool replaced = false;
  // Why, as far as the fingerprint the replaced trace stored tells: an import of another
  // revision of trainscope's import, or one with other options (--step-marker, --run); else
  // the source changed or the file was put there.
  enum class Why : std::uint8_t { source_or_file, other_revision, other_options };
  Why why_replaced = Why::source_or_file;
  bool temporary = false;  // imported into a temporary file (no folder could keep it)
  ImportStats stats;       // the import's figures, when imported now
};

// Resolves `path` to the trainscope trace to read (see above). A path that is neither a
// trainscope trace nor a trace trainscope imports comes back as it is, for the reader to name
// what is wrong with it (a missing file, a directory, an empty or foreign SQLite file); a file of
// some other content is an ImportError saying what it starts with (why_not_a_trace). Throws
// ImportError too when an import fails, or not even a temporary folder can take it.
OpenedTrace open_trace_source(const std::string& path, const OpenOptions& options = {});

// The cache file open_trace_source() uses for `path` in a writable directory beside it.
std::string cache_path_beside(const std::string& path);

}  // namespace ts::import
