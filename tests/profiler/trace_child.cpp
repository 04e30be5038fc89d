// A traced program the capture tests run as a child process.
//   trace_child env N              zones only; the session comes from TRAINSCOPE_TRACE
//   trace_child until-killed PATH  records from two threads until SIGKILL; prints "ready", then
//                                  "flushed N" each time the first N events are committed
//   trace_child fsize PATH BYTES [ignore|default]
//                                  records into a file limited to BYTES (write errors), with
//                                  SIGXFSZ ignored or left at its default action (terminate);
//                                  prints how the recording ended and "committed N": the
//                                  events known to be committed before the error
#include <sys/resource.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "trainscope/trace.hpp"

namespace {

std::atomic<std::uint64_t> g_zones{0};  // zones ended (recorded) so far

void zones_forever(int id) {
  TS_THREAD_NAME(("worker " + std::to_string(id)).c_str());
  for (;;) {
    {
      TS_ZONE("busy", host_compute);
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
    g_zones.fetch_add(1, std::memory_order_release);
  }
}

int until_killed(const char* path) {
  ts::trace::start(path);
  std::thread a(zones_forever, 1), b(zones_forever, 2);
  std::printf("ready\n");
  std::fflush(stdout);
  for (;;) {  // the parent kills us
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    const std::uint64_t recorded = g_zones.load(std::memory_order_acquire);
    ts::trace::flush();  // returns once every event recorded before it is committed
    const auto stats = ts::trace::session_stats();
    std::printf("flushed %llu dropped %llu\n", static_cast<unsigned long long>(recorded),
                static_cast<unsigned long long>(stats.events_dropped));
    std::fflush(stdout);
  }
}

int env_mode(int n) {
  if (std::getenv("TRAINSCOPE_TRACE_STEPS") != nullptr) {  // steps 0..n-1 of one zone each
    for (int i = 0; i < n; ++i) {
      TS_STEP(i);
      TS_ZONE("env zone", other);
    }
    return 0;
  }
  if (!ts::trace::recording()) std::fprintf(stderr, "not recording\n");
  if (ts::trace::recording() && !ts::trace::device_events())
    std::printf("recording without device events\n");
  for (int i = 0; i < n; ++i) {
    TS_ZONE("env zone", other);
  }
  return 0;  // exit() stops the session
}

int fsize_mode(const char* path, long bytes, bool ignore_sigxfsz) {
  // Ignored, writes past the limit fail with EFBIG; at its default action SIGXFSZ would end
  // the process, unless the thread that writes blocks it.
  if (ignore_sigxfsz) std::signal(SIGXFSZ, SIG_IGN);
  rlimit lim{static_cast<rlim_t>(bytes), static_cast<rlim_t>(bytes)};
  setrlimit(RLIMIT_FSIZE, &lim);
  ts::trace::start(path);
  std::uint64_t recorded = 0, committed = 0;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (ts::trace::recording() && std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 1000; ++i) {
      TS_ZONE_ARGS("filling", input_read, 4096, i);
    }
    recorded += 1000;
    ts::trace::flush();
    if (!ts::trace::session_stats().write_failed) committed = recorded;
  }
  const bool stopped = !ts::trace::recording();
  ts::trace::stop();
  std::printf("%s\ncommitted %llu\n", stopped ? "recording stopped" : "still recording",
              static_cast<unsigned long long>(committed));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "env") == 0) return env_mode(std::atoi(argv[2]));
  if (argc >= 3 && std::strcmp(argv[1], "until-killed") == 0) return until_killed(argv[2]);
  if (argc >= 4 && std::strcmp(argv[1], "fsize") == 0)
    return fsize_mode(argv[2], std::atol(argv[3]),
                      argc < 5 || std::strcmp(argv[4], "default") != 0);
  std::fprintf(
      stderr, "usage: trace_child env N | until-killed PATH | fsize PATH BYTES [ignore|default]\n");
  return 2;
}
