// Interns byte strings (event names, categories, string pids) to dense ids: an open-addressing
// hash table over one byte arena. Id 0 is the empty string. Not thread-safe: each parse thread
// has its own, merged when the parts of a file are joined.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace ts::import {

class Interner {
 public:
  Interner();

  std::uint32_t intern(std::string_view text);
  // An event's name: as intern(), but a PyTorch step marker's name, "ProfilerStep#N" (N written
  // as PyTorch writes it: decimal, no sign or leading zero, at most 2^31 - 1), is not stored: its
  // id is kNumbered | N. A trace of millions of tiny steps then holds none of their names.
  static constexpr std::uint32_t kNumbered = 0x80000000u;
  std::uint32_t intern_name(std::string_view text);
  static bool is_numbered(std::uint32_t id) { return (id & kNumbered) != 0; }
  // Valid until the next intern(); a numbered id's text is made on the calling thread and valid
  // until that thread's next text() of a numbered id.
  std::string_view text(std::uint32_t id) const {
    if (is_numbered(id)) return numbered_text(id);
    const Entry& e = entries_[id];
    return {arena_.data() + e.offset, e.size};
  }
  std::uint32_t size() const { return static_cast<std::uint32_t>(entries_.size()); }

 private:
  struct Entry {
    std::uint64_t offset;
    std::uint32_t size;
    std::uint32_t hash;
  };
  void grow();
  static std::string_view numbered_text(std::uint32_t id);

  std::vector<char> arena_;
  std::vector<Entry> entries_;
  std::vector<std::uint32_t> slots_;  // entry id + 1, 0 = empty; size a power of two
};

// A fast 64-bit hash of bytes (not cryptographic: a collision costs a comparison, never a
// wrong id).
std::uint64_t hash_bytes(std::string_view text);

}  // namespace ts::import
