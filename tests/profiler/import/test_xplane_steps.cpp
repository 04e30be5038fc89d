// TensorFlow profiles: how steps are found. Keras 2's "train" root markers (step_num restarting
// each epoch), Keras 3's "Profiled batch", the legacy TraceContext and other root events, nested
// markers, --step-marker, and without markers the IteratorGetNext cadence or none at all.
#include <gtest/gtest.h>

#include "tests/profiler/import/xplane_test_util.hpp"

namespace ts::import {
namespace {

using test::add_event;
using test::add_line;
using test::add_plane;
using test::add_task_environment;
using test::EventView;
using test::ImportDir;
using test::stat_int;
using test::xp::XLine;
using test::xp::XPlane;
using test::xp::XSpace;
using trace::Category;

constexpr std::int64_t kStart = 1795448679225870962;
constexpr std::int64_t kMs = 1000000000;  // ps

std::vector<std::int64_t> step_numbers(const store::Reader& r) {
  std::vector<std::int64_t> out;
  for (const store::Step& s : r.steps()) out.push_back(s.step);
  return out;
}

struct Profile {
  XSpace space;
  XPlane* host = nullptr;
  XLine* python = nullptr;
  XLine* get_next = nullptr;
  Profile() {
    host = &add_plane(space, "/host:CPU");
    python = &add_line(*host, 1, "python", 0);
    get_next = &add_line(*host, 2, "tf_data_iterator_get_next/2", 0);
    add_task_environment(space, kStart);
  }
  // A Keras 2 step: train [t, t + 10 ms) holding train_function, and its input wait.
  void keras2_step(std::int64_t t, std::int64_t step_num, std::int64_t epoch_num) {
    auto& train = add_event(*host, *python, "train", t, 10 * kMs);
    stat_int(*host, train, "epoch_num", epoch_num);
    stat_int(*host, train, "step_num", step_num);
    test::stat_ref(*host, train, "batch_size", "None");
    stat_int(*host, train, "_r", 1);
    function_call(t + kMs / 100);
  }
  // What a partial step (outside the profiled markers) also has.
  void function_call(std::int64_t t) {
    add_event(*host, *python, "train_function", t, 9 * kMs);
    auto& fr = add_event(*host, *python, "FunctionRun", t + kMs / 10, kMs / 10);
    stat_int(*host, fr, "_r", 1);
    add_event(*host, *get_next, "IteratorGetNextOp::DoCompute", t + kMs, 6 * kMs);
  }
};

TEST(XPlaneSteps, Keras2TrainMarkersWithTheirStepNumbers) {
  Profile p;
  p.function_call(0);  // partial first step: no marker
  for (int k = 1; k <= 3; ++k) p.keras2_step(k * 20 * kMs, k, 1);
  p.function_call(80 * kMs);  // partial last step
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{1, 2, 3}));
  const auto steps = test::named(r.events, "train");
  ASSERT_EQ(steps.size(), 3u);
  for (const EventView& s : steps) {
    EXPECT_EQ(s.category, Category::step);
    EXPECT_EQ(s.track, "python");
  }
  EXPECT_EQ(r.reader->steps()[0].start_ns, kStart + 20000000);
  EXPECT_EQ(r.reader->steps()[0].dur_ns, 10000000);
  // The input wait of step 2 carries it; the partial steps' events carry none.
  const auto waits = test::named(r.events, "IteratorGetNextOp::DoCompute");
  ASSERT_EQ(waits.size(), 5u);
  EXPECT_EQ(waits[0].e.step, store::kNull);
  EXPECT_EQ(waits[2].e.step, 2);
  EXPECT_EQ(waits[4].e.step, store::kNull);
  for (const EventView& e : test::named(r.events, "FunctionRun"))
    EXPECT_EQ(e.category, Category::other);  // a root, but a function run, not a step
  EXPECT_EQ(r.stats.steps_source,
            "step markers 'train' (root events, as XProf finds steps): 3 steps, #1..#3 of "
            "epoch_num 1; XProf's input analysis also drops the first and the last step of more "
            "than 5");
  EXPECT_EQ(test::meta_or(*r.reader, "steps.source"), r.stats.steps_source);
}

TEST(XPlaneSteps, StepNumbersRestartingEachEpochAreNumberedOn) {
  Profile p;
  p.keras2_step(0, 10, 0);
  p.keras2_step(20 * kMs, 11, 0);
  p.keras2_step(40 * kMs, 0, 1);
  p.keras2_step(60 * kMs, 1, 1);
  p.keras2_step(80 * kMs, 5, 1);  // a jump forward keeps its number
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{10, 11, 12, 13, 14}));
  EXPECT_NE(r.stats.steps_source.find("over 2 epochs"), std::string::npos);
  EXPECT_NE(r.stats.steps_source.find("restarts each epoch"), std::string::npos);
}

TEST(XPlaneSteps, Keras3ProfiledBatches) {
  Profile p;
  for (int k = 0; k < 3; ++k) {
    auto& batch = add_event(*p.host, *p.python, "Profiled batch", k * 20 * kMs, 10 * kMs);
    stat_int(*p.host, batch, "step_num", k);
    add_event(*p.host, *p.python, "multi_step_on_iterator", k * 20 * kMs + kMs / 100, 9 * kMs);
  }
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{0, 1, 2}));
  EXPECT_EQ(r.stats.steps_source,
            "Keras 3 'Profiled batch' annotations: 3 steps, #0..#2; XProf takes no steps from "
            "these (no _r stat) and reports no step time");
}

TEST(XPlaneSteps, LegacyTraceContextAndOtherRootEvents) {
  Profile p;
  add_event(*p.host, *p.python, "TraceContext", 0, 10 * kMs);
  add_event(*p.host, *p.python, "TraceContext", 20 * kMs, 10 * kMs);
  auto& custom = add_event(*p.host, *p.python, "my_step", 40 * kMs, 10 * kMs);
  stat_int(*p.host, custom, "_r", 1);
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(test::named(r.events, "my_step")[0].category, Category::step);
}

TEST(XPlaneSteps, OnlyOutermostMarkersAreSteps) {
  Profile p;
  auto& outer = add_event(*p.host, *p.python, "train", 0, 10 * kMs);
  stat_int(*p.host, outer, "_r", 1);
  stat_int(*p.host, outer, "step_num", 7);
  auto& inner = add_event(*p.host, *p.python, "train_inner", kMs, 5 * kMs);
  stat_int(*p.host, inner, "_r", 1);
  stat_int(*p.host, inner, "step_num", 8);
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{7}));
  EXPECT_EQ(test::named(r.events, "train_inner")[0].e.step, 7);
}

TEST(XPlaneSteps, StepMarkerRegexWins) {
  Profile p;
  for (int k = 0; k < 3; ++k) p.keras2_step(k * 20 * kMs, k + 1, 0);
  ImportDir dir;
  ImportOptions o;
  o.step_marker = "^train_function$";
  const auto r = test::import_space(dir, p.space, o);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(test::named(r.events, "train_function")[0].category, Category::step);
  EXPECT_EQ(test::named(r.events, "train")[0].category, Category::other);
  EXPECT_EQ(r.stats.steps_source.rfind("--step-marker '^train_function$': 3 steps", 0), 0u);
}

TEST(XPlaneSteps, WithoutMarkersTheIteratorGetNextCadence) {
  Profile p;
  for (int k = 0; k < 4; ++k) p.function_call(k * 20 * kMs);
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_EQ(step_numbers(*r.reader), (std::vector<std::int64_t>{1, 2, 3, 4}));
  const auto steps = test::named(r.events, "step (IteratorGetNext cadence)");
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].track, "tf_data_iterator_get_next/2");
  EXPECT_EQ(steps[0].e.start_ns, kStart + 1000000);
  EXPECT_EQ(steps[0].e.dur_ns, 20000000);  // to the next call's start
  EXPECT_EQ(steps[3].e.dur_ns, 6000000);   // the last: to the end of its thread's last event
  EXPECT_EQ(r.stats.steps_source,
            "inferred: one step per IteratorGetNext call, from its start to the next one's (4 "
            "steps; no step markers: Keras train/test or 'Profiled batch' events)");
}

TEST(XPlaneSteps, NoStepsIsSaidPlainly) {
  Profile p;
  add_event(*p.host, *p.python, "convert_to_tensor", 0, kMs);
  ImportDir dir;
  const auto r = test::import_space(dir, p.space);
  EXPECT_TRUE(r.reader->steps().empty());
  EXPECT_EQ(test::meta_or(*r.reader, "steps.source").rfind("none: no step markers", 0), 0u);
  EXPECT_EQ(test::meta_or(*r.reader, "analysis.trainer_tracks"), "");
}

}  // namespace
}  // namespace ts::import
