// Imports PyTorch profiler (Kineto) Chrome-trace JSON, best-effort any Chrome trace-event JSON,
// and TensorFlow profiles (XSpace, *.xplane.pb) into a new trainscope trace file: the front door
// over the table of format readers (registry.cpp; one folder per format). README.md in this
// directory documents the layout, the formats, the mapping to the trace model, how steps are
// found, and the skipped-event reasons.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <span>
#include <stdexcept>
#include <string>

namespace ts::import {

class SourceDigests;  // common/source_digests.hpp

// How far an import is, for a progress line (progress.hpp prints it).
struct ImportProgress {
  std::size_t files_done = 0, files = 0;    // files read, files to import
  std::uint64_t bytes_done = 0, bytes = 0;  // their sizes on disk (compressed for gzip)
  double seconds = 0;                       // since the import started
  // Once every file is read, an import of several files writes their events merged in time
  // order (the longest part of a job's import after the reading): events > 0 from then on.
  std::uint64_t events_written = 0, events = 0;
  double writing_since = 0;  // `seconds` when the writing began
  bool finished = false;     // the trace is complete: the last report
};

struct ImportOptions {
  // An ECMAScript regex naming the top-level host annotation that marks one training step
  // (numbered 1, 2, ... in time order per file). Empty: ProfilerStep#N markers, else inference.
  std::string step_marker;
  // Threads: several files are parsed in parallel, one thread each, and written in file order (the
  // trace is the same whatever the number); one large plain file is split at event boundaries
  // and its parts parsed in parallel. 1: one file after the other. 0 = the machine's hardware
  // threads.
  int threads = 0;
  // TensorFlow profiles: the run of a TensorBoard log directory to import (the name of a
  // directory plugins/profile/<run>/). Empty: the latest run (the greatest name).
  std::string tf_run;
  // False: an import losing more than 1 % of the events it read (invalid, damaged or unkeyable
  // events: skip_reasons.hpp's is_loss) fails with lost_share_error's sentence, and writes
  // nothing. The CLI sets it from --allow-partial.
  bool allow_partial = true;
  // Called when the import starts and after each file is written (in file order, on the
  // importing thread); may be empty.
  std::function<void(const ImportProgress&)> progress;
  // Where the digests of the source files' blocks go as the import reads them (JSON traces,
  // plain or gzip), so that the import cache's fingerprint of the source need not read them
  // again (common/source_digests.hpp); null for none. Not an option of the result.
  SourceDigests* digests = nullptr;
};

struct ImportStats {
  std::uint64_t bytes = 0;                       // JSON bytes parsed (uncompressed)
  std::uint64_t events_read = 0;                 // objects in the traceEvents arrays
  std::uint64_t events_written = 0;              // event rows and counter samples written
  std::map<std::string, std::uint64_t> skipped;  // named reason -> count
  std::string steps_source;                      // one sentence: how steps were found
  int processes = 0;                             // files imported (one process each)
  // When several JSON files are imported and some have no rank (no distributedInfo, none in
  // the file name): "2 files without distributedInfo, treated as separate processes".
  std::string unranked;
};

// One sentence naming the file, ready for stderr.
class ImportError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// "" when `stats` lost at most 1 % of the events read; else one sentence naming `source`, the
// share lost and its main reasons, e.g. "run.json: 99.9 % of its 3 271 events could not be
// imported (3 268 out_of_key_range, 2 negative_duration); --allow-partial imports the rest".
std::string lost_share_error(const std::string& source, const ImportStats& stats);
// For an import that read events and wrote none: "neg.json: none of its 110 trace events could be
// imported (110 negative_duration)". import_traces throws it as an ImportError, writing nothing.
std::string nothing_imported_error(const std::string& source, const ImportStats& stats);

enum class SourceKind { trainscope_trace, importable, unknown };

// What a path holds, from a few bytes (a gzip file is inflated only as far as its first
// characters): a trainscope trace, something a format reader imports (Chrome/Kineto JSON, plain or
// gzip, or a directory of JSON traces; a TensorFlow profile: an .xplane.pb file, or a directory
// holding one or plugins/profile), or unknown (also for a missing or unreadable path). Never
// throws.
SourceKind sniff(const std::string& path);

// The format of an importable path: the name of the reader that imports it ("chrome" for JSON
// traces, "xplane" for TensorFlow profiles; registry.cpp), "" when sniff() does not call it
// importable. Never throws.
std::string sniff_format(const std::string& path);

// For a file sniff() calls unknown: why it is no trace, one sentence naming it and quoting how it
// starts, e.g. "page.json is not a JSON trace (it starts with '<!DOCTYPE html>', an HTML or XML
// document, not JSON)". "" for what the trace reader explains better itself: a missing path, a
// directory, an empty file (a capture killed early may hold everything in its -wal file) or any
// SQLite file. Never throws.
std::string why_not_a_trace(const std::string& path);

// Imports the sources (files, or directories holding per-rank trace files; or TensorFlow
// profiles: .xplane.pb files, a run directory, a log directory) into a NEW trainscope trace at
// out_path, one process per file (per host). Writes out_path + ".partial" and renames it when
// complete, so a crash never leaves a half-written file under the real name. Throws ImportError
// (one sentence naming the file) when a source is not a trace at all (unreadable, not JSON, no
// trace events, an empty directory or one without trace files, not an XSpace, a log directory
// without runs or without options.tf_run), when sources of two formats are mixed,
// when out_path cannot be written or exists and is not a trainscope trace, or when
// options.step_marker is not a valid regex.
ImportStats import_traces(std::span<const std::string> sources, const std::string& out_path,
                          const ImportOptions& options = {});

}  // namespace ts::import
