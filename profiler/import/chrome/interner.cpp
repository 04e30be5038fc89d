#include "profiler/import/chrome/interner.hpp"

#include <cstring>
#include <string>

namespace ts::import {

namespace {

inline std::uint64_t mix(std::uint64_t a, std::uint64_t b) {
  const unsigned __int128 m = static_cast<unsigned __int128>(a) * b;
  return static_cast<std::uint64_t>(m) ^ static_cast<std::uint64_t>(m >> 64);
}

inline std::uint64_t load64(const char* p) {
  std::uint64_t v;
  std::memcpy(&v, p, 8);
  return v;
}

}  // namespace

std::uint64_t hash_bytes(std::string_view text) {
  constexpr std::uint64_t k0 = 0xa0761d6478bd642full, k1 = 0xe7037ed1a0b428dbull;
  const char* p = text.data();
  std::size_t n = text.size();
  std::uint64_t h = k0 ^ n;
  for (; n >= 16; p += 16, n -= 16) h = mix(load64(p) ^ k1, load64(p + 8) ^ h);
  std::uint64_t a = 0, b = 0;
  if (n >= 8) {
    a = load64(p);
    b = load64(p + n - 8);
  } else if (n > 0) {
    for (std::size_t i = 0; i < n; ++i)
      a |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
  }
  return mix(a ^ k1, b ^ h);
}

Interner::Interner() : slots_(1024, 0) {
  entries_.push_back({0, 0, 0});
}

std::uint32_t Interner::intern_name(std::string_view text) {
  constexpr std::string_view kMarker = "ProfilerStep#";
  if (text.size() > kMarker.size() && text.size() <= kMarker.size() + 10 &&
      text.starts_with(kMarker) &&
      (text[kMarker.size()] != '0' || text.size() == kMarker.size() + 1)) {
    std::uint64_t n = 0;
    bool digits = true;
    for (const char c : text.substr(kMarker.size())) {
      digits = digits && c >= '0' && c <= '9';
      n = n * 10 + static_cast<std::uint64_t>(c - '0');
    }
    if (digits && n < kNumbered) return kNumbered | static_cast<std::uint32_t>(n);
  }
  return intern(text);
}

std::string_view Interner::numbered_text(std::uint32_t id) {
  thread_local std::string text;
  text = "ProfilerStep#" + std::to_string(id & ~kNumbered);
  return text;
}

std::uint32_t Interner::intern(std::string_view text) {
  if (text.empty()) return 0;
  const std::uint64_t h64 = hash_bytes(text);
  const auto h = static_cast<std::uint32_t>(h64);
  std::size_t mask = slots_.size() - 1;
  for (std::size_t i = static_cast<std::size_t>(h64 >> 32) & mask;; i = (i + 1) & mask) {
    const std::uint32_t slot = slots_[i];
    if (slot == 0) break;
    const Entry& e = entries_[slot - 1];
    if (e.hash == h && e.size == text.size() &&
        std::memcmp(arena_.data() + e.offset, text.data(), text.size()) == 0)
      return slot - 1;
  }
  const auto id = static_cast<std::uint32_t>(entries_.size());
  entries_.push_back({arena_.size(), static_cast<std::uint32_t>(text.size()), h});
  arena_.insert(arena_.end(), text.begin(), text.end());
  if (entries_.size() * 2 > slots_.size()) {
    grow();
  } else {
    for (std::size_t i = static_cast<std::size_t>(h64 >> 32) & mask;; i = (i + 1) & mask)
      if (slots_[i] == 0) {
        slots_[i] = id + 1;
        break;
      }
  }
  return id;
}

void Interner::grow() {
  std::vector<std::uint32_t> slots(slots_.size() * 2, 0);
  const std::size_t mask = slots.size() - 1;
  for (std::uint32_t id = 1; id < entries_.size(); ++id) {
    const std::uint64_t h64 = hash_bytes(text(id));
    for (std::size_t i = static_cast<std::size_t>(h64 >> 32) & mask;; i = (i + 1) & mask)
      if (slots[i] == 0) {
        slots[i] = id + 1;
        break;
      }
  }
  slots_.swap(slots);
}

}  // namespace ts::import
