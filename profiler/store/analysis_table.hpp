// The `analysis` table (schema.sql): bytes a trace keeps for the analysis, under a key, in
// parts. The store only keeps and returns them (Reader::kept_analysis); what they mean and when
// they apply is the analysis's (profiler/analysis/kept_report.hpp). They are derived from the
// events, so storing the overview again (the events changed) clears them.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

// The largest part kept: below SQLite's 16 MiB value limit that readers set. A part of steps
// takes about 1 MiB; only a report naming very many long kernel names could reach this, and is
// then not kept.
inline constexpr std::size_t kAnalysisPartBytes = std::size_t{12} << 20;

// Keeps `parts` parts, made one at a time by `part(i)`, under `key` in the finished trace at
// `path` (it has its overview and no staged events), replacing what it kept under that key and
// every key not starting with `family` (what other builds kept), and dropping the oldest keys
// past `most_keys`. Creates the table in a file written before it. False, leaving the trace as
// it was, when it cannot: the file is read-only or busy past a short wait, the trace is not
// finished, the disk is full.
bool keep_analysis(const std::string& path, std::string_view key, std::string_view family,
                   std::size_t parts, const std::function<std::string(std::size_t)>& part,
                   int most_keys = 4) noexcept;

// Drops whatever the trace keeps, inside the caller's transaction on `db`.
void clear_kept_analysis(const Db& db);

// Single parts of what a trace keeps, read on a connection of its own (one caller at a time):
// the viewer reads a kept report's steps a block at a time instead of holding them.
class KeptParts {
 public:
  // Opens `path` read-only; throws Error when it cannot.
  explicit KeptParts(const std::string& path);
  // The bytes of part `part` kept under `key`; nullopt when there is none (another build or
  // other options replaced it since) or the file cannot be read.
  std::optional<std::string> part(std::string_view key, std::int64_t part) noexcept;

 private:
  Db db_;
  Stmt read_;
};

}  // namespace ts::store
