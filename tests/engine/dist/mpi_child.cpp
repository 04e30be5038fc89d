// Started by test_dist_mpi under mpirun -np 2: every collective of the MPI communicator, checked
// on each rank; prints "rank R ok (BACKEND, SIZE ranks)" and exits 0, or the failures and 1.
//   mpi_child            the checks
//   mpi_child abort      rank 1 fails and ends the job while rank 0 waits in a collective
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include "engine/dist/clock_sync.hpp"
#include "engine/dist/gradient_reducer.hpp"
#include "engine/dist/runtime.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, int rank) {
  if (ok) return;
  ++failures;
  std::printf("rank %d FAILED: %s\n", rank, what);
}

std::int64_t monotonic_ns() {
  timespec ts{};
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return std::int64_t{ts.tv_sec} * 1'000'000'000 + ts.tv_nsec;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace ts::dist;
  Communicator& comm = world();
  const int rank = comm.rank(), size = comm.size();
  if (argc > 1 && std::strcmp(argv[1], "abort") == 0) {
    if (rank == 1) {
      std::printf("rank 1: failing now\n");
      std::fflush(stdout);
      end_job_after_error(3, false);
    }
    float x = 1;
    comm.allreduce(&x, 1, 1.0f);  // rank 1 never joins: only the abort ends this
    std::printf("rank %d: the collective returned\n", rank);
    finalize();
    return 0;
  }

  std::vector<float> v(1000);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(rank + 1) + i;
  comm.allreduce(v.data(), v.size(), 0.5f);
  bool ok = true;
  for (std::size_t i = 0; i < v.size(); ++i) {
    float expected = 0;
    for (int r = 0; r < size; ++r) expected += static_cast<float>(r + 1) + i;
    ok = ok && v[i] == expected * 0.5f;
  }
  check(ok, "allreduce(float) sums and scales", rank);

  double d[2] = {1.0, static_cast<double>(rank)};
  comm.allreduce(d, 2);
  check(d[0] == size && d[1] == size * (size - 1) / 2.0, "allreduce(double) sums", rank);

  std::vector<float> a(300, 1.0f), b(70, 2.0f);
  comm.start_allreduce(a.data(), a.size());
  comm.start_allreduce(b.data(), b.size());
  for (int i = 0; i < 1000000 && !comm.progress(); ++i) {
  }
  comm.wait_all();
  check(a[299] == size && b[0] == 2.0f * size, "start_allreduce + progress + wait_all", rank);

  std::int64_t value = rank == size - 1 ? 4242 : 0;
  comm.broadcast(&value, sizeof value, size - 1);
  check(value == 4242, "broadcast from the last rank", rank);

  const auto all = comm.allgather(std::string(static_cast<std::size_t>(rank + 1), 'a' + rank));
  ok = static_cast<int>(all.size()) == size;
  for (int r = 0; ok && r < size; ++r)
    ok = all[static_cast<std::size_t>(r)] ==
         std::string(static_cast<std::size_t>(r + 1), static_cast<char>('a' + r));
  check(ok, "allgather of different lengths, in rank order", rank);

  if (size > 1) {
    if (rank == 0) {
      const char ping[3] = {'p', 'i', 'n'};
      comm.send(ping, 3, 1, 5);
      char pong[4] = {};
      comm.recv(pong, 4, 1, 6);
      check(std::memcmp(pong, "pong", 4) == 0, "send/recv round trip", rank);
    } else if (rank == 1) {
      char ping[3] = {};
      comm.recv(ping, 3, 0, 5);
      comm.send("pong", 4, 0, 6);
    }
  }

  // One host: every rank's CLOCK_MONOTONIC is the same clock, so the measured offset is within
  // its error bound (plus scheduling noise on an oversubscribed machine).
  const auto offsets = measure_clock_offsets(comm, monotonic_ns, 32);
  check(static_cast<int>(offsets.size()) == size && offsets[0].offset_ns == 0,
        "clock offsets: one per rank, rank 0's zero", rank);
  for (int r = 1; r < size; ++r) {
    const auto& o = offsets[static_cast<std::size_t>(r)];
    check(o.error_ns > 0 && std::llabs(o.offset_ns) <= o.error_ns + 200'000,
          "clock offset of a rank on the same host is within its error bound", rank);
  }

  std::vector<float> g1(5000), g2(5000);
  for (std::size_t i = 0; i < g1.size(); ++i) g1[i] = g2[i] = 0.25f * (rank + 1) * (i % 97);
  GradientReducer blocking(comm, AllreduceMode::blocking);
  blocking.begin(g1.data(), g1.size(), 1.0f, 1.0f / size);
  blocking.finish();
  GradientReducer bucketed(comm, AllreduceMode::bucketed, 1024);
  bucketed.begin(g2.data(), g2.size(), 1.0f, 1.0f / size);
  for (std::size_t from = 5000; from >= 1000; from -= 1000) bucketed.ready(from);
  bucketed.finish();
  check(g1 == g2, "bucketed and blocking reduce to the same values", rank);
  check(bucketed.stats().buckets > 1, "bucketed starts several allreduces", rank);

  comm.barrier();
  if (failures == 0) std::printf("rank %d ok (%s, %d ranks)\n", rank, comm.backend().c_str(), size);
  finalize();
  return failures == 0 ? 0 : 1;
}
