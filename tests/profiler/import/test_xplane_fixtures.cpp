// The real TensorFlow profiles of tests/data/tensorflow (TF 2.21, CPU): each imports with the
// steps, threads and stages its README describes. The input share is computed here from the
// stored events alone (input_wait inside the steps / step time, per host), independently of the
// analysis, and compared with XProf's figures (xprof_reference.json): TensorFlow's built-in
// converter keeps every step marker, as we do; XProf's input analysis drops the first and the
// last step, which we reproduce by dropping them here.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/profiler/import/xplane_test_util.hpp"

namespace ts::import {
namespace {

using test::EventView;
using test::ImportDir;
using trace::Category;

const std::string kData = "tests/data/tensorflow/";

struct Host {
  std::vector<store::Step> steps;  // in time order
  double input_pct = 0;            // input_wait inside steps / step time, all steps
  double mean_step_ms = 0;
  double inner_input_pct = 0;  // the same without the first and the last step (XProf)
  double inner_mean_step_ms = 0;
  std::string slowest_stage;  // the stage event name with the most self time
  std::map<std::string, double> stage_self_ms;
};

// Self time per stored name of the input stage events (input_read/decode/map/batch): duration
// minus the stage events nested in it on its track, as XProf's input-op table counts it.
std::map<std::string, double> stage_self_ms(const std::vector<EventView>& events,
                                            const store::Reader& r, std::int64_t process) {
  std::map<std::uint32_t, std::vector<const EventView*>> by_track;
  for (const EventView& e : events) {
    if (e.category != Category::input_read && e.category != Category::input_decode &&
        e.category != Category::input_map && e.category != Category::input_batch)
      continue;
    if (r.track(e.e.track)->process != process) continue;
    by_track[e.e.track].push_back(&e);
  }
  std::map<std::string, double> self;
  for (auto& [track, v] : by_track) {
    std::vector<const EventView*> open;
    for (const EventView* e : v) {  // start order
      while (!open.empty() && open.back()->e.end_ns() <= e->e.start_ns) open.pop_back();
      if (!open.empty())
        self[open.back()->name] -=
            static_cast<double>(std::min(open.back()->e.end_ns(), e->e.end_ns()) - e->e.start_ns) /
            1e6;
      self[e->name] += static_cast<double>(e->e.dur_ns) / 1e6;
      open.push_back(e);
    }
  }
  return self;
}

Host host_figures(const test::XImported& r, std::int64_t process) {
  Host h;
  for (const store::Step& s : r.reader->steps())
    if (r.reader->track(s.track)->process == process) h.steps.push_back(s);
  std::sort(h.steps.begin(), h.steps.end(),
            [](const store::Step& a, const store::Step& b) { return a.start_ns < b.start_ns; });
  // The union of the process's input waits.
  std::vector<std::pair<std::int64_t, std::int64_t>> waits;
  for (const EventView& e : r.events)
    if (e.category == Category::input_wait && r.reader->track(e.e.track)->process == process)
      waits.emplace_back(e.e.start_ns, e.e.end_ns());
  std::sort(waits.begin(), waits.end());
  std::vector<std::pair<std::int64_t, std::int64_t>> merged;
  for (const auto& w : waits)
    if (!merged.empty() && w.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, w.second);
    else
      merged.push_back(w);
  const auto figures = [&](std::size_t first, std::size_t last, double& pct, double& mean) {
    std::int64_t total = 0, input = 0;
    for (std::size_t i = first; i < last; ++i) {
      const store::Step& s = h.steps[i];
      total += s.dur_ns;
      for (const auto& [a, b] : merged)
        input +=
            std::max<std::int64_t>(0, std::min(b, s.start_ns + s.dur_ns) - std::max(a, s.start_ns));
    }
    pct = 100.0 * static_cast<double>(input) / static_cast<double>(total);
    mean = static_cast<double>(total) / 1e6 / static_cast<double>(last - first);
  };
  if (h.steps.size() >= 3) {
    figures(0, h.steps.size(), h.input_pct, h.mean_step_ms);
    figures(1, h.steps.size() - 1, h.inner_input_pct, h.inner_mean_step_ms);
  }
  h.stage_self_ms = stage_self_ms(r.events, *r.reader, process);
  double best = -1;
  for (const auto& [name, ms] : h.stage_self_ms)
    if (ms > best) {
      best = ms;
      h.slowest_stage = name;
    }
  return h;
}

const nlohmann::json& reference(const std::string& fixture) {
  static const nlohmann::json ref = [] {
    std::ifstream in(kData + "xprof_reference.json");
    return nlohmann::json::parse(in);
  }();
  for (const nlohmann::json& s : ref["sessions"])
    if (s["profile"] == kData + fixture) return s;
  static const nlohmann::json none;
  ADD_FAILURE() << "no reference for " << fixture;
  return none;
}

std::vector<std::int64_t> numbers(const std::vector<store::Step>& steps) {
  std::vector<std::int64_t> out;
  for (const store::Step& s : steps) out.push_back(s.step);
  return out;
}

std::vector<std::int64_t> range(std::int64_t a, std::int64_t b) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = a; i <= b; ++i) v.push_back(i);
  return v;
}

TEST(XPlaneFixtures, NaiveIsHighlyInputBoundInItsMapStage) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {kData + "naive"});
  const Host h = host_figures(r, 1);
  EXPECT_EQ(numbers(h.steps), range(1, 10));
  for (const store::Step& s : h.steps) EXPECT_EQ(r.reader->track(s.track)->name, "python");
  EXPECT_GE(h.input_pct, 80.0);
  const nlohmann::json& ref = reference("naive");
  // TF's built-in converter: every marker, as we keep them.
  EXPECT_EQ(h.steps.size(), ref["tf_builtin"]["steps"].get<std::size_t>());
  EXPECT_NEAR(h.input_pct, ref["tf_builtin"]["input_percent"].get<double>(), 0.01);
  EXPECT_NEAR(h.mean_step_ms, ref["tf_builtin"]["step_time_ms_mean"].get<double>(), 0.001);
  // XProf: the first and the last step dropped.
  EXPECT_EQ(h.steps.size() - 2, ref["xprof"]["steps"].get<std::size_t>());
  EXPECT_NEAR(h.inner_input_pct, ref["xprof"]["input_pct"].get<double>(), 0.01);
  EXPECT_NEAR(h.inner_mean_step_ms, ref["xprof"]["step_time_ms"]["mean_from_table"].get<double>(),
              0.001);
  // The slowest stage: the user's map, ~692 ms of self time (XProf's table: 692.357 ms).
  EXPECT_EQ(h.slowest_stage, "Map");
  EXPECT_NEAR(h.stage_self_ms.at("Map"), 692.357, 1.0);
  EXPECT_LT(h.stage_self_ms.at("BatchV2"), 5.0);
  EXPECT_LT(h.stage_self_ms.at("TensorSlice"), 5.0);
  EXPECT_EQ(test::meta_or(*r.reader, "import.format"), "xplane");
  EXPECT_EQ(test::meta_or(*r.reader, "import.hosts"), "host");
  EXPECT_EQ(test::meta_or(*r.reader, "import.run"), "2026_11_23_00_00_00");
  EXPECT_EQ(test::meta_or(*r.reader, "engine.batch"), "32");  // BatchV2's batch_size
  EXPECT_EQ(test::meta_or(*r.reader, "clock.alignment").rfind("absolute", 0), 0u);
  // The trainer: python, both tf_Compute threads and the IteratorGetNext thread.
  const std::string trainer = test::meta_or(*r.reader, "analysis.trainer_tracks");
  std::vector<std::string> trainer_names;
  for (const store::Track& t : r.reader->tracks())
    if (test::in_id_list(trainer, t.id))
      trainer_names.push_back(t.name.substr(0, t.name.find('/')));
  std::sort(trainer_names.begin(), trainer_names.end());
  EXPECT_EQ(trainer_names, (std::vector<std::string>{"python", "tf_Compute", "tf_Compute",
                                                     "tf_data_iterator_get_next"}));
  // ThreadpoolListener markers and the Eigen threads' lines are instants: skipped, no tracks.
  EXPECT_GT(r.stats.skipped.at("instant_event"), 5000u);
  for (const store::Track& t : r.reader->tracks())
    EXPECT_EQ(t.name.find("Eigen"), std::string::npos);
}

TEST(XPlaneFixtures, TunedIsNotInputBound) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {kData + "tuned"});
  const Host h = host_figures(r, 1);
  EXPECT_EQ(numbers(h.steps), range(1, 10));
  EXPECT_LT(h.input_pct, 10.0);
  const nlohmann::json& ref = reference("tuned");
  EXPECT_NEAR(h.input_pct, ref["tf_builtin"]["input_percent"].get<double>(), 0.01);
  EXPECT_NEAR(h.mean_step_ms, ref["tf_builtin"]["step_time_ms_mean"].get<double>(), 0.001);
  EXPECT_NEAR(h.inner_input_pct, ref["xprof"]["input_pct"].get<double>(), 0.01);
  // Served from the memory cache: the batch stage only, under a millisecond per step.
  for (const auto& [name, ms] : h.stage_self_ms) EXPECT_LT(ms, 10.0) << name;
}

TEST(XPlaneFixtures, NaiveKeras3StepsAreItsProfiledBatches) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {kData + "naive_keras3"});
  const Host h = host_figures(r, 1);
  EXPECT_EQ(numbers(h.steps), range(0, 11));  // XProf finds none
  EXPECT_EQ(reference("naive_keras3")["xprof"]["steps"].get<int>(), 0);
  EXPECT_GE(h.input_pct, 80.0);
  EXPECT_NEAR(h.input_pct, 93.41, 0.01);  // the fixture's README
  EXPECT_NEAR(h.mean_step_ms, 98.55, 0.01);
  EXPECT_EQ(h.slowest_stage, "Map");
  EXPECT_EQ(r.stats.steps_source.rfind("Keras 3 'Profiled batch' annotations: 12 steps", 0), 0u);
}

TEST(XPlaneFixtures, NaiveWithTfRewritesWaitsOnMapAndBatch) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {kData + "naive_tf_rewrites"});
  const Host h = host_figures(r, 1);
  EXPECT_EQ(numbers(h.steps), range(1, 10));
  const nlohmann::json& ref = reference("naive_tf_rewrites");
  EXPECT_NEAR(h.input_pct, ref["tf_builtin"]["input_percent"].get<double>(), 0.01);
  EXPECT_NEAR(h.inner_input_pct, ref["xprof"]["input_pct"].get<double>(), 0.01);
  EXPECT_EQ(h.slowest_stage, "MapAndBatch");
}

TEST(XPlaneFixtures, TwoHostsAreTwoAlignedProcesses) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {kData + "two_hosts"});
  ASSERT_EQ(r.reader->processes().size(), 2u);
  EXPECT_EQ(r.reader->processes()[0].name, "hostA");
  EXPECT_EQ(r.reader->processes()[1].name, "hostB");
  const Host a = host_figures(r, 1), b = host_figures(r, 2);
  EXPECT_EQ(numbers(a.steps), range(1, 6));
  EXPECT_EQ(numbers(b.steps), range(1, 6));
  const nlohmann::json& ref = reference("two_hosts");
  EXPECT_NEAR(a.input_pct, ref["tf_builtin"]["input_percent"].get<double>(), 0.01);  // host 0
  EXPECT_NEAR(b.input_pct, 87.12, 0.01);  // the fixture's README
  EXPECT_EQ(a.slowest_stage, "Map");
  EXPECT_EQ(b.slowest_stage, "Map");
  // Synchronised just before the profiled window: their steps overlap in absolute time.
  EXPECT_LT(std::abs(a.steps[0].start_ns - b.steps[0].start_ns), 200000000);
  EXPECT_EQ(test::meta_or(*r.reader, "import.hosts"), "hostA, hostB");
  EXPECT_EQ(test::meta_or(*r.reader, "import.processes"), "2");
}

}  // namespace
}  // namespace ts::import
