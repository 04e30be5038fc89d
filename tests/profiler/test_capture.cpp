// Capture end to end in this process: instrumented threads -> rings -> writer thread -> SQLite
// -> reader. (Captures of child processes, killed or failing to write: test_capture_child.cpp.)
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <filesystem>
#include <map>
#include <thread>
#include <vector>

#include "profiler/store/overview_codec.hpp"
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
  EXPECT_GT(stats.writer_cpu_ns, 0u);
  EXPECT_EQ(stats.events_lost, 0u);

  Reader r(path);
  const std::int64_t device_events = kThreads * kZonesPerThread / 100;
  const std::int64_t expected = 3 * 4 + kThreads * kZonesPerThread * 2 + device_events;
  EXPECT_EQ(r.event_count(), expected);
  EXPECT_EQ(static_cast<std::uint64_t>(r.event_count()), stats.events_written);
  // The stopped capture stored its overview, holding every event.
  const auto overview = ts::store::stored_overview(r);
  ASSERT_TRUE(overview.has_value());
  EXPECT_EQ(static_cast<std::int64_t>(overview->events), expected);

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
    // Ordered by start, each "load sample" zone right before the "decode sample" zone nested
    // in it. The two often start (and end) on the same TSC tick (10 ns here): the writer then
    // moves the enclosing zone earlier or the nested one later, never the other way round.
    for (std::size_t k = 0; k + 1 < ev.size(); k += 2) {
      const auto& parent = ev[k];
      const auto& child = ev[k + 1];
      ASSERT_EQ(r.name(parent), "load sample") << "pair " << k / 2;
      ASSERT_EQ(r.name(child), "decode sample") << "pair " << k / 2;
      EXPECT_EQ(parent.category, tt::Category::input_read);
      EXPECT_EQ(child.category, tt::Category::input_decode);
      EXPECT_EQ(child.bytes, 784);
      EXPECT_LT(parent.start_ns, child.start_ns);
      EXPECT_LE(child.end_ns(), parent.end_ns());
      EXPECT_GE(parent.start_ns, t_begin - 16);
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

// Zones nested three deep with nothing else in them, and steps whose first zone starts with
// them, often begin (and end) on the same TSC tick; drains every millisecond split such groups
// between batches. Stored, every parent starts before its children and ends no earlier.
TEST(Capture, ZonesStartingOnOneTickAreStoredParentFirst) {
  TempDir dir;
  const auto path = dir.file("ticks.db");
  tt::SessionOptions opts;
  opts.drain_interval_ms = 1;
  tt::start(path, {}, opts);
  constexpr int kRounds = 20000;
  std::thread t([] {
    TS_THREAD_NAME("nested");
    for (int i = 0; i < kRounds; ++i) {
      TS_ZONE("outer", other);
      TS_ZONE("middle", other);
      TS_ZONE("inner", other);
    }
  });
  std::thread steps([] {
    TS_THREAD_NAME("stepper");
    for (int s = 0; s < kRounds; ++s) {
      TS_STEP(s);
      TS_ZONE("first in step", host_compute);
    }
  });
  t.join();
  steps.join();
  tt::stop();
  EXPECT_EQ(tt::session_stats().events_dropped, 0u);

  Reader r(path);
  std::map<std::string, std::uint32_t> track;
  for (const auto& tr : r.tracks()) track[tr.name] = tr.id;
  const auto nested = r.events(INT64_MIN, INT64_MAX, track.at("nested"));
  ASSERT_EQ(nested.size(), 3u * kRounds);
  const char* names[] = {"outer", "middle", "inner"};
  for (std::size_t k = 0; k < nested.size(); ++k) {
    ASSERT_EQ(r.name(nested[k]), names[k % 3]) << "event " << k;
    if (k % 3 == 0) continue;
    const auto& parent = nested[k - 1];
    ASSERT_LT(parent.start_ns, nested[k].start_ns) << "event " << k;
    ASSERT_LE(nested[k].end_ns(), parent.end_ns()) << "event " << k;
  }
  const auto stepped = r.events(INT64_MIN, INT64_MAX, track.at("stepper"));
  ASSERT_EQ(stepped.size(), 2u * kRounds);
  for (std::size_t k = 0; k < stepped.size(); k += 2) {
    ASSERT_EQ(stepped[k].category, tt::Category::step) << "event " << k;
    ASSERT_EQ(r.name(stepped[k + 1]), "first in step") << "event " << k;
    ASSERT_LT(stepped[k].start_ns, stepped[k + 1].start_ns) << "event " << k;
    ASSERT_LE(stepped[k + 1].end_ns(), stepped[k].end_ns()) << "event " << k;
    ASSERT_EQ(stepped[k + 1].step, stepped[k].step);
  }
  // The public view, ordered by start as traces/README.md shows, lists parents first too.
  const auto q = ts::test::sql(
      path, "SELECT name FROM events WHERE track = " + std::to_string(track.at("nested")) +
                " ORDER BY start_ns LIMIT 3000");
  ASSERT_EQ(q.rows.size(), 3000u);
  for (std::size_t k = 0; k < q.rows.size(); ++k) ASSERT_EQ(q.rows[k][0], names[k % 3]) << k;
  RecordProperty("events_moved", r.meta("capture.events_moved").value_or("?"));
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

// Runs start(path) in a child process without root's privileges (root may write anywhere)
// and returns the TraceError message, or a note when start() did not throw.
std::string start_error_unprivileged(const std::string& path) {
  int fds[2];
  if (::pipe(fds) != 0) return "pipe failed";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::string msg = "start() did not throw";
    if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) {
      msg = "setuid failed";
    } else {
      try {
        tt::start(path);
      } catch (const tt::TraceError& e) {
        msg = e.what();
      }
    }
    if (::write(fds[1], msg.data(), msg.size()) < 0) ::_exit(3);
    ::_exit(0);
  }
  ::close(fds[1]);
  std::string msg;
  char buf[512];
  for (ssize_t n; (n = ::read(fds[0], buf, sizeof buf)) > 0;)
    msg.append(buf, static_cast<std::size_t>(n));
  ::close(fds[0]);
  ts::test::wait_exit_code(pid);
  return msg;
}

TEST(Capture, UnwritableDirectoryAndDirectoryPathsFailClearlyAtStart) {
  TempDir dir;
  const std::string locked = dir.file("locked");
  std::filesystem::create_directory(locked);
  std::filesystem::permissions(
      locked, std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  const std::string denied = locked + "/run.db";
  const std::string msg = start_error_unprivileged(denied);
  EXPECT_TRUE(contains(msg, "cannot create trace " + denied)) << msg;
  EXPECT_TRUE(contains(msg, "Permission denied")) << msg;

  const std::string a_dir = dir.file("adir");
  std::filesystem::create_directory(a_dir);
  try {
    tt::start(a_dir);
    FAIL() << "start() accepted the directory " << a_dir;
  } catch (const tt::TraceError& e) {
    EXPECT_EQ(std::string(e.what()), "cannot create trace " + a_dir + ": it is a directory");
  }
  EXPECT_FALSE(tt::session_active());
  EXPECT_FALSE(tt::recording());
  EXPECT_TRUE(std::filesystem::is_directory(a_dir));
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

// A SIGKILL loses at most about a second. The writer commits every
// commit_interval_ms (100 by default) even when no event and no flush() wakes it, and drains
// before committing even when its drain interval is longer.
TEST(Capture, CommitsOnTimeWithoutFlushOrNewEvents) {
  EXPECT_LE(tt::SessionOptions{}.commit_interval_ms, 1000u);
  TempDir dir;
  const auto path = dir.file("stalled.db");
  tt::SessionOptions opts;
  opts.drain_interval_ms = 600'000;  // only the commit schedule wakes the writer
  tt::start(path, {}, opts);
  for (int i = 0; i < 100; ++i) {
    TS_ZONE("before the stall", other);
  }
  // Nothing more is recorded: wait up to a second for the events to be committed.
  std::int64_t seen = 0;
  for (int i = 0; i < 20 && seen < 100; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    seen = Reader(path).event_count();
  }
  EXPECT_EQ(seen, 100);
  tt::stop();
  EXPECT_EQ(Reader(path).event_count(), 100);
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

// SessionOptions::steps: nothing before the first step of the range, the steps first..last with
// what runs inside them, nothing after; a range never reached records nothing, and a stop ends
// an armed range (no later session or step switches recording on).
TEST(Capture, AStepRangeRecordsThoseStepsOnly) {
  TempDir dir;
  const auto run_steps = [](std::int64_t from, std::int64_t to) {
    for (std::int64_t step = from; step < to; ++step) {
      TS_STEP(step);
      TS_ZONE("in step", host_compute);
    }
    TS_ZONE("after the steps", other);
  };
  tt::SessionOptions options;
  options.steps = tt::SessionOptions::StepRange{3, 5};
  const auto path = dir.file("window.db");
  tt::start(path, {}, options);
  EXPECT_FALSE(tt::recording());
  { TS_ZONE("before the steps", other); }
  run_steps(0, 10);
  EXPECT_FALSE(tt::recording());
  tt::stop();
  const Reader r(path);
  const std::vector<ts::store::Step> steps = r.steps();
  ASSERT_EQ(steps.size(), 3u);
  for (std::size_t i = 0; i < steps.size(); ++i) EXPECT_EQ(steps[i].step, 3 + std::int64_t(i));
  const ts::store::TimeRange range = r.time_range();
  const auto events = r.events(range.start_ns, range.end_ns + 1);
  EXPECT_EQ(count_named(r, events, "in step"), 3u);
  EXPECT_EQ(count_named(r, events, "before the steps"), 0u);
  EXPECT_EQ(count_named(r, events, "after the steps"), 0u);
  for (const auto& e : events) {
    if (r.name(e) == "in step") {
      EXPECT_TRUE(e.step >= 3 && e.step <= 5) << e.step;
    }
  }
  EXPECT_EQ(r.meta("capture.steps"), "3-5");

  // A run that starts past the first step of the range records from its first step in it.
  options.steps = tt::SessionOptions::StepRange{2, 6};
  const auto late = dir.file("late.db");
  tt::start(late, {}, options);
  run_steps(4, 9);
  tt::stop();
  EXPECT_EQ(Reader(late).steps().size(), 3u);  // 4, 5, 6

  // A range the run never reaches; then a step of that range after stop() records nothing.
  options.steps = tt::SessionOptions::StepRange{100, 200};
  const auto never = dir.file("never.db");
  tt::start(never, {}, options);
  run_steps(0, 5);
  tt::stop();
  run_steps(100, 101);
  EXPECT_FALSE(tt::recording());
  EXPECT_EQ(Reader(never).event_count(), 0);

  options.steps = tt::SessionOptions::StepRange{5, 4};
  EXPECT_THROW(tt::start(dir.file("bad.db"), {}, options), tt::TraceError);
  EXPECT_FALSE(tt::session_active());
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

}  // namespace
