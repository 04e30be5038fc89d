// TensorFlow profiles: picoseconds to nanoseconds exactly (integers only), line timestamps
// relative to the profile start made absolute with Task Environment's profile_start_time, hosts
// aligned, and events whose time cannot be used counted by reason.
#include <gtest/gtest.h>

#include "tests/profiler/import/xplane_test_util.hpp"

namespace ts::import {
namespace {

using test::add_event;
using test::add_line;
using test::add_plane;
using test::add_task_environment;
using test::ImportDir;
using test::xp::XSpace;

constexpr std::int64_t kEpochNs = 1712195495519689000;  // an absolute line timestamp
constexpr std::int64_t kStartNs = 1795448679225870962;  // a profile_start_time of the fixtures

TEST(XPlaneTime, PicosecondsBecomeNanosecondsExactly) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 7, "python", kEpochNs);
  add_event(p, l, "a", 47000, 1000000);                 // +47 ns, 1 us
  add_event(p, l, "b", 123456789012345, 987654321000);  // +123.456789012345 s
  add_event(p, l, "c", 1500, 2999);                     // ends at 4499 ps: [1, 4) ns
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 3u);
  const auto* a = test::find_event(r.events, "a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->e.start_ns, 1712195495519689047);  // a double would lose the 47 ns
  EXPECT_EQ(a->e.dur_ns, 1000);
  const auto* b = test::find_event(r.events, "b");
  EXPECT_EQ(b->e.start_ns, kEpochNs + 123456789012);
  EXPECT_EQ(b->e.dur_ns, 987654321);
  const auto* c = test::find_event(r.events, "c");
  EXPECT_EQ(c->e.start_ns, kEpochNs + 1);
  EXPECT_EQ(c->e.dur_ns, 3);  // start and end rounded down each: floor(4499/1000) - 1
  EXPECT_EQ(test::meta_or(*r.reader, "clock.origin_ns"), std::to_string(kEpochNs + 1));
  EXPECT_EQ(test::meta_or(*r.reader, "clock.alignment").rfind("as recorded", 0), 0u);
}

TEST(XPlaneTime, NestingSurvivesRounding) {
  // A parent [999, 2000) ps and a child [1000, 2000) ps: rounding the child's duration on its own
  // would make it end after its parent.
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 7, "python", kEpochNs);
  add_event(p, l, "parent", 999, 1001);
  add_event(p, l, "child", 1000, 1000);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  const auto* parent = test::find_event(r.events, "parent");
  const auto* child = test::find_event(r.events, "child");
  ASSERT_NE(parent, nullptr);
  ASSERT_NE(child, nullptr);
  EXPECT_LE(child->e.end_ns(), parent->e.end_ns());
  EXPECT_EQ(parent->e.end_ns(), kEpochNs + 2);
}

TEST(XPlaneTime, RelativeLinesStartAtProfileStartTime) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 7, "python", 8002);  // TF 2.x: ns since the profile start
  add_event(p, l, "train_function", 46600000, 60923059000);
  add_task_environment(s, kStartNs);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].e.start_ns, kStartNs + 8002 + 46600);
  EXPECT_EQ(r.events[0].e.dur_ns, 60923059);
  EXPECT_EQ(test::meta_or(*r.reader, "clock.alignment").rfind("absolute", 0), 0u);
  EXPECT_EQ(test::meta_or(*r.reader, "clock.origin_ns"), std::to_string(kStartNs + 8002 + 46600));
}

TEST(XPlaneTime, AbsoluteLinesStayAsTheyAreBesideAProfileStart) {
  // TF normalises only the lines that start after the profile start: an absolute timestamp
  // (more than half of profile_start_time) is not shifted again.
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& rel = add_line(p, 1, "python", 5);
  add_event(p, rel, "relative", 1000, 1000);
  auto& abs = add_line(p, 2, "other", kStartNs - 100);
  add_event(p, abs, "absolute", 1000, 1000);
  add_task_environment(s, kStartNs);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  EXPECT_EQ(test::find_event(r.events, "relative")->e.start_ns, kStartNs + 6);
  EXPECT_EQ(test::find_event(r.events, "absolute")->e.start_ns, kStartNs - 99);
}

TEST(XPlaneTime, TwoHostsAlignByTheirProfileStartTimes) {
  ImportDir dir;
  const std::int64_t starts[2] = {1795448873199515004, 1795448873201860801};  // two_hosts
  std::vector<std::string> files;
  for (int h = 0; h < 2; ++h) {
    XSpace s;
    s.add_hostnames(h == 0 ? "hostA" : "hostB");
    auto& p = add_plane(s, "/host:CPU");
    auto& l = add_line(p, 7, "python", 4000);
    add_event(p, l, "work", 1000000, 5000000);
    add_task_environment(s, starts[h]);
    files.push_back(
        test::write_space(dir, s, std::string("run/host") + (h == 0 ? "A" : "B") + ".xplane.pb"));
  }
  const auto r = test::import_sources(dir, {dir.file("run")});
  const auto work = test::named(r.events, "work");
  ASSERT_EQ(work.size(), 2u);
  EXPECT_EQ(work[0].e.start_ns, starts[0] + 4000 + 1000);
  EXPECT_EQ(work[1].e.start_ns, starts[1] + 4000 + 1000);
  EXPECT_EQ(work[1].e.start_ns - work[0].e.start_ns, 2345797);
  EXPECT_EQ(test::meta_or(*r.reader, "clock.alignment").rfind("absolute", 0), 0u);
}

TEST(XPlaneTime, UnusableTimesAreSkippedByReason) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 7, "python", kEpochNs);
  add_event(p, l, "ok", 0, 1000);
  add_event(p, l, "negative", 0, -5);
  add_event(p, l, "instant", 5000, 0);
  auto& aggregate = add_event(p, l, "aggregate", 0, 1000);
  aggregate.set_num_occurrences(3);  // the oneof: no offset any more
  auto& early = add_line(p, 8, "early", -(std::int64_t{1} << 62));
  add_event(p, early, "before 1897", 0, 1000);
  auto& late = add_line(p, 9, "late", (std::int64_t{1} << 61) - 10);
  add_event(p, late, "after 2043", 20000, 1000);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].name, "ok");
  EXPECT_EQ(r.stats.skipped.at("negative_duration"), 1u);
  EXPECT_EQ(r.stats.skipped.at("invalid_timestamp"), 2u);
  EXPECT_EQ(r.stats.skipped.at("instant_event"), 1u);
  EXPECT_EQ(r.stats.skipped.at("missing_timestamp"), 1u);
  EXPECT_EQ(r.stats.events_read, 6u);
  EXPECT_EQ(test::meta_or(*r.reader, "import.skipped.invalid_timestamp"), "2");
}

TEST(XPlaneTime, NegativeOffsetsRoundDown) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 7, "python", kEpochNs);
  add_event(p, l, "before the line", -1, 2001);  // [-1, 2000) ps -> [-1, 2) ns
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 1u);
  EXPECT_EQ(r.events[0].e.start_ns, kEpochNs - 1);
  EXPECT_EQ(r.events[0].e.dur_ns, 3);
}

}  // namespace
}  // namespace ts::import
