// A traced program the capture tests run as a child process.
//   trace_child env N              zones only; the session comes from TRAINSCOPE_TRACE
//   trace_child until-killed PATH  records from two threads until SIGKILL; prints "ready"
//   trace_child fsize PATH BYTES   records into a file limited to BYTES (write errors)
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

void zones_forever(int id) {
  TS_THREAD_NAME(("worker " + std::to_string(id)).c_str());
  for (std::int64_t i = 0;; ++i) {
    TS_ZONE("busy", host_compute);
    std::this_thread::sleep_for(std::chrono::microseconds(50));
  }
}

int until_killed(const char* path) {
  ts::trace::start(path);
  std::thread a(zones_forever, 1), b(zones_forever, 2);
  std::printf("ready\n");
  std::fflush(stdout);
  a.join();  // never returns: the parent kills us
  b.join();
  return 0;
}

int env_mode(int n) {
  if (!ts::trace::recording()) std::fprintf(stderr, "not recording\n");
  for (int i = 0; i < n; ++i) {
    TS_ZONE("env zone", other);
  }
  return 0;  // exit() stops the session
}

int fsize_mode(const char* path, long bytes) {
  std::signal(SIGXFSZ, SIG_IGN);  // writes past the limit fail with EFBIG instead
  rlimit lim{static_cast<rlim_t>(bytes), static_cast<rlim_t>(bytes)};
  setrlimit(RLIMIT_FSIZE, &lim);
  ts::trace::start(path);
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(3);
  while (ts::trace::recording() && std::chrono::steady_clock::now() < until) {
    for (int i = 0; i < 1000; ++i) {
      TS_ZONE_ARGS("filling", input_read, 4096, i);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  const bool stopped = !ts::trace::recording();
  ts::trace::stop();
  std::printf("%s\n", stopped ? "recording stopped" : "still recording");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 3 && std::strcmp(argv[1], "env") == 0) return env_mode(std::atoi(argv[2]));
  if (argc >= 3 && std::strcmp(argv[1], "until-killed") == 0) return until_killed(argv[2]);
  if (argc >= 4 && std::strcmp(argv[1], "fsize") == 0)
    return fsize_mode(argv[2], std::atol(argv[3]));
  std::fprintf(stderr, "usage: trace_child env N | until-killed PATH | fsize PATH BYTES\n");
  return 2;
}
