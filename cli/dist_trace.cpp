#include "cli/dist_trace.hpp"

#include <pthread.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <trainscope/session.hpp>
#include <trainscope/trace.hpp>

#include "engine/dist/clock_sync.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/job_merge.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::cli {

namespace {

constexpr int kShipSizeTag = 7311;
constexpr int kShipDataTag = 7312;
constexpr std::size_t kShipChunk = std::size_t{4} << 20;

// Whether rank 0 reads `path` as rank `rank`'s part of this job.
bool readable_part(const std::string& path, const JobInfo& job, int rank) {
  try {
    const store::Reader reader(path);
    return reader.meta(meta_key::kDistJobId).value_or("") == job.job_id &&
           reader.meta(meta_key::kDistRank).value_or("") == std::to_string(rank);
  } catch (const store::Error&) {
    return false;
  }
}

void remove_part(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) std::remove((path + suffix).c_str());
}

// Rank `from` sends its part to rank 0, which writes it where it looked for it.
void ship_part(const JobInfo& job, const std::string& trace, int from) {
  const std::string path = store::part_path(trace, from);
  if (job.rank == from) {
    std::ifstream in(path, std::ios::binary | std::ios::ate);
    std::int64_t size = in ? static_cast<std::int64_t>(in.tellg()) : -1;
    job.comm->send(&size, sizeof size, 0, kShipSizeTag);
    if (size <= 0) return;
    in.seekg(0);
    std::vector<char> chunk(kShipChunk);
    for (std::int64_t left = size; left > 0;) {
      const auto n = static_cast<std::size_t>(std::min<std::int64_t>(left, kShipChunk));
      in.read(chunk.data(), static_cast<std::streamsize>(n));
      if (!in) std::fill(chunk.begin(), chunk.begin() + static_cast<std::ptrdiff_t>(n), '\0');
      job.comm->send(chunk.data(), n, 0, kShipDataTag);
      left -= static_cast<std::int64_t>(n);
    }
  } else if (job.rank == 0) {
    std::int64_t size = -1;
    job.comm->recv(&size, sizeof size, from, kShipSizeTag);
    if (size <= 0) return;
    const std::string tmp = path + ".recv";
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    std::vector<char> chunk(kShipChunk);
    for (std::int64_t left = size; left > 0;) {
      const auto n = static_cast<std::size_t>(std::min<std::int64_t>(left, kShipChunk));
      job.comm->recv(chunk.data(), n, from, kShipDataTag);
      out.write(chunk.data(), static_cast<std::streamsize>(n));
      left -= static_cast<std::int64_t>(n);
    }
    out.close();
    remove_part(path);
    if (!out || std::rename(tmp.c_str(), path.c_str()) != 0) std::remove(tmp.c_str());
  }
}

std::string list(const std::vector<int>& ranks) {
  std::string s;
  for (const int r : ranks) {
    if (!s.empty()) s += ", ";
    s += std::to_string(r);
  }
  return s;
}

}  // namespace

std::string capture_path(const JobInfo& job, const std::string& trace) {
  return job.distributed() ? store::part_path(trace, job.rank) : trace;
}

std::vector<std::pair<std::string, std::string>> part_meta(const JobInfo& job) {
  if (!job.distributed()) return {};
  return {{"dist.rank", std::to_string(job.rank)},
          {"dist.world_size", std::to_string(job.size)},
          {"dist.job_id", job.job_id},
          {"dist.backend", job.comm->backend()},
          {"dist.host", job.host},
          {"dist.boot_id", job.boot_id}};
}

void record_clock_offsets(const JobInfo& job, bool at_end) {
  if (!job.distributed()) return;
  const std::vector<dist::ClockOffset> all =
      dist::measure_clock_offsets(*job.comm, [] { return ts::trace::now_ns(); });
  const dist::ClockOffset& mine = all[static_cast<std::size_t>(job.rank)];
  const std::string p = at_end ? "dist.clock.end_" : "dist.clock.";
  ts::trace::set_meta(p + "offset_ns", std::to_string(mine.offset_ns));
  ts::trace::set_meta(p + "error_ns", std::to_string(mine.error_ns));
  ts::trace::set_meta(p + "at_ns", std::to_string(mine.at_ns));
}

void watch_for_termination() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread([set] {
    int sig = 0;
    if (sigwait(&set, &sig) != 0) return;
    if (ts::trace::session_active()) {
      ts::trace::set_meta(meta_key::kDistTerminatedNs, std::to_string(ts::trace::now_ns()));
      ts::trace::flush();
    }
    std::_Exit(128 + sig);
  }).detach();
}

void mark_part_failed(const std::string& message) {
  if (!ts::trace::session_active()) return;
  ts::trace::set_meta(meta_key::kDistFailed, message);
  ts::trace::flush();
}

std::string finish_job_trace(const JobInfo& job, const std::string& trace,
                             std::vector<std::string>& warnings) {
  record_clock_offsets(job, true);
  ts::trace::stop();
  if (!job.distributed()) return "";
  dist::Communicator& comm = *job.comm;
  comm.barrier();  // every part is finished
  std::vector<char> ship(static_cast<std::size_t>(job.size), 0);
  if (job.rank == 0)
    for (int r = 1; r < job.size; ++r)
      ship[static_cast<std::size_t>(r)] = !readable_part(store::part_path(trace, r), job, r);
  comm.broadcast(ship.data(), ship.size(), 0);
  for (int r = 1; r < job.size; ++r)
    if (ship[static_cast<std::size_t>(r)]) ship_part(job, trace, r);
  // A shipped part lives on in rank 0's copy; the others wait for no merge.
  if (job.rank != 0) {
    if (ship[static_cast<std::size_t>(job.rank)]) remove_part(store::part_path(trace, job.rank));
    return "";
  }

  bool merged = false;
  std::string said;
  {
    std::vector<std::string> parts;
    for (int r = 0; r < job.size; ++r) parts.push_back(store::part_path(trace, r));
    const auto t0 = std::chrono::steady_clock::now();
    try {
      const store::JobMerge m = store::merge_job(parts, trace);
      const double seconds =
          std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      warnings.insert(warnings.end(), m.warnings.begin(), m.warnings.end());
      std::ostringstream s;
      s << "Trace: " << trace << " (" << m.merged.size() << " of " << m.world_size << " ranks, "
        << m.result.events << " events, merged in " << static_cast<long long>(seconds * 1000)
        << " ms; clocks: "
        << (m.alignment == "monotonic" ? "one host's CLOCK_MONOTONIC"
                                       : "aligned to rank 0 by MPI ping-pong")
        << ")";
      if (!m.absent.empty()) s << "; no part from rank(s) " << list(m.absent);
      said = s.str();
      merged = true;
    } catch (const store::Error& e) {
      warnings.push_back(std::string("could not merge the ranks' traces: ") + e.what() +
                         "; the parts stay beside " + trace + " (trainscope merge " + trace + ")");
    }
    if (merged)
      for (const std::string& p : parts) remove_part(p);
  }
  return said;
}

}  // namespace ts::cli
