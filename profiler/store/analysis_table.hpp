// The `analysis` table (schema.sql): bytes a trace keeps for the analysis, under a key, in
// parts. The store only keeps and returns them (Reader::kept_analysis); what they mean and when
// they apply is the analysis's (profiler/analysis/kept_report.hpp). They are derived from the
// events, so storing the overview again (the events changed) clears them.
//
// Each key's parts come with a seal (part kSealPart): the checksum of the events they were made
// from (events_checksum.hpp), taken as they are kept, and a hash of that checksum, the key and
// every part's bytes. A reader uses the parts only when the events' checksum now is the sealed
// one (nothing edited the events since, with sqlite3 or otherwise) and the parts are the sealed
// ones (not another trace's, copied in under this key).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "profiler/store/content_hash.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

// The largest part kept: below SQLite's 16 MiB value limit that readers set. A part of steps
// takes about 1 MiB; only a report naming very many long kernel names could reach this, and is
// then not kept.
inline constexpr std::size_t kAnalysisPartBytes = std::size_t{12} << 20;

inline constexpr std::int64_t kSealPart = -1;

struct KeptSeal {
  std::uint64_t events = 0;  // events_checksum() when the parts were kept
  std::uint64_t parts = 0;   // SealHash over the key and the parts
};
std::string encode_seal(const KeptSeal& seal);
std::optional<KeptSeal> decode_seal(std::string_view bytes);  // nullopt unless 16 bytes

// The hash of a seal: the events' checksum, the key, then each part in order.
class SealHash {
 public:
  SealHash(std::uint64_t events, std::string_view key);
  void part(std::string_view bytes);
  std::uint64_t digest() const;

 private:
  ContentHash hash_;
};

// Keeps `parts` parts, made one at a time by `part(i)`, under `key` in the finished trace at
// `path` (it has its overview and no staged events), replacing what it kept under that key and
// every key not starting with `family` (what other builds kept), and dropping the oldest keys
// past `most_keys`; with their seal, the events' checksum taken in the same transaction. Creates
// the table in a file written before it. False, leaving the trace as it was, when it cannot: the
// file is read-only or busy past a short wait, the trace is not finished, its events cannot be
// checksummed (damaged), the disk is full.
bool keep_analysis(const std::string& path, std::string_view key, std::string_view family,
                   std::size_t parts, const std::function<std::string(std::size_t)>& part,
                   int most_keys = 4) noexcept;

// Drops what the trace at `path` keeps under `key` (one that failed its check); false when it
// cannot (a read-only file, a busy one).
bool forget_kept_analysis(const std::string& path, std::string_view key) noexcept;

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
