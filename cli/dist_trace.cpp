#include "cli/dist_trace.hpp"

#include <pthread.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <thread>
#include <trainscope/session.hpp>
#include <trainscope/trace.hpp>

#include "engine/dist/clock_sync.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/job_merge.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::cli {

namespace {

constexpr int kShipSizeTag = 7311;
constexpr int kShipDataTag = 7312;
constexpr int kShipChunkTag = 7313;
constexpr int kShipAckTag = 7314;
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

// Rank `from` sends its part to rank 0, which writes it where it looked for it and says whether
// it did. Returns whether rank 0 now holds it (on both ranks); what went wrong goes to
// `warnings` on the rank that saw it.
bool ship_part(const JobInfo& job, const std::string& trace, int from,
               std::vector<std::string>& warnings) {
  const std::string path = store::part_path(trace, from);
  if (job.rank == from) {
    const std::string error = send_file(*job.comm, path, 0);
    char stored = 0;
    job.comm->recv(&stored, 1, 0, kShipAckTag);
    if (!error.empty())
      warnings.push_back("could not send this rank's part to rank 0: " + error +
                         "; it is left out of the merged trace and stays at " + path);
    return stored != 0 && error.empty();
  }
  if (job.rank != 0) return false;
  const std::string error = receive_file(*job.comm, path, from);
  const char stored = error.empty() ? 1 : 0;
  job.comm->send(&stored, 1, from, kShipAckTag);
  if (!error.empty())
    warnings.push_back("rank " + std::to_string(from) + "'s part did not arrive: " + error +
                       "; it is left out of the merged trace and stays on rank " +
                       std::to_string(from) + "'s host");
  return stored != 0;
}

}  // namespace

std::string send_file(dist::Communicator& comm, const std::string& path, int to) {
  errno = 0;
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  const int open_error = errno;
  const std::int64_t size = in ? static_cast<std::int64_t>(in.tellg()) : -1;
  comm.send(&size, sizeof size, to, kShipSizeTag);
  if (!in && open_error != 0 && open_error != ENOENT)
    return "cannot open " + path + ": " + std::strerror(open_error);
  if (size <= 0) return "";
  in.seekg(0);
  std::vector<char> chunk(kShipChunk);
  for (std::int64_t done = 0; done < size;) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(size - done, kShipChunk));
    errno = 0;
    in.read(chunk.data(), static_cast<std::streamsize>(n));
    // Every chunk is announced: its length, or -1 when it could not be read in full (an I/O
    // error, or a file that shrank), after which nothing more is sent.
    const bool whole = in && static_cast<std::size_t>(in.gcount()) == n;
    const std::int64_t announced = whole ? static_cast<std::int64_t>(n) : -1;
    comm.send(&announced, sizeof announced, to, kShipChunkTag);
    if (!whole) {
      const int err = errno;
      return "reading " + path + " failed after " + std::to_string(done) + " of " +
             std::to_string(size) + " bytes (" +
             (err != 0 ? std::string(std::strerror(err)) : std::string("the file ended early")) +
             ")";
    }
    comm.send(chunk.data(), n, to, kShipDataTag);
    done += static_cast<std::int64_t>(n);
  }
  return "";
}

std::string receive_file(dist::Communicator& comm, const std::string& path, int from) {
  std::int64_t size = -1;
  comm.recv(&size, sizeof size, from, kShipSizeTag);
  if (size <= 0) return "";  // the sender has no such file: nothing to store
  const std::string tmp = path + ".recv";
  std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
  std::vector<char> chunk(kShipChunk);
  for (std::int64_t done = 0; done < size;) {
    const auto n = static_cast<std::size_t>(std::min<std::int64_t>(size - done, kShipChunk));
    std::int64_t announced = -1;
    comm.recv(&announced, sizeof announced, from, kShipChunkTag);
    if (announced != static_cast<std::int64_t>(n)) {
      out.close();
      std::remove(tmp.c_str());
      return "rank " + std::to_string(from) + " could not read it after " + std::to_string(done) +
             " of " + std::to_string(size) + " bytes";
    }
    comm.recv(chunk.data(), n, from, kShipDataTag);
    out.write(chunk.data(), static_cast<std::streamsize>(n));
    done += static_cast<std::int64_t>(n);
  }
  out.close();
  if (!out) {
    const int err = errno;
    std::remove(tmp.c_str());
    return "could not write " + tmp + ": " + std::strerror(err);
  }
  store::discard_trace_files(path);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return "could not rename " + tmp + " to " + path + ": " + std::strerror(err);
  }
  return "";
}

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
  bool shipped = false;
  for (int r = 1; r < job.size; ++r)
    if (ship[static_cast<std::size_t>(r)] && ship_part(job, trace, r, warnings) && r == job.rank)
      shipped = true;
  // A shipped part lives on in rank 0's copy; the others wait for no merge.
  if (job.rank != 0) {
    if (shipped) store::discard_trace_files(store::part_path(trace, job.rank));
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
      if (!m.absent.empty()) s << "; no part from rank(s) " << store::format_ranks(m.absent, ", ");
      said = s.str();
      merged = true;
    } catch (const store::Error& e) {
      warnings.push_back(std::string("could not merge the ranks' traces: ") + e.what() +
                         "; the parts stay beside " + trace + " (trainscope merge " + trace + ")");
    }
    if (merged)
      for (const std::string& p : parts) store::discard_trace_files(p);
  }
  return said;
}

}  // namespace ts::cli
