// Process-wide tables the traced program fills through the API and the writer copies into the
// trace: interned strings, tracks, meta keys. All cold paths, each behind its own mutex.
#pragma once

#include <cstdint>
#include <map>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "trainscope/taxonomy.hpp"

namespace ts::trace::core {

// Ids start at 1 and never change for the life of the process.
class StringTable {
 public:
  std::uint32_t intern(std::string_view text);
  std::size_t size() const;
  // Appends strings with ids in [first, first + out.size()...) to out, returns the next id.
  std::uint32_t copy_since(std::uint32_t first, std::vector<std::string>& out) const;

 private:
  mutable std::mutex mu_;
  std::vector<std::string> texts_;  // id - 1
  std::unordered_map<std::string, std::uint32_t> ids_;
};

struct TrackInfo {
  std::uint32_t id = 0;
  std::string name;
  TrackKind kind = TrackKind::thread;
  std::int64_t os_tid = 0;  // thread tracks only
};

// Track ids fit the 16-bit track field of ring events.
class TrackTable {
 public:
  static constexpr std::uint32_t kMaxTracks = 0xFFFF;
  // A new thread track, always distinct (two threads may share a name).
  std::uint32_t add_thread(std::string name, std::int64_t os_tid);
  // The track with this name and kind, created on first use. 0 when the table is full.
  std::uint32_t find_or_add(std::string_view name, TrackKind kind);
  void rename(std::uint32_t id, std::string_view name);
  std::uint64_t version() const;
  std::vector<TrackInfo> snapshot() const;

 private:
  std::uint32_t add_locked(std::string name, TrackKind kind, std::int64_t os_tid);
  mutable std::mutex mu_;
  std::vector<TrackInfo> tracks_;  // id - 1
  std::uint64_t version_ = 0;
};

class MetaTable {
 public:
  void set(std::string_view key, std::string_view value);
  // For keys that describe one session (set while it records), before the next one starts.
  void erase(std::string_view key);
  std::uint64_t version() const;
  std::map<std::string, std::string> snapshot() const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, std::string> values_;
  std::uint64_t version_ = 0;
};

}  // namespace ts::trace::core
