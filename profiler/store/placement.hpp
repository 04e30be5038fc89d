// Where the writer puts an event (or a counter sample) whose (start, track) key is taken: the
// first free start from the wanted one on, earlier or later. Every start a search finds taken
// is remembered, so that a later search on the same track jumps over the whole run of taken
// starts at once: placing n events on one key costs O(n) claims, not the O(n^2) of probing each
// start again for every event. Knows nothing of SQLite: `claim` says whether a start was free
// (and takes it).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

namespace ts::store {

class FreeStarts {
 public:
  // claim(start): takes `start` and returns true when it was free, else returns false.
  using Claim = std::function<bool(std::int64_t start)>;

  // The first start from `from` on in `direction` (+1: later, -1: earlier) on `track` that
  // `claim` takes; nullopt when every start up to the end of the 64-bit range (or `last`) is taken.
  // Starts taken earlier through this object are not offered to `claim` again. `last`, when given,
  // is the last start to offer in `direction` instead of the end of the range (a writer's keys
  // cover a narrower one); one object is always given the same.
  std::optional<std::int64_t> place(std::uint32_t track, std::int64_t from, int direction,
                                    const Claim& claim,
                                    std::optional<std::int64_t> last = std::nullopt);

  // Starts remembered as taken (for tests: bounded by the claims made).
  std::size_t remembered() const { return later_.size() + earlier_.size(); }

 private:
  struct Key {
    std::uint32_t track;
    std::int64_t start;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    std::size_t operator()(const Key& k) const noexcept {
      return std::hash<std::int64_t>{}(k.start) ^
             (std::size_t{k.track} * std::size_t{0x9E3779B97F4A7C15ull});
    }
  };
  // start -> a start further on in the search's direction; every start between them is taken.
  // A start mapped to itself is the end of the range, taken.
  using Skips = std::unordered_map<Key, std::int64_t, KeyHash>;
  Skips later_, earlier_;
  std::vector<std::int64_t> path_;
};

}  // namespace ts::store
