#include "profiler/store/placement.hpp"

#include <limits>

namespace ts::store {

std::optional<std::int64_t> FreeStarts::place(std::uint32_t track, std::int64_t from, int direction,
                                              const Claim& claim,
                                              std::optional<std::int64_t> last_start) {
  Skips& skips = direction > 0 ? later_ : earlier_;
  const std::int64_t last = last_start ? *last_start
                                       : (direction > 0 ? std::numeric_limits<std::int64_t>::max()
                                                        : std::numeric_limits<std::int64_t>::min());
  if (direction > 0 ? from > last : from < last) return std::nullopt;
  path_.clear();
  std::int64_t at = from;
  std::optional<std::int64_t> placed;
  for (;;) {
    const auto it = skips.find({track, at});
    if (it != skips.end()) {
      if (it->second == at) break;  // the end of the range, taken
      path_.push_back(at);
      at = it->second;
      continue;
    }
    path_.push_back(at);  // taken from here on, either way
    if (claim(at)) {
      placed = at;
      break;
    }
    if (at == last) break;
    at += direction;
  }
  // Every start on the way is taken now: point each past the run.
  const std::int64_t next = placed && *placed != last ? *placed + direction : last;
  for (const std::int64_t s : path_) skips[{track, s}] = next;
  if (!placed) skips[{track, last}] = last;
  return placed;
}

}  // namespace ts::store
