// TensorFlow profiles: what a source may be (one file, a run directory of hosts, a log directory
// and its latest or chosen run, a gzip copy) and bad input: each is one clear ImportError naming
// the path, or a trace whose meta says what was missing, and never a half-written trace.
#include <gtest/gtest.h>
#include <zlib.h>

#include "profiler/import/xplane/xplane_sources.hpp"
#include "tests/profiler/import/xplane_test_util.hpp"

namespace ts::import {
namespace {

using test::add_event;
using test::add_line;
using test::add_plane;
using test::add_task_environment;
using test::ImportDir;
using test::xp::XSpace;

constexpr std::int64_t kStart = 1795448679225870962;
constexpr std::int64_t kMs = 1000000000;  // ps

// A small profile with one step, its events named after `tag`.
XSpace profile(const std::string& tag, const std::string& host = "") {
  XSpace s;
  if (!host.empty()) s.add_hostnames(host);
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 1, "python", 0);
  auto& train = add_event(p, l, "train", 0, 10 * kMs);
  test::stat_int(p, train, "_r", 1);
  test::stat_int(p, train, "step_num", 1);
  add_event(p, l, tag, kMs, kMs);
  add_task_environment(s, kStart);
  return s;
}

std::string serialise(const XSpace& s) {
  std::string bytes;
  EXPECT_TRUE(s.SerializeToString(&bytes));
  return bytes;
}

// The ImportError message importing `sources` gives ("" when it imports).
std::string import_error(const ImportDir& dir, const std::vector<std::string>& sources,
                         const ImportOptions& options = {}) {
  try {
    import_traces(sources, dir.file("out.db"), options);
  } catch (const ImportError& e) {
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.partial")));
    return e.what();
  }
  return {};
}

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

TEST(XPlaneSources, OneFile) {
  ImportDir dir;
  const auto r = test::import_sources(dir, {test::write_space(dir, profile("a"), "w1.xplane.pb")});
  EXPECT_EQ(r.stats.processes, 1);
  ASSERT_EQ(r.reader->processes().size(), 1u);
  EXPECT_EQ(r.reader->processes()[0].name, "w1");  // no hostnames: the file's host
  EXPECT_EQ(r.reader->processes()[0].rank, store::kNull);
  EXPECT_EQ(r.reader->steps().size(), 1u);
  EXPECT_EQ(test::meta_or(*r.reader, "import.run"), "");
}

TEST(XPlaneSources, ARunDirectoryOfTwoHostsIsTwoProcesses) {
  ImportDir dir;
  const std::string run = "logs/plugins/profile/2026_11_23_00_00_00";
  test::write_space(dir, profile("b", "hostB"), run + "/hostB.xplane.pb");
  test::write_space(dir, profile("a", "hostA"), run + "/hostA.xplane.pb");
  dir.write(run + "/notes.txt", "not a profile");
  const auto r = test::import_sources(dir, {dir.file(run)});
  EXPECT_EQ(r.stats.processes, 2);
  const auto& procs = r.reader->processes();
  ASSERT_EQ(procs.size(), 2u);
  EXPECT_EQ(procs[0].name, "hostA");
  EXPECT_EQ(procs[0].host, "hostA");
  EXPECT_EQ(procs[0].rank, 0);
  EXPECT_EQ(procs[1].name, "hostB");
  EXPECT_EQ(procs[1].rank, 1);
  EXPECT_EQ(r.reader->steps().size(), 2u);
  EXPECT_EQ(r.reader->track(test::find_event(r.events, "a")->e.track)->process, 1);
  EXPECT_EQ(r.reader->track(test::find_event(r.events, "b")->e.track)->process, 2);
  EXPECT_EQ(test::meta_or(*r.reader, "import.hosts"), "hostA, hostB");
  EXPECT_EQ(test::meta_or(*r.reader, "import.run"), "2026_11_23_00_00_00");
  EXPECT_EQ(test::meta_or(*r.reader, "import.processes"), "2");
  // Both hosts say the same about their steps: one sentence.
  EXPECT_EQ(test::meta_or(*r.reader, "steps.source").find("hostA"), std::string::npos);
}

TEST(XPlaneSources, ALogDirectoryGivesItsLatestRunOrTheChosenOne) {
  ImportDir dir;
  test::write_space(dir, profile("old"), "logs/plugins/profile/2024_01_31_23_59_59/h.xplane.pb");
  test::write_space(dir, profile("new"), "logs/plugins/profile/2024_02_01_00_00_00/h.xplane.pb");
  std::filesystem::create_directories(dir.file("logs/plugins/profile/2024_03_01_00_00_00"));
  dir.write("logs/events.out.tfevents.1", "not a profile");
  const auto latest = test::import_sources(dir, {dir.file("logs")});
  EXPECT_NE(test::find_event(latest.events, "new"), nullptr);
  EXPECT_EQ(test::meta_or(*latest.reader, "import.run"), "2024_02_01_00_00_00");

  ImportDir dir2;
  ImportOptions o;
  o.tf_run = "2024_01_31_23_59_59";
  const auto chosen = test::import_sources(dir2, {dir.file("logs")}, o);
  EXPECT_NE(test::find_event(chosen.events, "old"), nullptr);
  EXPECT_EQ(test::find_event(chosen.events, "new"), nullptr);

  o.tf_run = "2025_01_01_00_00_00";
  const std::string e = import_error(dir2, {dir.file("logs")}, o);
  EXPECT_TRUE(contains(e, dir.file("logs") + " has no profile run '2025_01_01_00_00_00' (its "
                                             "runs: 2024_01_31_23_59_59, 2024_02_01_00_00_00)"))
      << e;
  // plugins/profile itself, and a log directory one level up (Keras' train/ subdirectory).
  ImportDir dir3;
  EXPECT_NE(test::find_event(test::import_sources(dir3, {dir.file("logs/plugins/profile")}).events,
                             "new"),
            nullptr);
  ImportDir dir4;
  test::write_space(dir4, profile("nested"),
                    "top/train/plugins/profile/2024_01_01_00_00_00/h.xplane.pb");
  EXPECT_TRUE(is_tensorflow_source(dir4.file("top")));
  EXPECT_NE(test::find_event(test::import_sources(dir4, {dir4.file("top")}).events, "nested"),
            nullptr);
}

TEST(XPlaneSources, AGzipCopyImports) {
  ImportDir dir;
  const std::string bytes = serialise(profile("zipped"));
  const std::string path = dir.file("h.xplane.pb.gz");
  gzFile g = gzopen(path.c_str(), "wb");
  gzwrite(g, bytes.data(), static_cast<unsigned>(bytes.size()));
  gzclose(g);
  const auto r = test::import_sources(dir, {path});
  EXPECT_NE(test::find_event(r.events, "zipped"), nullptr);
  EXPECT_EQ(r.stats.bytes, bytes.size());
}

TEST(XPlaneSources, WhatIsNoProfileIsOneClearError) {
  ImportDir dir;
  const auto err = [&](const std::string& path) { return import_error(dir, {path}); };
  EXPECT_EQ(err(dir.write("empty.xplane.pb", "")),
            dir.file("empty.xplane.pb") + " is empty (0 bytes): not a TensorFlow profile");
  EXPECT_EQ(err(dir.write("text.xplane.pb", "hello, world\n")),
            dir.file("text.xplane.pb") +
                " is not a TensorFlow profile (XSpace protobuf): invalid data at byte 2");
  EXPECT_TRUE(contains(err(dir.write("json.xplane.pb", "{\"traceEvents\": []}")),
                       "is not a TensorFlow profile (XSpace protobuf)"));
  EXPECT_TRUE(contains(err(dir.write("zeros.xplane.pb", std::string(64, '\0'))),
                       "is not a TensorFlow profile"));
  XSpace only_hosts;
  only_hosts.add_hostnames("h");
  EXPECT_EQ(err(test::write_space(dir, only_hosts, "noplanes.xplane.pb")),
            dir.file("noplanes.xplane.pb") +
                " holds no profile planes: not a TensorFlow profile (an XSpace with at least a "
                "/host:CPU or /device: plane)");
  XSpace no_events;
  add_line(add_plane(no_events, "/host:CPU"), 1, "python", 0);
  add_task_environment(no_events, kStart);
  EXPECT_EQ(err(test::write_space(dir, no_events, "noevents.xplane.pb")),
            dir.file("noevents.xplane.pb") +
                " holds no profile events (an XSpace whose planes have no events)");
  const std::string riegeli = err(dir.write("h.xplane.riegeli", "riegeli"));
  EXPECT_EQ(riegeli.rfind(dir.file("h.xplane.riegeli") + " is a chunked .xplane.riegeli", 0), 0u);
  EXPECT_TRUE(contains(riegeli, "tf.profiler.experimental.start()"));
  EXPECT_EQ(sniff_format(dir.file("h.xplane.riegeli")), "xplane");
  EXPECT_TRUE(contains(err(dir.file("missing.xplane.pb")), "cannot read"));
}

TEST(XPlaneSources, ATruncatedFileIsRefusedWhereverItEnds) {
  std::string bytes = serialise(profile("x", "host"));
  ImportDir dir;
  for (const std::size_t keep :
       {std::size_t{1}, std::size_t{2}, std::size_t{3}, std::size_t{10}, bytes.size() / 3,
        bytes.size() / 2, bytes.size() - 40, bytes.size() - 1}) {
    const std::string path = dir.write("cut.xplane.pb", bytes.substr(0, keep));
    const std::string e = import_error(dir, {path});
    EXPECT_EQ(e.rfind(path + " is ", 0), 0u) << keep << ": " << e;
    EXPECT_TRUE(contains(e, "truncated") || contains(e, "not a TensorFlow profile") ||
                contains(e, "not a valid TensorFlow profile") || contains(e, "holds no"))
        << keep << ": " << e;
  }
  // Cut inside the first plane: said to be truncated.
  const std::string path = dir.write("half.xplane.pb", bytes.substr(0, bytes.size() / 2));
  EXPECT_TRUE(contains(import_error(dir, {path}), " is truncated: it ends at byte ")) << path;
}

// A length-delimited field: tag, length (varint), bytes.
std::string field(unsigned number, const std::string& bytes) {
  std::string out(1, static_cast<char>((number << 3) | 2));
  for (std::size_t n = bytes.size();; n >>= 7) {
    out += static_cast<char>((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    if (n <= 0x7f) break;
  }
  return out + bytes;
}

TEST(XPlaneSources, WhatProtobufParsesIsReadAndNothingElse) {
  const XSpace space = profile("x");
  const std::string ok = serialise(space);
  ImportDir dir;
  // Unknown fields of a newer TensorFlow are skipped: in a plane (a group, field 100) and at the
  // top level (field 9, a varint).
  std::string planes;
  for (int i = 0; i < space.planes_size(); ++i) {
    std::string plane;
    ASSERT_TRUE(space.planes(i).SerializeToString(&plane));
    if (i == 0) plane += std::string("\xa3\x06\x08\x01\xa4\x06", 6);
    planes += field(1, plane);
  }
  const std::string with_unknown = planes + std::string("\x48\x07", 2);
  test::xp::XSpace check;
  ASSERT_TRUE(check.ParseFromString(with_unknown));
  const auto r = test::import_sources(dir, {dir.write("unknown.xplane.pb", with_unknown)});
  EXPECT_NE(test::find_event(r.events, "x"), nullptr);  // the plane kept its name: /host:CPU
  EXPECT_EQ(r.reader->steps().size(), 1u);
  // What protobuf refuses: a field numbered 0, a tag or a length longer than 5 bytes.
  for (const std::string& bad : {ok + std::string("\x01", 1) + std::string(8, 'a'),
                                 std::string("\x8a\x80\x80\x80\x80\x00", 6) + ok.substr(1),
                                 std::string("\x0a\x80\x80\x80\x80\x80\x00", 7)}) {
    ASSERT_FALSE(check.ParseFromString(bad));
    EXPECT_TRUE(contains(import_error(dir, {dir.write("bad.xplane.pb", bad)}),
                         "is not a TensorFlow profile (XSpace protobuf)"));
  }
}

TEST(XPlaneSources, ACorruptPlaneIsRefused) {
  std::string bytes = serialise(profile("x"));
  // The first plane starts with 0a <len> 12 <name len> "/host:CPU": corrupt a byte after it.
  const std::size_t at = bytes.find("python");
  ASSERT_NE(at, std::string::npos);
  bytes[at - 1] = static_cast<char>(0x7f);  // the line name's length runs past its line
  ImportDir dir;
  const std::string e = import_error(dir, {dir.write("bad.xplane.pb", bytes)});
  EXPECT_TRUE(contains(
      e, "is not a valid TensorFlow profile: a line of its plane 1 does not parse as an XLine"))
      << e;
}

TEST(XPlaneSources, DirectoriesWithoutProfiles) {
  ImportDir dir;
  std::filesystem::create_directories(dir.file("empty_run"));
  EXPECT_TRUE(contains(import_error(dir, {dir.file("empty_run")}), "empty directory") ||
              contains(import_error(dir, {dir.file("empty_run")}), "holds no TensorFlow profile"));
  std::filesystem::create_directories(dir.file("logs/plugins/profile/2024_01_01_00_00_00"));
  EXPECT_EQ(sniff_format(dir.file("logs")), "xplane");
  EXPECT_EQ(import_error(dir, {dir.file("logs")}),
            dir.file("logs") + " is a TensorBoard log directory without profile runs: " +
                dir.file("logs") + "/plugins/profile holds no run directory with .xplane.pb files");
  ImportOptions o;
  o.tf_run = "other";
  test::write_space(dir, profile("r"), "run/h.xplane.pb");
  EXPECT_TRUE(contains(import_error(dir, {dir.file("run")}, o),
                       "is a profile run directory ('run'), not a log directory with a run "
                       "'other'"));
}

TEST(XPlaneSources, ProfilesAndJsonTracesDoNotMix) {
  ImportDir dir;
  const std::string pb = test::write_space(dir, profile("x"), "h.xplane.pb");
  const std::string json = dir.write("t.json", "{\"traceEvents\":[]}");
  EXPECT_EQ(import_error(dir, {pb, json}),
            "cannot import TensorFlow profiles and JSON traces into one trace: import them "
            "separately");
  EXPECT_EQ(import_error(dir, {json, pb}),
            "cannot import TensorFlow profiles and JSON traces into one trace: import them "
            "separately");
}

TEST(XPlaneSources, TwoFilesOfOneHostGetDistinctNames) {
  ImportDir dir;
  const std::string a = test::write_space(dir, profile("a", "same"), "a.xplane.pb");
  const std::string b = test::write_space(dir, profile("b", "same"), "b.xplane.pb");
  const auto r = test::import_sources(dir, {a, b});
  ASSERT_EQ(r.reader->processes().size(), 2u);
  EXPECT_EQ(r.reader->processes()[0].name, "same");
  EXPECT_EQ(r.reader->processes()[1].name, "same (b.xplane.pb)");
}

TEST(XPlaneSources, HostFromFileName) {
  EXPECT_EQ(host_from_file_name("worker-0.xplane.pb"), "worker-0");
  EXPECT_EQ(host_from_file_name("10.0.0.1_6006.xplane.pb.gz"), "10.0.0.1_6006");
  EXPECT_EQ(host_from_file_name("h.xplane.riegeli"), "h");
  EXPECT_EQ(host_from_file_name("trace.json"), "");
}

}  // namespace
}  // namespace ts::import
