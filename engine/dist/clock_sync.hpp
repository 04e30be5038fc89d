// Measures each rank's clock against rank 0's with MPI round trips, so that the timelines of
// ranks on different hosts can be put on rank 0's clock (Cristian's algorithm, best sample).
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

#include "engine/dist/communicator.hpp"

namespace ts::dist {

struct ClockOffset {
  std::int64_t offset_ns = 0;  // this rank's clock minus rank 0's
  std::int64_t error_ns = 0;   // bound on |offset error|: half the round trip of the sample used
  std::int64_t at_ns = 0;      // rank 0's clock when it was measured
};

// Collective. Rank 0 plays `rounds` ping-pongs with each other rank in turn: it reads its clock
// (t0), sends a ping, the peer answers with its clock (t), rank 0 reads its clock again (t1). The
// round trip with the smallest t1 - t0 gives offset = t - (t0 + t1) / 2 within (t1 - t0) / 2 (the
// peer read its clock somewhere inside the round trip). Every rank gets every rank's offset, in
// rank order; rank 0's is zero.
std::vector<ClockOffset> measure_clock_offsets(Communicator& comm,
                                               const std::function<std::int64_t()>& clock,
                                               int rounds = 64);

}  // namespace ts::dist
