// The files an import reads: each source is a trace file, or a directory whose trace files
// (*.json, *.json.gz: PyTorch's *.pt.trace.json[.gz] among them) are the ranks of one job.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ts::import {

struct SourceFile {
  std::string path;
  std::optional<std::int64_t> name_rank;  // what the file name says (rank-3, rank3, trace_3.json)
};

// Files in order: sources as given; a directory's files sorted by rank (from "rank": N in the
// first 64 KiB, as HTA does, else from the file name), then by name. Throws ImportError (naming
// the path) for a missing or unreadable path, an empty directory, or one without trace files.
std::vector<SourceFile> expand_sources(std::span<const std::string> sources);

// The rank in a file name: "rank-1", "rank_1", "rank1" (any case), else "_1." followed by a
// non-digit ("trace_1.json"; not the "_<pid>.<time>" of tensorboard_trace_handler's names).
std::optional<std::int64_t> rank_from_name(std::string_view file_name);

// The rank a trace's text names early on ("rank": N), as HTA finds it; nullopt when absent.
std::optional<std::int64_t> rank_from_text(std::string_view text);

bool is_trace_file_name(std::string_view file_name);  // *.json, *.json.gz

// Whether a path is a JSON trace: a regular file (plain or gzip) whose first non-blank character
// (after a UTF-8 byte order mark) opens an object or an array, or a directory holding such a file
// named like a trace (is_trace_file_name). Never throws.
bool is_chrome_source(const std::string& path);

}  // namespace ts::import
