// Session control: start() creates the trace and the writer thread, stop() drains and closes.
#include "trainscope/session.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <memory>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>

#include "profiler/capture/collector.hpp"
#include "profiler/capture/core/clock.hpp"
#include "profiler/capture/core/device_sampling.hpp"
#include "profiler/capture/core/runtime.hpp"
#include "profiler/store/writer.hpp"
#include "trainscope/meta_keys.hpp"
#include "trainscope/trace.hpp"

namespace ts::trace {

namespace {

using Clock = std::chrono::steady_clock;

std::string command_line() {
  std::ifstream f("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw)
    if (c == '\0') c = ' ';
  return raw;
}

// CPU time of the calling thread (the writer's cost, for SessionStats).
std::uint64_t thread_cpu_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

// CPU time of the whole process, user and system, in nanoseconds.
std::uint64_t process_cpu_ns() {
  timespec ts{};
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0) return 0;
  return static_cast<std::uint64_t>(ts.tv_sec) * 1'000'000'000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

ClockSource clock_from_env(ClockSource requested) {
  if (requested != ClockSource::automatic) return requested;
  const char* v = std::getenv("TRAINSCOPE_CLOCK");
  if (v == nullptr) return requested;
  const std::string s(v);
  if (s == "monotonic") return ClockSource::monotonic;
  if (s == "tsc") return ClockSource::tsc;
  return requested;
}

class Session {
 public:
  Session(std::string path, const Meta& meta, const SessionOptions& options);
  ~Session();
  void launch();
  void stop_and_join();
  void flush();
  const std::string& path() const { return path_; }
  SessionStats stats() const;

 private:
  void run() noexcept;
  bool cycle(bool commit) noexcept;
  // A sample of the counter "host CPU (cores busy)": the process's CPU time since the previous
  // sample over the wall time since then. Taken at every commit (100 ms), so the analysis can
  // tell a starved host from a slow stage; it costs one clock read per commit.
  void sample_host_cpu() noexcept;
  std::uint64_t last_cpu_ns_ = 0, last_wall_ns_ = 0;
  bool finish() noexcept;
  void fail(const char* what) noexcept;
  void salvage() noexcept;

  std::string path_;
  SessionOptions options_;
  core::Runtime& rt_ = core::runtime();
  core::Calibration cal_;
  std::unique_ptr<store::Writer> writer_;
  std::unique_ptr<capture::Collector> collector_;
  std::thread thread_;

  mutable std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool exited_ = false;
  std::uint64_t flush_requested_ = 0;
  std::uint64_t flush_done_ = 0;
  SessionStats stats_;
  std::string error_;  // the write error that stopped the session (writer thread only)
};

Session::Session(std::string path, const Meta& meta, const SessionOptions& options)
    : path_(std::move(path)), options_(options) {
  if (options_.ring_events < 8 || options_.ring_events > (1u << 26))
    throw TraceError("cannot start trace " + path_ +
                     ": ring_events must be between 8 and 67108864");
  if (options_.steps && (options_.steps->first < 0 || options_.steps->last < options_.steps->first))
    throw TraceError("cannot start trace " + path_ + ": the steps to record must be a range " +
                     "first-last of step numbers, 0 <= first <= last");
  options_.drain_interval_ms = std::max<std::uint32_t>(1, options_.drain_interval_ms);
  options_.commit_interval_ms = std::max<std::uint32_t>(1, options_.commit_interval_ms);
  try {
    store::WriterOptions wo;
    wo.staged = true;  // index at stop(): the traced program pays for a copy per event only
    writer_ = std::make_unique<store::Writer>(path_, wo);
  } catch (const store::Error& e) {
    throw TraceError(e.what());
  }
  // Set by the previous session while it recorded: its sampling choice and event cost.
  rt_.meta.erase(meta_key::kCaptureDeviceEventEvery);
  rt_.meta.erase(meta_key::kCaptureDeviceEventCostNs);
  cal_ = core::calibrate(clock_from_env(options_.clock));
  core::publish_calibration(cal_);
  rt_.ring_events.store(options_.ring_events, std::memory_order_relaxed);
  try {
    store::Writer& w = *writer_;
    w.put_meta(meta_key::kClockOriginNs, std::to_string(core::monotonic_now_ns()));
    w.put_meta(meta_key::kClockSource, cal_.tsc ? "tsc" : "monotonic");
    if (cal_.tsc) {
      std::ostringstream hz;
      hz.precision(12);
      hz << cal_.tsc_hz;
      w.put_meta(meta_key::kClockTscHz, hz.str());
    } else {
      w.put_meta(meta_key::kClockTscUnusedBecause, cal_.why);
    }
    w.put_meta(meta_key::kProcessPid, std::to_string(::getpid()));
    w.put_meta(meta_key::kHostCores,
               std::to_string(std::max(1u, std::thread::hardware_concurrency())));
    w.put_meta(meta_key::kProcessCommandLine, command_line());
    w.put_meta(meta_key::kCaptureRingEvents, std::to_string(options_.ring_events));
    if (!options_.device_events) w.put_meta(meta_key::kCaptureDeviceEvents, "off");
    if (options_.device_events && options_.device_event_every > 1)
      w.put_meta(meta_key::kCaptureDeviceEventEvery, std::to_string(options_.device_event_every));
    if (options_.steps)
      w.put_meta(meta_key::kCaptureSteps, std::to_string(options_.steps->first) + "-" +
                                              std::to_string(options_.steps->last));
    for (const auto& [k, v] : meta) w.put_meta(k, v);
    w.commit();
  } catch (const store::Error& e) {
    throw TraceError(e.what());
  }
  rt_.threads.begin_consuming();
  collector_ = std::make_unique<capture::Collector>(*writer_, cal_, rt_);
}

Session::~Session() {
  if (thread_.joinable()) thread_.join();
}

void Session::launch() {
  try {
    thread_ = std::thread([this] { run(); });
  } catch (const std::system_error& e) {
    rt_.threads.end_consuming(
        [](const core::ThreadBuffer&, const core::Event&, const core::ArgsRecord*) {});
    throw TraceError("cannot start trace " + path_ + ": no writer thread (" + e.what() + ")");
  }
  core::set_device_events(options_.device_events);
  core::configure_device_sampling(options_.device_events ? options_.device_event_every : 1,
                                  SessionOptions::kDeviceEventAutoTargetPct);
  const std::uint32_t on = cal_.tsc ? detail::kTsc : detail::kMonotonic;
  if (options_.steps)
    core::arm_step_window(options_.steps->first, options_.steps->last, on);  // starts paused
  else
    core::set_state(on);
}

// Prints the one warning a failed session gives; the traced program runs on untraced.
void Session::fail(const char* what) noexcept {
  core::disarm_step_window();
  core::set_state(detail::kOff);
  std::fprintf(stderr, "trainscope: %s; tracing stopped (the trace keeps what it held before)\n",
               what);
  try {
    error_ = what;
  } catch (...) {
  }
  std::lock_guard lock(mu_);
  stats_.write_failed = true;
}

void Session::sample_host_cpu() noexcept {
  static constexpr CounterSite kSite{"host CPU (cores busy)"};
  const std::uint64_t cpu = process_cpu_ns();
  const auto wall = static_cast<std::uint64_t>(core::monotonic_now_ns());
  if (last_wall_ns_ != 0 && wall > last_wall_ns_)
    counter(&kSite,
            static_cast<double>(cpu - last_cpu_ns_) / static_cast<double>(wall - last_wall_ns_));
  last_cpu_ns_ = cpu;
  last_wall_ns_ = wall;
}

bool Session::cycle(bool commit) noexcept {
  try {
    collector_->drain();
    collector_->reap();
    collector_->sync_tables();
    if (commit) {
      sample_host_cpu();
      writer_->commit();
    }
    {
      std::lock_guard lock(mu_);
      stats_.events_written = writer_->events_written();
      stats_.events_dropped = collector_->dropped();
      stats_.writer_cpu_ns = thread_cpu_ns();
    }
    return true;
  } catch (const std::exception& e) {
    fail(e.what());
    return false;
  }
}

void Session::run() noexcept {
  set_thread_name("trainscope writer");
  pthread_setname_np(pthread_self(), "ts-trace-writer");  // as top and perf show it
  // A file size limit (RLIMIT_FSIZE) reached by the trace must fail the write with EFBIG, not
  // end the traced program: SIGXFSZ is sent to the writing thread, which keeps it blocked.
  sigset_t xfsz;
  sigemptyset(&xfsz);
  sigaddset(&xfsz, SIGXFSZ);
  pthread_sigmask(SIG_BLOCK, &xfsz, nullptr);

  const auto drain_every = std::chrono::milliseconds(options_.drain_interval_ms);
  const auto commit_every = std::chrono::milliseconds(options_.commit_interval_ms);
  auto next_commit = Clock::now() + commit_every;
  std::unique_lock lock(mu_);
  for (;;) {
    // Wake to drain, and to commit on time even when no event or flush comes.
    cv_.wait_until(lock, std::min(Clock::now() + drain_every, next_commit),
                   [&] { return stop_ || flush_requested_ > flush_done_; });
    if (stop_) break;
    const std::uint64_t target = flush_requested_;
    const bool flushing = target > flush_done_;
    lock.unlock();
    const bool commit = flushing || Clock::now() >= next_commit;
    const bool ok = cycle(commit);
    if (commit) next_commit = Clock::now() + commit_every;
    lock.lock();
    flush_done_ = std::max(flush_done_, target);
    cv_.notify_all();
    if (!ok) break;
  }
  bool failed = stats_.write_failed;
  lock.unlock();
  if (!failed) failed = !finish();
  if (failed) salvage();
  lock.lock();
  stats_.writer_cpu_ns = thread_cpu_ns();
  exited_ = true;
  cv_.notify_all();
}

bool Session::finish() noexcept {
  try {
    collector_->drain();
    collector_->reap(/*last=*/true);
    collector_->sync_tables();
    store::Writer& w = *writer_;
    const std::int64_t mono = core::monotonic_now_ns();
    if (cal_.tsc)  // how far the TSC line drifted from CLOCK_MONOTONIC over the session
      w.put_meta(meta_key::kClockHostDriftNs,
                 std::to_string(cal_.to_ns(detail::ticks(detail::kTsc)) - mono));
    w.put_meta(meta_key::kCaptureEndNs, std::to_string(mono));
    w.put_meta(meta_key::kCaptureEventsWritten, std::to_string(w.events_written()));
    const auto index_start = Clock::now();
    const std::uint64_t index_cpu_start = thread_cpu_ns();
    w.index_staged();
    const std::uint64_t index_cpu = thread_cpu_ns() - index_cpu_start;
    const auto index_ms =
        std::chrono::duration<double, std::milli>(Clock::now() - index_start).count();
    w.put_meta(meta_key::kCaptureEventsMoved, std::to_string(w.events_moved()));
    w.put_meta(meta_key::kCaptureIndexMs, std::to_string(index_ms));
    w.finish();
    std::lock_guard lock(mu_);
    stats_.events_written = w.events_written();
    stats_.events_dropped = collector_->dropped();
    stats_.index_cpu_ns = index_cpu;
  } catch (const std::exception& e) {
    fail(e.what());
    return false;
  }
  if (const std::uint64_t d = collector_->dropped(); d > 0)
    std::fprintf(stderr,
                 "trainscope: %llu events were dropped because a thread's trace buffer was full "
                 "(counted in %s, meta key dropped_events)\n",
                 static_cast<unsigned long long>(d), path_.c_str());
  return true;
}

// After a write error: what the failed transaction and the buffers held is lost; the trace
// keeps its earlier commits and, when the file still takes a few pages, says what was lost.
void Session::salvage() noexcept {
  std::uint64_t lost = 0, dropped = 0, written = 0;
  try {
    store::Writer& w = *writer_;
    lost = (w.events_written() - w.events_committed()) + collector_->discard();
    dropped = collector_->count_dropped();
    written = w.events_committed();
    const std::pair<std::string, std::string> meta[] = {
        {"capture.write_error", error_},
        {"capture.events_written", std::to_string(written)},
        {"capture.events_lost", std::to_string(lost)},
        {"capture.end_ns", std::to_string(core::monotonic_now_ns())},
        {"dropped_events", std::to_string(dropped)},
    };
    w.salvage(meta);
  } catch (...) {
    writer_->salvage({});
  }
  std::lock_guard lock(mu_);
  stats_.events_written = written;
  stats_.events_dropped = dropped;
  stats_.events_lost = lost;
}

void Session::stop_and_join() {
  core::disarm_step_window();
  core::set_state(detail::kOff);
  core::reset_device_sampling();
  // A zone that saw the session active a moment ago may still be writing its event.
  std::this_thread::sleep_for(std::chrono::milliseconds(1));
  {
    std::lock_guard lock(mu_);
    stop_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Session::flush() {
  std::unique_lock lock(mu_);
  if (exited_ || stats_.write_failed) return;
  const std::uint64_t target = ++flush_requested_;
  cv_.notify_all();
  cv_.wait(lock, [&] { return flush_done_ >= target || exited_; });
}

SessionStats Session::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

std::mutex g_control;  // serialises start, stop and flush
Session* g_session = nullptr;
SessionStats g_last_stats;
bool g_hooks_installed = false;

void stop_at_exit() {
  stop();
}

// A forked child has no writer thread: it must not record into buffers nobody drains.
void forget_session_in_child() {
  core::forget_step_window();
  core::set_state(detail::kOff);
  core::reset_device_sampling();
  g_session = nullptr;
}

}  // namespace

void start(std::string_view path, const Meta& meta, const SessionOptions& options) {
  std::lock_guard lock(g_control);
  if (g_session != nullptr)
    throw TraceError("cannot start trace " + std::string(path) + ": a session is already writing " +
                     g_session->path());
  auto s = std::make_unique<Session>(std::string(path), meta, options);
  s->launch();
  g_session = s.release();
  if (!g_hooks_installed) {
    g_hooks_installed = true;
    std::atexit(stop_at_exit);
    pthread_atfork(nullptr, nullptr, forget_session_in_child);
  }
}

void stop() noexcept {
  std::lock_guard lock(g_control);
  Session* s = g_session;
  if (s == nullptr) return;
  s->stop_and_join();
  g_last_stats = s->stats();
  g_session = nullptr;
  delete s;
}

void flush() noexcept {
  std::lock_guard lock(g_control);
  if (g_session != nullptr) g_session->flush();
}

bool session_active() noexcept {
  std::lock_guard lock(g_control);
  return g_session != nullptr;
}

SessionStats session_stats() noexcept {
  std::lock_guard lock(g_control);
  return g_session != nullptr ? g_session->stats() : g_last_stats;
}

}  // namespace ts::trace
