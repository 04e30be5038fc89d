#include "engine/dist/clock_sync.hpp"

#include <limits>

namespace ts::dist {

namespace {
constexpr int kPingTag = 7301;
constexpr int kPongTag = 7302;
}  // namespace

std::vector<ClockOffset> measure_clock_offsets(Communicator& comm,
                                               const std::function<std::int64_t()>& clock,
                                               int rounds) {
  const int n = comm.size();
  std::vector<std::int64_t> table(static_cast<std::size_t>(n) * 3, 0);  // offset, error, at
  comm.barrier();
  if (comm.rank() == 0) {
    for (int peer = 1; peer < n; ++peer) {
      std::int64_t best_rtt = std::numeric_limits<std::int64_t>::max();
      for (int i = 0; i < rounds; ++i) {
        const char ping = 1;
        std::int64_t remote = 0;
        const std::int64_t t0 = clock();
        comm.send(&ping, 1, peer, kPingTag);
        comm.recv(&remote, sizeof remote, peer, kPongTag);
        const std::int64_t t1 = clock();
        if (t1 - t0 >= best_rtt) continue;
        best_rtt = t1 - t0;
        const std::int64_t mid = t0 + (t1 - t0) / 2;
        std::int64_t* row = &table[static_cast<std::size_t>(peer) * 3];
        row[0] = remote - mid;
        row[1] = (best_rtt + 1) / 2;
        row[2] = mid;
      }
    }
  } else {
    for (int i = 0; i < rounds; ++i) {
      char ping = 0;
      comm.recv(&ping, 1, 0, kPingTag);
      const std::int64_t now = clock();
      comm.send(&now, sizeof now, 0, kPongTag);
    }
  }
  comm.broadcast(table.data(), table.size() * sizeof(std::int64_t), 0);
  std::vector<ClockOffset> out(static_cast<std::size_t>(n));
  for (std::size_t r = 0; r < out.size(); ++r)
    out[r] = {table[r * 3], table[r * 3 + 1], table[r * 3 + 2]};
  return out;
}

}  // namespace ts::dist
