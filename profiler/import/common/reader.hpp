// A format reader as the registry (profiler/import/registry.cpp) lists it: sniff -> resolve ->
// read. import_traces() and sniff() loop over the table of readers; nothing outside a format's
// folder and its table row knows the format.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <regex>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/import/common/imported_run.hpp"
#include "profiler/import/common/source_digests.hpp"
#include "profiler/import/common/trace_sink.hpp"

namespace ts::import {

struct ReadOptions {
  const std::regex* step_marker = nullptr;  // --step-marker, compiled (null when not given)
  std::string step_marker_text;             // its text
  // Threads: several files are parsed in parallel, one thread each (a single file is cut into
  // parts parsed in parallel); 1 reads the files one after the other.
  int threads = 1;
  std::string run;  // the capture run of a log directory to import (ImportOptions::tf_run)
  // Called with a file's index (in the resolved files) once it is written, in file order; may be
  // empty.
  std::function<void(std::size_t)> file_done;
  // Where the digests of the files' blocks go as they are read (ImportOptions::digests); may be
  // null, and a reader may leave it unused.
  SourceDigests* digests = nullptr;
};

// One file an import reads, resolved from the sources the user named.
struct InputFile {
  std::string path;
  std::optional<std::int64_t> rank;  // the rank its name gives ("rank-3", "trace_3.json")
  std::string run;                   // the capture run (directory) it came from; "" for none
};

struct TraceReader {
  std::string_view name;  // the format's folder: "chrome", "xplane"
  std::string_view one;   // what it reads, for messages: "a JSON trace"
  std::string_view many;  // the same, plural: "JSON traces"
  // Whether the path (a file or a directory) holds this reader's input, from its name and first
  // bytes. Must not throw, block (FIFOs) or read more than a few KiB.
  bool (*sniff)(const std::string& path);
  // Whether a file's name is one of this format's names (for saying what a file is not).
  bool (*named)(std::string_view file_name);
  // The files of the sources, in import order. Throws ImportError naming a source that holds
  // none (missing, unreadable, an empty directory, ...).
  std::vector<InputFile> (*resolve)(std::span<const std::string> sources,
                                    const ReadOptions& options);
  // Reads the files into the trace being written, one process each (ids 1, 2, ...), and says
  // what it found. Throws ImportError (one sentence naming the file) for a file that is no trace.
  ImportedRun (*read)(const std::vector<InputFile>& files, const ReadOptions& options,
                      TraceSink& sink);
};

}  // namespace ts::import
