// Chrome trace-event export of traces written with the store writer: valid JSON holding one
// "X" event per stored event, counters as "C" events, host threads and device queues in their
// own processes, exact timestamps and the event arguments.
#include <gtest/gtest.h>
#include <zlib.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "profiler/io/chrome_trace.hpp"
#include "profiler/io/gzip_stream.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/store_fixture.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using Json = nlohmann::json;
using ts::test::TempDir;

struct Exported {
  ts::io::ChromeTraceStats stats;
  std::string text;
  Json doc;
};

Exported export_trace(const std::string& path) {
  ts::store::Reader reader(path);
  std::ostringstream out;
  Exported e;
  e.stats = ts::io::write_chrome_trace(reader, out);
  e.text = out.str();
  e.doc = Json::parse(e.text);
  return e;
}

// Three 1 ms steps (store_fixture), plus four samples of the "fill" counter, one of them NaN.
std::string sample_trace(const TempDir& dir) {
  const std::string path = dir.file("run.db");
  ts::store::Writer w(path);
  ts::test::write_dictionary(w);
  w.put_meta("engine.device", "gpu");
  auto rows = ts::test::step_rows(3);
  w.append(std::span<const ts::store::EventRow>(rows));
  const std::vector<ts::store::CounterRow> fill = {{3, 1'000'000'000, 1.0},
                                                   {3, 1'000'500'000, 2.5},
                                                   {3, 1'001'000'000, std::nan("")},
                                                   {3, 1'002'000'000, 0.0}};
  w.append(std::span<const ts::store::CounterRow>(fill));
  w.finish();
  return path;
}

std::map<std::string, int> count_phases(const Json& doc) {
  std::map<std::string, int> n;
  for (const Json& e : doc.at("traceEvents")) ++n[e.at("ph").get<std::string>()];
  return n;
}

const Json* first_named(const Json& doc, const std::string& name, const std::string& ph = "X") {
  for (const Json& e : doc.at("traceEvents"))
    if (e.at("name").get<std::string>() == name && e.at("ph").get<std::string>() == ph) return &e;
  return nullptr;
}

TEST(ChromeTrace, OneCompleteEventPerStoredEventAndTheCounters) {
  TempDir dir;
  const auto e = export_trace(sample_trace(dir));
  EXPECT_EQ(e.stats.complete_events, 3 * 11);  // per step: the step, 5 zones, 5 kernels
  EXPECT_EQ(e.stats.counter_events, 3);        // the NaN sample is left out
  // process name + sort index for host and device, thread name + sort index for 2 tracks
  EXPECT_EQ(e.stats.metadata_events, 8);
  const auto n = count_phases(e.doc);
  EXPECT_EQ(n.at("X"), 33);
  EXPECT_EQ(n.at("C"), 3);
  EXPECT_EQ(n.at("M"), 8);
  EXPECT_EQ(static_cast<std::int64_t>(e.doc.at("traceEvents").size()), e.stats.total());
  EXPECT_EQ(e.doc.at("displayTimeUnit").get<std::string>(), "ms");
  EXPECT_EQ(e.doc.at("otherData").at("clock.origin_ns").get<std::string>(), "1000000000");
}

TEST(ChromeTrace, HostThreadsAndDeviceQueuesAreSeparateProcesses) {
  TempDir dir;
  const auto e = export_trace(sample_trace(dir));
  std::map<std::pair<double, double>, std::string> thread_names;
  std::map<double, std::string> process_names;
  for (const Json& ev : e.doc.at("traceEvents")) {
    if (ev.at("ph").get<std::string>() != "M") continue;
    const std::string what = ev.at("name").get<std::string>();
    if (what == "process_name")
      process_names[ev.at("pid").get<double>()] = ev.at("args").at("name").get<std::string>();
    if (what == "thread_name")
      thread_names[{ev.at("pid").get<double>(), ev.at("tid").get<double>()}] =
          ev.at("args").at("name").get<std::string>();
  }
  EXPECT_EQ(process_names[1], "host");
  EXPECT_EQ(process_names[2], "device: gpu");
  EXPECT_EQ((thread_names[{1, 1}]), "main");
  EXPECT_EQ((thread_names[{2, 2}]), "gpu0");
  EXPECT_EQ(thread_names.size(), 2u);  // the counter track is no thread
  for (const Json& ev : e.doc.at("traceEvents")) {
    if (ev.at("ph").get<std::string>() == "X") {
      EXPECT_EQ(ev.at("pid").get<double>(), ev.at("tid").get<double>() == 2 ? 2 : 1);
      EXPECT_EQ(ev.at("cat").get<std::string>(),
                ev.at("name").get<std::string>() == "gemm"  ? "kernel"
                : ev.at("name").get<std::string>() == "fwd" ? "host_compute"
                                                            : "step");
    }
    if (ev.at("ph").get<std::string>() == "C") {
      EXPECT_EQ(ev.at("name").get<std::string>(), "fill");
      EXPECT_EQ(ev.at("pid").get<double>(), 1);
    }
  }
}

TEST(ChromeTrace, TimestampsAreMicrosecondsSinceTheCaptureStart) {
  TempDir dir;
  const auto e = export_trace(sample_trace(dir));
  // clock.origin_ns is 1 s; the first step starts there, its first zone 10 us later.
  const Json* step = first_named(e.doc, "step");
  ASSERT_NE(step, nullptr);
  EXPECT_EQ(step->at("ts").dump(), "0");
  EXPECT_EQ(step->at("dur").dump(), "1000");
  const Json* fwd = first_named(e.doc, "fwd");
  ASSERT_NE(fwd, nullptr);
  EXPECT_EQ(fwd->at("ts").dump(), "10");
  EXPECT_EQ(fwd->at("dur").dump(), "100");
  const Json* fill = first_named(e.doc, "fill", "C");
  ASSERT_NE(fill, nullptr);
  EXPECT_EQ(fill->at("ts").dump(), "0");
  EXPECT_EQ(fill->at("args").at("value").get<double>(), 1.0);
  EXPECT_EQ(e.stats.origin_ns, 1'000'000'000);
}

TEST(ChromeTrace, ArgumentsCarryStepBytesWorkSizeCorrelationAndSource) {
  TempDir dir;
  const auto e = export_trace(sample_trace(dir));
  int kernels = 0;
  for (const Json& ev : e.doc.at("traceEvents")) {
    if (ev.at("ph").get<std::string>() != "X") continue;
    const Json& args = ev.at("args");
    const double step = args.at("step").get<double>();
    if (ev.at("name").get<std::string>() == "gemm") {
      ++kernels;
      EXPECT_EQ(args.at("work_size").get<double>(), 64);
      EXPECT_EQ(args.at("correlation").get<double>(), step);
      EXPECT_FALSE(args.contains("bytes"));
    } else if (ev.at("name").get<std::string>() == "fwd") {
      EXPECT_EQ(args.at("bytes").get<double>(), 1024);
      EXPECT_EQ(args.at("source").get<std::string>(), "model.cpp:12");
      EXPECT_FALSE(args.contains("correlation"));
    }
  }
  EXPECT_EQ(kernels, 15);
}

TEST(ChromeTrace, ANumberedStepLabelGivesEachStepItsName) {
  // Imported ProfilerStep#N markers share the label "ProfilerStep#"; each event is written
  // under its own name again, the other events under their label's.
  TempDir dir;
  const std::string path = dir.file("run.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    w.put_string(5, ts::store::kNumberedStepName);
    w.put_label(4, 5, ts::trace::Category::step);
    auto rows = ts::test::step_rows(3);
    for (ts::store::EventRow& r : rows)
      if (r.label == 3) r.label = 4;
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  const auto e = export_trace(path);
  for (int step = 0; step < 3; ++step) {
    const Json* marker = first_named(e.doc, "ProfilerStep#" + std::to_string(step));
    ASSERT_NE(marker, nullptr) << step;
    EXPECT_EQ(marker->at("args").at("step").get<int>(), step);
  }
  EXPECT_EQ(first_named(e.doc, "ProfilerStep#"), nullptr);
  EXPECT_NE(first_named(e.doc, "fwd"), nullptr);
}

TEST(ChromeTrace, HostileNamesStillGiveValidJson) {
  TempDir dir;
  const std::string path = dir.file("hostile.db");
  {
    ts::store::Writer w(path);
    w.put_string(1, "quote\" back\\slash \x01 bad\xff utf8 \xed\xa0\x80");
    w.put_string(2, "</script>\n\"");
    w.put_label(1, 1, ts::trace::Category::kernel, 2, 7);
    w.put_track(1, "thread \"\xc0\xaf", ts::trace::TrackKind::thread);
    w.put_meta("key\xfe", "value\x7f\x80");
    const std::vector<ts::store::EventRow> rows = {{5'000, 10, 1, 1}, {6'000, 10, 9, 77}};
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  const auto e = export_trace(path);  // Json::parse throws on invalid JSON or UTF-8
  EXPECT_EQ(e.stats.complete_events, 2);
  // No clock.origin_ns: the first event is ts 0. An unknown track and label are exported too.
  const Json* unknown = first_named(e.doc, "?");
  ASSERT_NE(unknown, nullptr);
  EXPECT_EQ(unknown->at("ts").dump(), "1");
  EXPECT_EQ(unknown->at("tid").get<double>(), 9);
  EXPECT_EQ(unknown->at("cat").get<std::string>(), "other");
}

TEST(ChromeTrace, AnEmptyTraceIsAValidFileWithNoEvents) {
  TempDir dir;
  const std::string path = dir.file("empty.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    w.finish();
  }
  const auto e = export_trace(path);
  EXPECT_EQ(e.stats.complete_events, 0);
  EXPECT_EQ(e.stats.counter_events, 0);
  EXPECT_EQ(count_phases(e.doc).count("X"), 0u);
}

TEST(ChromeTrace, ManyEventsStreamThroughInOrder) {
  TempDir dir;
  const std::string path = dir.file("big.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(3000);
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  const auto e = export_trace(path);
  EXPECT_EQ(e.stats.complete_events, 33000);
  double last = -1;
  for (const Json& ev : e.doc.at("traceEvents")) {
    if (ev.at("ph").get<std::string>() != "X") continue;
    EXPECT_GE(ev.at("ts").get<double>(), last);
    last = ev.at("ts").get<double>();
  }
}

TEST(ChromeTrace, WritesAFileAtomically) {
  TempDir dir;
  const std::string trace = sample_trace(dir);
  ts::store::Reader reader(trace);
  const std::string out = dir.file("out.json");
  const auto stats = ts::io::write_chrome_trace(reader, out);
  EXPECT_EQ(stats.complete_events, 33);
  EXPECT_NO_THROW(Json::parse(ts::test::read_file(out)));
  EXPECT_FALSE(std::filesystem::exists(out + ".partial"));

  const std::string bad = dir.file("no/such/dir/out.json");
  try {
    ts::io::write_chrome_trace(reader, bad);
    FAIL() << "expected WriteError";
  } catch (const ts::io::WriteError& e) {
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(bad + ".partial"));
}

TEST(ChromeTrace, AFullDiskThrowsWriteError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  ts::store::Reader reader(sample_trace(dir));
  std::ofstream full("/dev/full");
  EXPECT_THROW(ts::io::write_chrome_trace(reader, full), ts::io::WriteError);
}

// The events are read on a thread of their own: a write that fails while it still reads them
// stops it (no hang, the error comes out).
TEST(ChromeTrace, AFullDiskWhileEventsAreReadThrowsWriteError) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  const std::string path = dir.file("big.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(50000);  // many of the reading thread's batches
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  ts::store::Reader reader(path);
  std::ofstream full("/dev/full");
  EXPECT_THROW(ts::io::write_chrome_trace(reader, full), ts::io::WriteError);
}

// Inflates a gzip file with zlib's own reader, as Perfetto UI's does.
std::string gunzip(const std::string& path) {
  gzFile f = gzopen(path.c_str(), "rb");
  if (!f) return "";
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(f, buffer, sizeof buffer)) > 0)
    text.append(buffer, static_cast<std::size_t>(n));
  gzclose(f);
  return text;
}

TEST(ChromeTrace, AGzNameIsWrittenCompressedWithTheSameContent) {
  TempDir dir;
  const std::string path = dir.file("big.db");
  {
    ts::store::Writer w(path);
    ts::test::write_dictionary(w);
    auto rows = ts::test::step_rows(20000);  // several of the compressor's 1 MiB blocks
    w.append(std::span<const ts::store::EventRow>(rows));
    w.finish();
  }
  ts::store::Reader reader(path);
  const std::string plain = dir.file("out.json"), packed = dir.file("out.json.gz");
  const auto a = ts::io::write_chrome_trace(reader, plain);
  const auto b = ts::io::write_chrome_trace(reader, packed);
  EXPECT_EQ(a.total(), b.total());
  const std::string text = ts::test::read_file(plain);
  EXPECT_GT(text.size(), std::size_t{3} << 20);
  EXPECT_EQ(gunzip(packed), text);
  EXPECT_LT(std::filesystem::file_size(packed), text.size() / 4);
  EXPECT_FALSE(std::filesystem::exists(packed + ".partial"));
}

TEST(ChromeTrace, AFullDiskUnderGzipThrowsWriteErrorAndEnds) {
  if (!std::filesystem::exists("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  ts::store::Reader reader(sample_trace(dir));
  std::ofstream full("/dev/full");
  ts::io::GzipOstream gz(full);
  ts::io::write_chrome_trace(reader, gz);
  EXPECT_THROW(gz.finish(), ts::io::WriteError);
}

}  // namespace
