// tf.data's cache(): decoded samples kept after the first epoch so that later epochs skip
// reading and decoding. In memory, or in a file that later runs reuse.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace ts {

class SampleCache {
 public:
  // What a cache slot holds.
  enum class State : std::uint8_t { empty = 0, filled = 1, bad = 2 };

  // A memory cache of `count` samples of `numel` floats each.
  static std::unique_ptr<SampleCache> in_memory(std::int64_t count, std::int64_t numel);
  // A file cache at `path` for the source identified by `fingerprint` (its description, shape
  // and count). An existing complete file with the same fingerprint is reused: every sample
  // starts filled. Otherwise the file is (re)created. Throws DatasetError when it cannot be.
  static std::unique_ptr<SampleCache> in_file(const std::string& path, std::int64_t count,
                                              std::int64_t numel, const std::string& fingerprint);
  ~SampleCache();
  SampleCache(const SampleCache&) = delete;
  SampleCache& operator=(const SampleCache&) = delete;

  std::int64_t count() const { return count_; }
  State state(std::int64_t index) const {
    return static_cast<State>(
        states_[static_cast<std::size_t>(index)].load(std::memory_order_acquire));
  }
  // Copies cached sample `index` (state filled) into out [numel]. Thread-safe.
  void read(std::int64_t index, float* out) const;
  // Stores sample `index` [numel] and marks it filled. Thread-safe for distinct indices.
  void write(std::int64_t index, const float* sample);
  void mark_bad(std::int64_t index);
  // Number of samples filled or bad.
  std::int64_t settled() const { return settled_.load(std::memory_order_relaxed); }
  // True when every sample is filled or bad. A file cache then marks its file complete, so a
  // later run reuses it.
  bool complete() const { return settled() == count_; }
  // Records in a file cache that it is complete (call once complete() is true). No-op in memory.
  void seal();
  bool reused_file() const { return reused_; }
  std::string describe() const;

 private:
  SampleCache(std::int64_t count, std::int64_t numel);

  std::int64_t count_, numel_;
  std::vector<float> memory_;                            // [count, numel] for a memory cache
  std::unique_ptr<std::atomic<std::uint8_t>[]> states_;  // [count]
  std::atomic<std::int64_t> settled_{0};
  int fd_ = -1;  // file cache
  std::string path_;
  bool reused_ = false;
  bool sealed_ = false;
};

}  // namespace ts
