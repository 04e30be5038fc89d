// Capture end to end: instrumented threads -> rings -> writer thread -> SQLite -> reader.
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "profiler/store/reader.hpp"
#include "tests/profiler/disabled_tu.hpp"
#include "tests/profiler/test_util.hpp"
#include "trainscope/clock_align.hpp"
#include "trainscope/trace.hpp"

namespace {

namespace tt = ts::trace;
using ts::store::Reader;
using ts::test::TempDir;

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

std::size_t count_named(const Reader& r, const std::vector<ts::store::Event>& events,
                        std::string_view name) {
  std::size_t n = 0;
  for (const auto& e : events) n += r.name(e) == name ? 1 : 0;
  return n;
}

constexpr int kThreads = 4;
constexpr int kZonesPerThread = 5000;

void worker(int id, std::uint32_t gpu_track, std::uint32_t kernel_name) {
  TS_THREAD_NAME(("input worker " + std::to_string(id)).c_str());
  for (int i = 0; i < kZonesPerThread; ++i) {
    TS_ZONE("load sample", input_read);
    { TS_ZONE_ARGS("decode sample", input_decode, 784, tt::kCurrentStep); }
    if (i % 100 == 0) {
      TS_COUNTER("queue depth", i / 100);
      const std::int64_t t = tt::now_ns();
      tt::device_event(gpu_track, tt::Category::kernel, kernel_name, t, t + 5000, 0, 1024,
                       tt::kNoStep, 77);
    }
  }
}

TEST(Capture, ManyThreadsRoundTripThroughTheStore) {
  TempDir dir;
  const auto path = dir.file("run.db");
  tt::SessionOptions opts;
  opts.ring_events = 1 << 17;
  tt::start(path, {{"engine.model", "mlp"}, {"command_line", "trainscope train"}}, opts);
  ASSERT_TRUE(tt::recording());
  const std::uint32_t gpu = tt::register_track("gpu0 compute", tt::TrackKind::device_queue);
  const std::uint32_t gemm = tt::intern("gemm_f32");
  tt::set_meta("device.0.name", "test device");
  const std::int64_t t_begin = tt::now_ns();

  TS_THREAD_NAME("trainer");
  for (int step = 0; step < 3; ++step) {
    TS_STEP(step);
    TS_ZONE("forward", host_compute);
    const std::uint32_t layer = tt::intern("dense_" + std::to_string(step));
    TS_ZONE_DYNAMIC(layer, host_compute);
    TS_ZONE_VAR(launch, "enqueue", launch);
    launch.set_correlation(tt::next_correlation_id());
    launch.set_bytes(4096);
  }
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i) threads.emplace_back(worker, i, gpu, gemm);
  for (auto& t : threads) t.join();
  tt::stop();
  EXPECT_FALSE(tt::session_active());
  const auto stats = tt::session_stats();
  EXPECT_EQ(stats.events_dropped, 0u);
  EXPECT_FALSE(stats.write_failed);

  Reader r(path);
  const std::int64_t device_events = kThreads * kZonesPerThread / 100;
  const std::int64_t expected = 3 * 4 + kThreads * kZonesPerThread * 2 + device_events;
  EXPECT_EQ(r.event_count(), expected);
  EXPECT_EQ(static_cast<std::uint64_t>(r.event_count()), stats.events_written);

  // Tracks: the trainer, four named workers, the device queue, the counter.
  std::map<std::string, ts::store::Track> by_name;
  for (const auto& t : r.tracks()) by_name[t.name] = t;
  ASSERT_TRUE(by_name.count("trainer"));
  ASSERT_TRUE(by_name.count("gpu0 compute"));
  ASSERT_TRUE(by_name.count("queue depth"));
  EXPECT_EQ(by_name["gpu0 compute"].kind, tt::TrackKind::device_queue);
  EXPECT_EQ(by_name["queue depth"].kind, tt::TrackKind::counter);
  for (int i = 0; i < kThreads; ++i) {
    const auto name = "input worker " + std::to_string(i);
    ASSERT_TRUE(by_name.count(name)) << name;
    const auto& t = by_name[name];
    EXPECT_EQ(t.kind, tt::TrackKind::thread);
    EXPECT_GT(t.os_tid, 0);
    const auto ev = r.events(INT64_MIN, INT64_MAX, t.id);
    EXPECT_EQ(ev.size(), 2u * kZonesPerThread);
    EXPECT_EQ(count_named(r, ev, "load sample"), std::size_t{kZonesPerThread});
    // Ordered by start; each decode zone nests inside the load zone that precedes it.
    // A parent and its child can start on the same TSC tick (10 ns here); the writer then
    // separates them by a few ns, so the stored order of a pair may be either way round.
    for (std::size_t k = 0; k + 1 < ev.size(); k += 2) {
      auto parent = ev[k], child = ev[k + 1];
      if (parent.category == tt::Category::input_decode) std::swap(parent, child);
      ASSERT_LE(parent.start_ns, child.start_ns + 16);
      EXPECT_EQ(r.name(parent), "load sample");
      EXPECT_EQ(parent.category, tt::Category::input_read);
      EXPECT_EQ(child.category, tt::Category::input_decode);
      EXPECT_EQ(child.bytes, 784);
      EXPECT_LE(child.end_ns(), parent.end_ns() + 16);
      EXPECT_GE(parent.start_ns, t_begin);
    }
  }

  // Steps: three, each holding its own zones with the step number.
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 3u);
  for (int s = 0; s < 3; ++s) {
    EXPECT_EQ(steps[s].step, s);
    EXPECT_EQ(steps[s].track, by_name["trainer"].id);
    const auto in_step = r.step_events(s);
    EXPECT_EQ(in_step.size(), 4u);
    EXPECT_EQ(count_named(r, in_step, "dense_" + std::to_string(s)), 1u);
    for (const auto& e : in_step) {
      EXPECT_GE(e.start_ns, steps[s].start_ns);
      EXPECT_LE(e.end_ns(), steps[s].start_ns + steps[s].dur_ns);
      if (r.name(e) == "enqueue") {
        EXPECT_EQ(e.category, tt::Category::launch);
        EXPECT_EQ(e.bytes, 4096);
        EXPECT_GT(r.args(e).correlation, 0);
      }
    }
  }

  // Device events keep their host-clock timestamps, work size and correlation id.
  const auto gpu_events = r.events(INT64_MIN, INT64_MAX, by_name["gpu0 compute"].id);
  ASSERT_EQ(static_cast<std::int64_t>(gpu_events.size()), device_events);
  EXPECT_EQ(gpu_events[0].dur_ns, 5000);
  EXPECT_EQ(gpu_events[0].category, tt::Category::kernel);
  EXPECT_EQ(r.name(gpu_events[0]), "gemm_f32");
  EXPECT_EQ(gpu_events[0].step, ts::store::kNull);
  EXPECT_EQ(r.args(gpu_events[0]).work_size, 1024);
  EXPECT_EQ(r.args(gpu_events[0]).correlation, 77);

  const auto samples = r.counter(by_name["queue depth"].id, INT64_MIN, INT64_MAX);
  EXPECT_EQ(samples.size(), static_cast<std::size_t>(device_events));

  EXPECT_EQ(r.meta("engine.model"), "mlp");
  EXPECT_EQ(r.meta("device.0.name"), "test device");
  EXPECT_EQ(r.meta("dropped_events"), "0");
  EXPECT_TRUE(r.meta("clock.origin_ns").has_value());
  EXPECT_TRUE(r.meta("clock.source").has_value());

  // The public views agree with the reader.
  const auto v = ts::test::sql(path, "SELECT count(*) FROM events");
  EXPECT_EQ(v.rows.at(0).at(0), std::to_string(r.event_count()));
  const auto cats = ts::test::sql(
      path, "SELECT category, count(*) FROM events GROUP BY category ORDER BY category");
  std::map<std::string, std::string> per_cat;
  for (const auto& row : cats.rows) per_cat[row[0]] = row[1];
  EXPECT_EQ(per_cat["input_read"], std::to_string(kThreads * kZonesPerThread));
  EXPECT_EQ(per_cat["kernel"], std::to_string(device_events));
  EXPECT_EQ(per_cat["step"], "3");
  EXPECT_EQ(ts::test::sql(path, "SELECT count(*) FROM steps").rows.at(0).at(0), "3");
}

TEST(Capture, FullRingDropsEventsAndTheTraceCountsThem) {
  TempDir dir;
  const auto path = dir.file("drops.db");
  tt::SessionOptions opts;
  opts.ring_events = 64;
  opts.drain_interval_ms = 5000;  // the burst below is over long before the first drain
  opts.commit_interval_ms = 5000;
  tt::start(path, {}, opts);
  constexpr int kBurst = 10000;
  std::thread t([] {
    TS_THREAD_NAME("bursty");
    for (int i = 0; i < kBurst; ++i) {
      TS_ZONE("tiny", other);
    }
  });
  t.join();
  tt::stop();
  const auto stats = tt::session_stats();
  Reader r(path);
  EXPECT_GT(stats.events_dropped, 0u);
  EXPECT_EQ(r.event_count() + static_cast<std::int64_t>(stats.events_dropped), kBurst);
  EXPECT_EQ(r.meta("dropped_events"), std::to_string(stats.events_dropped));
  std::uint32_t bursty = 0;
  for (const auto& tr : r.tracks())
    if (tr.name == "bursty") bursty = tr.id;
  ASSERT_NE(bursty, 0u);
  EXPECT_EQ(r.meta("dropped_events.track." + std::to_string(bursty)),
            std::to_string(stats.events_dropped));
}

TEST(Capture, DisabledTranslationUnitRecordsNothing) {
  TempDir dir;
  const auto path = dir.file("disabled.db");
  tt::start(path);
  EXPECT_EQ(ts::test::run_disabled_instrumentation(100), 0);
  { TS_ZONE("enabled zone", other); }
  tt::stop();
  Reader r(path);
  const auto all = r.events(INT64_MIN, INT64_MAX);
  EXPECT_EQ(count_named(r, all, "enabled zone"), 1u);
  EXPECT_EQ(all.size(), 1u);
  EXPECT_TRUE(r.steps().empty());
}

TEST(Capture, UnwritablePathFailsClearlyAtStart) {
  TempDir dir;
  const std::string missing_dir = dir.file("no/such/dir/run.db");
  try {
    tt::start(missing_dir);
    FAIL() << "start() accepted " << missing_dir;
  } catch (const tt::TraceError& e) {
    EXPECT_TRUE(contains(e.what(), missing_dir)) << e.what();
    EXPECT_TRUE(contains(e.what(), "cannot create trace")) << e.what();
  }
  EXPECT_FALSE(tt::session_active());
  EXPECT_FALSE(tt::recording());

  const std::string file = dir.file("plain");
  ts::test::write_file(file, "x");
  try {
    tt::start(file + "/run.db");  // a regular file used as a directory
    FAIL();
  } catch (const tt::TraceError& e) {
    EXPECT_TRUE(contains(e.what(), file + "/run.db")) << e.what();
    EXPECT_TRUE(contains(e.what(), "Not a directory")) << e.what();
  }
  EXPECT_FALSE(tt::session_active());
}

TEST(Capture, OneSessionAtATime) {
  TempDir dir;
  tt::start(dir.file("a.db"));
  try {
    tt::start(dir.file("b.db"));
    FAIL();
  } catch (const tt::TraceError& e) {
    EXPECT_TRUE(contains(e.what(), dir.file("a.db"))) << e.what();
  }
  tt::stop();
  tt::stop();  // idempotent
}

TEST(Capture, FlushMakesEventsVisibleWhileRecording) {
  TempDir dir;
  const auto path = dir.file("live.db");
  tt::start(path);
  { TS_ZONE("before flush", other); }
  tt::flush();
  {
    Reader live(path);
    EXPECT_EQ(live.event_count(), 1);
  }
  tt::stop();
}

TEST(Capture, ThreadsThatExitDuringTheSessionKeepTheirEvents) {
  TempDir dir;
  const auto path = dir.file("exit.db");
  tt::start(path);
  for (int round = 0; round < 20; ++round) {
    std::thread([] {
      for (int i = 0; i < 50; ++i) {
        TS_ZONE("short-lived", other);
      }
    }).join();
  }
  tt::stop();
  EXPECT_EQ(Reader(path).event_count(), 20 * 50);
}

TEST(Capture, RestartedSessionHoldsOnlyItsOwnEvents) {
  TempDir dir;
  for (int s = 0; s < 3; ++s) {
    const auto path = dir.file(std::to_string(s) + ".db");
    tt::start(path);
    for (int i = 0; i <= s; ++i) {
      TS_ZONE("per session", other);
    }
    tt::stop();
    {
      TS_ZONE("between sessions", other);  // not recorded anywhere
    }
    EXPECT_EQ(Reader(path).event_count(), s + 1);
  }
}

TEST(Capture, MonotonicClockSessionsUseClockGettime) {
  TempDir dir;
  const auto path = dir.file("mono.db");
  tt::SessionOptions opts;
  opts.clock = tt::ClockSource::monotonic;
  tt::start(path, {}, opts);
  const std::int64_t before = ts::test::monotonic_ns_for_test();
  { TS_ZONE("mono", other); }
  const std::int64_t after = ts::test::monotonic_ns_for_test();
  tt::stop();
  Reader r(path);
  EXPECT_EQ(r.meta("clock.source"), "monotonic");
  const auto e = r.events(INT64_MIN, INT64_MAX);
  ASSERT_EQ(e.size(), 1u);
  EXPECT_GE(e[0].start_ns, before);
  EXPECT_LE(e[0].end_ns(), after);
}

TEST(Capture, ClockAlignmentLandsInMeta) {
  TempDir dir;
  const auto path = dir.file("align.db");
  tt::start(path);
  tt::ClockAligner a;
  a.add(1'000'000, tt::now_ns());
  a.add(2'000'000, tt::now_ns() + 1'000'000);
  tt::record_clock_alignment("gpu0", a.fit());
  tt::stop();
  Reader r(path);
  EXPECT_TRUE(r.meta("clock.device.gpu0.offset_ns").has_value());
  EXPECT_EQ(r.meta("clock.device.gpu0.pairs"), "2");
}

// --- child processes -------------------------------------------------------------------------

TEST(CaptureChild, SigkillLeavesATraceHoldingTheLastSecond) {
  TempDir dir;
  const auto path = dir.file("killed.db");
  const pid_t pid =
      ts::test::spawn({TS_TRACE_CHILD, "until-killed", path}, {}, dir.file("out"), dir.file("err"));
  for (int i = 0; i < 500 && ts::test::read_file(dir.file("out")).empty(); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_EQ(ts::test::read_file(dir.file("out")), "ready\n")
      << ts::test::read_file(dir.file("err"));
  std::this_thread::sleep_for(std::chrono::milliseconds(2500));
  const std::int64_t kill_ns = ts::test::monotonic_ns_for_test();
  ::kill(pid, SIGKILL);
  EXPECT_EQ(ts::test::wait_exit_code(pid), 128 + SIGKILL);
  ASSERT_TRUE(std::filesystem::exists(path + "-wal"));  // never finished: still in WAL mode

  Reader r(path);
  EXPECT_GT(r.event_count(), 1000);
  const auto range = r.time_range();
  // Everything up to the last commit (every 100 ms) is there: the trace reaches within about
  // a second of the kill.
  EXPECT_GT(range.end_ns, kill_ns - 1'000'000'000)
      << "trace ends " << (kill_ns - range.end_ns) / 1e6 << " ms before the kill";
  EXPECT_LE(range.end_ns, kill_ns);
  int workers = 0;
  for (const auto& t : r.tracks()) workers += contains(t.name, "worker") ? 1 : 0;
  EXPECT_EQ(workers, 2);
}

TEST(CaptureChild, EnvironmentVariableTracesAWholeRun) {
  TempDir dir;
  const auto path = dir.file("env.db");
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "env", "1000"}, {"TRAINSCOPE_TRACE=" + path},
                                    dir.file("out"), dir.file("err"));
  ASSERT_EQ(ts::test::wait_exit_code(pid), 0) << ts::test::read_file(dir.file("err"));
  EXPECT_EQ(ts::test::read_file(dir.file("err")), "");
  EXPECT_FALSE(std::filesystem::exists(path + "-wal"));  // stopped cleanly at exit
  Reader r(path);
  EXPECT_EQ(r.event_count(), 1000);
  EXPECT_EQ(r.meta("capture.activation"), "TRAINSCOPE_TRACE");
  EXPECT_TRUE(contains(r.meta("process.command_line").value_or(""), "env 1000"));
}

TEST(CaptureChild, EnvironmentVariableWithABadPathWarnsAndRunsUntraced) {
  TempDir dir;
  const auto bad = dir.file("missing/dir/env.db");
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "env", "10"}, {"TRAINSCOPE_TRACE=" + bad},
                                    dir.file("out"), dir.file("err"));
  EXPECT_EQ(ts::test::wait_exit_code(pid), 0);
  const auto err = ts::test::read_file(dir.file("err"));
  EXPECT_TRUE(contains(err, "trainscope: TRAINSCOPE_TRACE: cannot create trace " + bad)) << err;
  EXPECT_TRUE(contains(err, "running without tracing")) << err;
}

TEST(CaptureChild, WriteErrorStopsTracingWithOneWarning) {
  TempDir dir;
  const auto path = dir.file("full.db");
  const pid_t pid = ts::test::spawn({TS_TRACE_CHILD, "fsize", path, "4000000"}, {}, dir.file("out"),
                                    dir.file("err"));
  EXPECT_EQ(ts::test::wait_exit_code(pid), 0) << ts::test::read_file(dir.file("err"));
  EXPECT_EQ(ts::test::read_file(dir.file("out")), "recording stopped\n");
  const auto err = ts::test::read_file(dir.file("err"));
  EXPECT_TRUE(contains(err, "cannot write trace " + path)) << err;
  const auto first = err.find("tracing stopped");
  ASSERT_NE(first, std::string::npos) << err;
  EXPECT_EQ(err.find("tracing stopped", first + 1), std::string::npos) << "warned twice: " << err;
}

}  // namespace
