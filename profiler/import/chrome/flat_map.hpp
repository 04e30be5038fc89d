// A minimal open-addressing hash map from 64-bit keys to 32/64-bit values, for the hot lookups
// of the import (labels per (name, category), threads per (pid, tid), steps per correlation id):
// several times faster than std::unordered_map at a million lookups.
#pragma once

#include <cstdint>
#include <vector>

namespace ts::import {

template <class Value>
class FlatMap {
 public:
  explicit FlatMap(std::size_t expected = 16) {
    std::size_t n = 16;
    while (n < expected * 2) n *= 2;
    slots_.resize(n);
  }

  // The value stored for key, or nullptr.
  const Value* find(std::uint64_t key) const {
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = spread(key) & mask;; i = (i + 1) & mask) {
      const Slot& s = slots_[i];
      if (!s.used) return nullptr;
      if (s.key == key) return &s.value;
    }
  }
  Value* find(std::uint64_t key) {
    return const_cast<Value*>(static_cast<const FlatMap*>(this)->find(key));
  }

  // Inserts or overwrites.
  void set(std::uint64_t key, Value value) {
    if ((size_ + 1) * 2 > slots_.size()) grow();
    const std::size_t mask = slots_.size() - 1;
    for (std::size_t i = spread(key) & mask;; i = (i + 1) & mask) {
      Slot& s = slots_[i];
      if (!s.used) {
        s = {key, value, true};
        ++size_;
        return;
      }
      if (s.key == key) {
        s.value = value;
        return;
      }
    }
  }

  std::size_t size() const { return size_; }

 private:
  struct Slot {
    std::uint64_t key = 0;
    Value value{};
    bool used = false;
  };
  static std::size_t spread(std::uint64_t k) {
    k ^= k >> 33;
    k *= 0xff51afd7ed558ccdull;
    k ^= k >> 33;
    return static_cast<std::size_t>(k);
  }
  void grow() {
    std::vector<Slot> old(slots_.size() * 2);
    old.swap(slots_);
    size_ = 0;
    for (const Slot& s : old)
      if (s.used) set(s.key, s.value);
  }

  std::vector<Slot> slots_;
  std::size_t size_ = 0;
};

}  // namespace ts::import
