// `trainscope train --trace FILE`: a traced run on each backend holds events of every category
// with consistent steps, --trace-device off keeps the host side only, --trace-steps a range of
// steps, and a run killed with SIGKILL leaves a trace holding nearly all of the steps it had
// started.
#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <map>
#include <set>

#include "child_process.hpp"
#include "digits_folder.hpp"
#include "engine/backend/factory.hpp"
#include "profiler/store/reader.hpp"
#include "run_command.hpp"

namespace ts {
namespace {

using test::run_trainscope;
namespace fs = std::filesystem;

class TrainTrace : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { data_ = new test::DigitsFolder("ts_train_trace", 256); }
  static void TearDownTestSuite() {
    delete data_;
    data_ = nullptr;
  }
  static test::DigitsFolder* data_;
};
test::DigitsFolder* TrainTrace::data_ = nullptr;

bool have_backend(const std::string& kind) {
  return kind == "cpu" || !list_devices().empty();
}

// Calls fn(track, event) for every event of the trace, track by track.
void each_event(const store::Reader& reader,
                const std::function<void(const store::Track&, const store::Event&)>& fn) {
  const store::TimeRange range = reader.time_range();
  for (const store::Track& t : reader.tracks())
    for (const store::Event& e : reader.events(range.start_ns, range.end_ns + 1, t.id)) fn(t, e);
}

TEST_P(TrainTrace, HoldsEveryCategoryAndOneStepPerTrainingStep) {
  if (!have_backend(GetParam())) GTEST_SKIP() << "no OpenCL device";
  const std::string trace = data_->file("run_" + GetParam() + ".db");
  // Mixed precision converts batches on the host (host_compute); augmentation maps samples
  // (input_map); the image folder is read and decoded (input_read, input_decode).
  const auto r = run_trainscope(
      "train --backend " + GetParam() + " --epochs 2 --dataset images:" + data_->digits() +
      " --pipeline tuned --augment shift:2 --precision mixed --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("Trace: " + trace), std::string::npos) << r.out;

  store::Reader reader(trace);
  std::map<trace::Category, std::int64_t> count;
  std::set<std::string> track_kinds;
  for (const store::Track& t : reader.tracks())
    track_kinds.insert(std::string(trace::track_kind_name(t.kind)));
  each_event(reader, [&](const store::Track&, const store::Event& e) {
    ++count[e.category];
    if (e.category == trace::Category::h2d || e.category == trace::Category::d2h) {
      EXPECT_GT(e.bytes, 0) << reader.name(e);
    }
  });
  for (int c = 0; c < trace::kCategoryCount; ++c) {
    const auto cat = static_cast<trace::Category>(c);
    if (cat == trace::Category::collective) continue;  // one process: nothing to communicate
    // The trainer collates a batch itself only without input workers (this run has them).
    if (cat == trace::Category::input_batch) continue;
    // A wait for input happens only when no batch was ready, which depends on the machine's
    // load here: TraceInputWait makes one on purpose.
    if (cat == trace::Category::input_wait) continue;
    EXPECT_GT(count[cat], 0) << "no events of category " << trace::category_name(cat);
  }
  EXPECT_TRUE(track_kinds.count("device_queue"));
  EXPECT_TRUE(track_kinds.count("counter"));

  // 256 samples in batches of 32: 8 steps per epoch, numbered 0..15. Every batch fetch is one
  // "take batch" hand-over inside a step (with prefetch to device, step k fetches batch k+1, and
  // the first step of an epoch also its own); an input wait lies inside one, when there was one.
  const std::vector<store::Step> steps = reader.steps();
  ASSERT_EQ(steps.size(), 16u);
  std::int64_t takes = 0;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    EXPECT_EQ(steps[i].step, static_cast<std::int64_t>(i));
    for (const store::Event& e : reader.step_events(steps[i].step))
      takes += e.category == trace::Category::input_handoff && reader.name(e) == "take batch";
  }
  EXPECT_EQ(takes, 16);
  EXPECT_EQ(reader.meta("engine.backend").value_or(""), GetParam());
  EXPECT_NE(reader.meta("pipeline.parallel"), std::nullopt);
}

// --trace-device off: the same steps, input pipeline, launches and waits, and no device-queue
// event; the report analyses host time and says no device events were recorded.
TEST_P(TrainTrace, TraceDeviceOffRecordsTheHostSideOnly) {
  if (!have_backend(GetParam())) GTEST_SKIP() << "no OpenCL device";
  const std::string trace = data_->file("host_only_" + GetParam() + ".db");
  const auto r =
      run_trainscope("train --backend " + GetParam() +
                     " --epochs 2 --dataset synthetic:256 --trace-device off --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  store::Reader reader(trace);
  EXPECT_EQ(reader.meta("capture.device_events").value_or(""), "off");
  EXPECT_EQ(reader.steps().size(), 16u);
  std::map<trace::Category, std::int64_t> count;
  each_event(reader, [&](const store::Track& t, const store::Event& e) {
    EXPECT_NE(t.kind, trace::TrackKind::device_queue) << t.name << ": " << reader.name(e);
    ++count[e.category];
  });
  EXPECT_GT(count[trace::Category::input_handoff], 0);  // every batch taken
  EXPECT_GT(count[trace::Category::sync], 0);
  if (GetParam() == "opencl") {
    EXPECT_GT(count[trace::Category::launch], 0);
  }
  EXPECT_EQ(count[trace::Category::kernel], 0);
  const auto report = run_trainscope("report " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("no device-queue events recorded: the capture left them out "
                            "(--trace-device off)"),
            std::string::npos)
      << report.out;
  const auto check = run_trainscope("check " + trace + " --max-device-idle-pct 50");
  EXPECT_EQ(check.status, 1);
  EXPECT_NE(check.err.find("no device activity (captured with --trace-device off)"),
            std::string::npos)
      << check.err;
}

// --trace-device every:4: device events on steps 0, 4, 8, ... only, every step's host side, and
// a report that says its device figures come from those steps.
TEST_P(TrainTrace, TraceDeviceEveryFourSamplesTheSteps) {
  if (!have_backend(GetParam())) GTEST_SKIP() << "no OpenCL device";
  const std::string trace = data_->file("every4_" + GetParam() + ".db");
  const auto r =
      run_trainscope("train --backend " + GetParam() +
                     " --steps 12 --dataset synthetic:256 --trace-device every:4 --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  store::Reader reader(trace);
  EXPECT_EQ(reader.meta("capture.device_event_every").value_or(""), "4");
  EXPECT_EQ(reader.meta("capture.device_event_cost_ns").has_value(), GetParam() == "opencl");
  EXPECT_EQ(reader.steps().size(), 12u);
  std::set<std::int64_t> device_steps, synced_steps;
  each_event(reader, [&](const store::Track& t, const store::Event& e) {
    if (t.kind == trace::TrackKind::device_queue && e.step != store::kNull)
      device_steps.insert(e.step);
    if (e.category == trace::Category::sync && e.step != store::kNull) synced_steps.insert(e.step);
  });
  EXPECT_EQ(device_steps, (std::set<std::int64_t>{0, 4, 8}));
  EXPECT_EQ(synced_steps.size(), 12u) << "every step keeps its host side";
  const auto report = run_trainscope("report " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  // Step 0 is the warm-up: steps 1-11 are analysed, 4 and 8 hold device events.
  EXPECT_NE(report.out.find("device figures from 1 step in 4 (2 of 11 steps) — sampled"),
            std::string::npos)
      << report.out;
}

// --trace-steps A-B: the trace holds steps A to B and nothing recorded before A began; the
// report leaves the first of them out as the warm-up, saying why.
TEST_P(TrainTrace, TraceStepsRecordsThoseStepsOnly) {
  if (!have_backend(GetParam())) GTEST_SKIP() << "no OpenCL device";
  const std::string trace = data_->file("window_" + GetParam() + ".db");
  const auto r =
      run_trainscope("train --backend " + GetParam() +
                     " --epochs 2 --dataset synthetic:256 --trace-steps 5-11 --trace " + trace);
  ASSERT_EQ(r.status, 0) << r.err;
  store::Reader reader(trace);
  EXPECT_EQ(reader.meta("capture.steps").value_or(""), "5-11");
  const std::vector<store::Step> steps = reader.steps();
  ASSERT_EQ(steps.size(), 7u);
  for (std::size_t i = 0; i < steps.size(); ++i)
    EXPECT_EQ(steps[i].step, 5 + static_cast<std::int64_t>(i));
  std::int64_t events = 0;
  each_event(reader, [&](const store::Track& t, const store::Event& e) {
    ++events;
    EXPECT_GE(e.start_ns, steps.front().start_ns) << t.name << ": " << reader.name(e);
    if (e.step != store::kNull) {
      EXPECT_TRUE(e.step >= 5 && e.step <= 11) << reader.name(e) << " in step " << e.step;
    }
  });
  EXPECT_GT(events, 7 * 10);
  const auto report = run_trainscope("report " + trace);
  ASSERT_EQ(report.status, 0) << report.err;
  EXPECT_NE(report.out.find("step 5 left out, the first step recorded (--trace-steps)"),
            std::string::npos)
      << report.out;
  EXPECT_NE(report.out.find("; steps 5-11 recorded"), std::string::npos) << report.out;
  EXPECT_NE(report.out.find("every step recorded: 7 steps"), std::string::npos) << report.out;
}

// A range past the run's last step: the run still succeeds, and says its trace holds no step.
TEST(TrainTraceFlags, TraceStepsBeyondTheRunSaySo) {
  test::TempDir dir;
  const std::string trace = dir.file("beyond.db");
  const auto r = run_trainscope(
      "train --epochs 1 --dataset synthetic:256 --trace-steps 50-60 "
      "--backend cpu --trace " +
      trace);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.err.find("--trace-steps 50-60: the run's steps were 0-7, so the trace holds no step"),
            std::string::npos)
      << r.err;
  EXPECT_TRUE(store::Reader(trace).steps().empty());
}

TEST(TrainTraceFlags, TraceStepsNeedsTraceAndARange) {
  const auto alone = run_trainscope("train --epochs 1 --trace-steps 1-2");
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("--trace-steps needs --trace FILE"), std::string::npos) << alone.err;
  for (const char* bad : {"5-3", "5", "a-b"}) {
    const auto r =
        run_trainscope(std::string("train --epochs 1 --trace /tmp/never.db --trace-steps ") + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--trace-steps takes A-B"), std::string::npos) << r.err;
  }
  EXPECT_FALSE(fs::exists("/tmp/never.db"));
}

TEST(TrainTraceFlags, TraceDeviceNeedsTraceAndAKnownChoice) {
  const auto alone = run_trainscope("train --epochs 1 --trace-device off");
  EXPECT_EQ(alone.status, 2);
  EXPECT_NE(alone.err.find("--trace-device needs --trace FILE"), std::string::npos) << alone.err;
  const auto word = run_trainscope("train --epochs 1 --trace /tmp/never.db --trace-device no");
  EXPECT_EQ(word.status, 2);
  EXPECT_NE(word.err.find("--trace-device must be on, off, auto or every:K (K from 1 to 1048576), "
                          "not 'no'"),
            std::string::npos)
      << word.err;
  for (const char* bad : {"every:0", "every:x", "every:"}) {
    const auto r =
        run_trainscope(std::string("train --epochs 1 --trace /tmp/never.db --trace-device ") + bad);
    EXPECT_EQ(r.status, 2) << bad;
    EXPECT_NE(r.err.find("--trace-device must be on, off, auto or every:K"), std::string::npos)
        << r.err;
  }
  EXPECT_FALSE(fs::exists("/tmp/never.db"));
}

TEST_P(TrainTrace, SigkillKeepsAtLeastNinetyPercentOfTheStartedSteps) {
  if (!have_backend(GetParam())) GTEST_SKIP() << "no OpenCL device";
  const std::string trace = data_->file("killed_" + GetParam() + ".db");
  // 8 steps per epoch; the progress prints one line per epoch when stdout is not a terminal.
  // One compute thread on the CPU backend leaves a core to the trace writer, as a machine
  // with more cores than the backend uses would: on 2 cores, a 2-thread CPU backend records
  // ~300 k events/s while starving the writer of CPU (its rings then drop, counted).
  test::Child child({"train", "--backend", GetParam(), "--threads", "1", "--epochs", "100000",
                     "--dataset", "synthetic:256", "--pipeline", "tuned", "--trace", trace});
  ASSERT_TRUE(child.started());
  std::string line;
  const auto start = std::chrono::steady_clock::now();
  long long epoch = 0;
  // Train for about 8 s, then kill the process right after it reports starting an epoch. A
  // capture may lose what its writer had not committed yet (at most about a second), so a run this
  // long must keep at least 90 % of its steps.
  while (child.read_line(line, std::chrono::seconds(120))) {
    if (line.rfind("Epoch ", 0) != 0) continue;
    epoch = std::stoll(line.substr(6));
    if (std::chrono::steady_clock::now() - start > std::chrono::seconds(8)) break;
  }
  ASSERT_GT(epoch, 1);
  child.signal(SIGKILL);
  EXPECT_EQ(child.wait(), 128 + SIGKILL);
  const std::int64_t started = (epoch - 1) * 8 + 1;  // epochs before, plus the one starting now

  store::Reader reader(trace);
  const std::vector<store::Step> steps = reader.steps();
  EXPECT_GE(static_cast<double>(steps.size()), 0.9 * static_cast<double>(started))
      << steps.size() << " of " << started << " started steps survived";
  // What survived is a prefix, steps 0..n-1, unless the writer fell so far behind (starved of
  // CPU or stalled on the disk by other work on the machine) that full rings dropped events:
  // then the gaps must be counted, never silent.
  const std::int64_t dropped = std::stoll(reader.meta("dropped_events").value_or("0"));
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].step == static_cast<std::int64_t>(i)) continue;
    EXPECT_GT(dropped, 0) << "step " << i << " is missing and no dropped events were counted";
    for (std::size_t k = 1; k < steps.size(); ++k) ASSERT_GT(steps[k].step, steps[k - 1].step);
    break;
  }
}

INSTANTIATE_TEST_SUITE_P(Backends, TrainTrace, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ts
