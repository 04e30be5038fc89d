// report, check, diff and export on the sample traces in traces/ (see traces/README.md): exit
// codes, the stable JSON keys, the check's violation lines and JUnit XML, and an export that
// is valid JSON holding one event per stored event.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "profiler/store/writer.hpp"
#include "run_command.hpp"
#include "tests/support/xml_doc.hpp"

namespace ts::test {
namespace {

using Json = nlohmann::json;

const std::string kInputBound = "traces/input_bound.db";
const std::string kTuned = "traces/tuned.db";
const std::string kOpenCl = "traces/opencl.db";

Json report_json(const std::string& args) {
  const CommandResult r = run_trainscope("report --json " + args);
  EXPECT_EQ(r.status, 0) << r.err;
  return Json::parse(r.out);
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t nl; (nl = text.find('\n', start)) != std::string::npos; start = nl + 1)
    out.push_back(text.substr(start, nl - start));
  if (start < text.size()) out.push_back(text.substr(start));
  return out;
}

TEST(Report, TextStartsWithTheVerdictSentence) {
  const CommandResult r = run_trainscope("report " + kInputBound);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out.rfind("Highly input-bound: ", 0), 0u) << r.out;
  // The same job with the tuned pipeline: what input wait is left is the hand-over of cached
  // batches, a few % of the MLP's short steps.
  const CommandResult t = run_trainscope("report " + kTuned);
  EXPECT_EQ(t.out.rfind("Moderately input-bound: ", 0), 0u) << t.out;
}

TEST(Report, JsonHasTheDesignKeys) {
  for (const std::string& trace : {kInputBound, kTuned, kOpenCl}) {
    const Json j = report_json(trace);
    EXPECT_GT(j.at("steps").get<double>(), 0) << trace;
    for (const char* k : {"mean", "p50", "p90"})
      EXPECT_TRUE(j.at("step_time_ms").at(k).is_number()) << trace << " " << k;
    double parts = 0;
    for (const char* k : {"device_compute", "d2h", "h2d", "input_wait", "input_handoff", "launch",
                          "sync", "host_compute", "other"})
      parts += j.at("breakdown_ms").at(k).get<double>();
    // The parts sum to the summed step time: steps × mean step time.
    EXPECT_NEAR(parts, j.at("steps").get<double>() * j.at("step_time_ms").at("mean").get<double>(),
                0.01 * parts + 0.01)
        << trace;
    EXPECT_TRUE(j.at("input_pct").is_number());
    const std::set<std::string> verdicts = {"high", "moderate", "none"};
    EXPECT_TRUE(verdicts.count(j.at("verdict").get<std::string>()))
        << j.at("verdict").get<std::string>();
    EXPECT_TRUE(j.at("input_bound_steps").is_number());
    const Json& device = j.at("device");
    EXPECT_NEAR(device.at("busy_pct").get<double>() + device.at("idle_pct").get<double>(), 100,
                0.01);
    for (const char* k : {"input", "host", "sync", "other"})
      EXPECT_TRUE(device.at("idle_by_cause_ms").at(k).is_number()) << k;
    EXPECT_GT(j.at("samples_per_s").get<double>(), 0);
    const Json& stage = j.at("bottleneck_stage");
    EXPECT_TRUE(stage.is_string() || stage.is_null());
    ASSERT_FALSE(j.at("kernels").empty()) << trace;
    for (const Json& k : j.at("kernels")) {
      EXPECT_FALSE(k.at("name").get<std::string>().empty());
      EXPECT_GT(k.at("count").get<double>(), 0);
      EXPECT_GE(k.at("total_ms").get<double>(), 0);
      EXPECT_GE(k.at("share_pct").get<double>(), 0);
    }
    EXPECT_TRUE(j.at("recommendations").is_array());
  }
}

TEST(Report, SampleVerdicts) {
  const Json naive = report_json(kInputBound);
  EXPECT_EQ(naive.at("verdict").get<std::string>(), "high");
  EXPECT_TRUE(naive.at("bottleneck_stage").is_string());
  EXPECT_EQ(report_json(kTuned).at("verdict").get<std::string>(), "moderate");
}

TEST(Report, OptionsChangeTheFigures) {
  const Json base = report_json(kOpenCl);
  const Json pricey = report_json(kOpenCl + " --gpu-hour-price 10");
  EXPECT_EQ(pricey.at("gpu_hour_price").get<double>(), 10);
  EXPECT_NEAR(pricey.at("idle_cost_per_1000_steps").get<double>(),
              4 * base.at("idle_cost_per_1000_steps").get<double>(),
              0.002 + 0.01 * pricey.at("idle_cost_per_1000_steps").get<double>());
  const Json all = report_json(kInputBound + " --step-input-threshold 0");
  EXPECT_EQ(all.at("input_bound_steps").get<double>(), all.at("steps").get<double>());
  const Json none = report_json(kTuned + " --step-input-threshold=100");
  EXPECT_EQ(none.at("input_bound_steps").get<double>(), 0);
}

TEST(Check, AllLimitsHold) {
  const CommandResult r = run_trainscope("check " + kTuned + " --max-input-pct 20");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  EXPECT_NE(r.out.find("is within --max-input-pct 20"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the limit holds"), std::string::npos) << r.out;
}

TEST(Check, OneLinePerViolatedLimit) {
  const Json j = report_json(kInputBound);
  const CommandResult one =
      run_trainscope("check " + kInputBound + " --max-input-pct 20 --max-device-idle-pct 100");
  EXPECT_EQ(one.status, 1);
  const auto err = lines(one.err);
  ASSERT_EQ(err.size(), 1u) << one.err;
  char expected[128];
  std::snprintf(expected, sizeof expected,
                "%s: input %.1f %% of step time exceeds --max-input-pct 20", kInputBound.c_str(),
                j.at("input_pct").get<double>());
  EXPECT_EQ(err[0], expected);
  EXPECT_NE(one.out.find("is within --max-device-idle-pct 100"), std::string::npos);
  EXPECT_NE(one.out.find("1 of 2 limits violated"), std::string::npos) << one.out;

  const CommandResult two =
      run_trainscope("check " + kInputBound + " --max-input-pct 1 --max-device-idle-pct 0");
  EXPECT_EQ(two.status, 1);
  const auto err2 = lines(two.err);
  ASSERT_EQ(err2.size(), 2u) << two.err;
  EXPECT_NE(err2[0].find("exceeds --max-input-pct 1"), std::string::npos);
  EXPECT_NE(err2[1].find("exceeds --max-device-idle-pct 0"), std::string::npos);
}

TEST(Check, LimitEqualToTheFigureHolds) {
  // --max-input-pct 100 can never be exceeded; 0 is exceeded by any input at all.
  EXPECT_EQ(run_trainscope("check " + kInputBound + " --max-input-pct 100").status, 0);
  EXPECT_EQ(run_trainscope("check " + kInputBound + " --max-input-pct 0").status, 1);
}

TEST(Check, Baseline) {
  // The naive run's steps wait for every batch: slower than the tuned baseline, faster than the
  // reverse; a run against itself has not slowed down.
  const CommandResult slower = run_trainscope("check " + kInputBound + " --baseline " + kTuned +
                                              " --max-step-time-increase-pct 10");
  EXPECT_EQ(slower.status, 1) << slower.out;
  const auto err = lines(slower.err);
  ASSERT_EQ(err.size(), 1u) << slower.err;
  EXPECT_NE(err[0].find("median step time"), std::string::npos) << err[0];
  EXPECT_NE(err[0].find(kTuned), std::string::npos) << err[0];
  EXPECT_NE(err[0].find("exceeds --max-step-time-increase-pct 10"), std::string::npos) << err[0];
  EXPECT_EQ(run_trainscope("check " + kTuned + " --baseline " + kInputBound +
                           " --max-step-time-increase-pct 0")
                .status,
            0);
  EXPECT_EQ(run_trainscope("check " + kOpenCl + " --baseline " + kOpenCl +
                           " --max-step-time-increase-pct 0")
                .status,
            0);
}

TEST(Check, JUnitXmlHasOneTestCasePerLimit) {
  TempDir dir;
  const std::string junit = dir.file("check.xml");
  const CommandResult r = run_trainscope(
      "check " + kInputBound + " --max-input-pct 20 --max-device-idle-pct 100 --baseline " +
      kInputBound + " --max-step-time-increase-pct 5 --junit " + junit);
  EXPECT_EQ(r.status, 1);
  const pugi::xml_document xml = parse_xml(read_file(junit));
  const pugi::xml_node doc = xml.document_element();
  EXPECT_STREQ(doc.name(), "testsuites");
  const auto cases = all(doc, "testcase");
  ASSERT_EQ(cases.size(), 3u);
  EXPECT_EQ(attr(cases[0], "name"), "max-input-pct");
  EXPECT_EQ(attr(cases[1], "name"), "max-device-idle-pct");
  EXPECT_EQ(attr(cases[2], "name"), "max-step-time-increase-pct");
  EXPECT_EQ(all(cases[0], "failure").size(), 1u);
  EXPECT_EQ(all(cases[1], "failure").size(), 0u);
  EXPECT_EQ(all(cases[2], "failure").size(), 0u);  // a run against itself has not slowed down
  EXPECT_EQ(attr(all(doc, "testsuite")[0], "tests"), "3");
  EXPECT_EQ(attr(all(doc, "testsuite")[0], "failures"), "1");
  EXPECT_EQ(attr(all(cases[0], "failure")[0], "message"), lines(r.err).at(0));

  const CommandResult pass =
      run_trainscope("check " + kTuned + " --max-input-pct 20 --junit " + junit);
  EXPECT_EQ(pass.status, 0);
  const pugi::xml_document ok = parse_xml(read_file(junit));
  EXPECT_EQ(all(ok, "testcase").size(), 1u);
  EXPECT_EQ(all(ok, "failure").size(), 0u);
}

TEST(Check, DeviceIdleOfATraceWithoutDeviceActivityCannotHold) {
  TempDir dir;
  const std::string path = dir.file("host_only.db");
  {
    store::Writer w(path);
    w.put_string(1, "step");
    w.put_string(2, "forward");
    w.put_label(1, 1, trace::Category::step);
    w.put_label(2, 2, trace::Category::host_compute);
    w.put_track(1, "main", trace::TrackKind::thread);
    const std::vector<store::EventRow> rows = {{1000, 1000, 1, 1, 0}, {1100, 800, 1, 2, 0}};
    w.append(std::span<const store::EventRow>(rows));
    w.finish();
  }
  const CommandResult r = run_trainscope("check " + path + " --max-device-idle-pct 50");
  EXPECT_EQ(r.status, 1) << r.err;
  EXPECT_EQ(r.err, path +
                       ": the trace records no device activity, so --max-device-idle-pct 50 "
                       "cannot hold\n");
  EXPECT_EQ(run_trainscope("check " + path + " --max-input-pct 5").status, 0);
}

// A trace with gaps in its data (here: events the capture dropped) fails the check as
// "complete-trace", whatever its figures, unless --allow-partial says the gaps are expected.
TEST(Check, APartialTraceFailsUnlessAllowed) {
  TempDir dir;
  const std::string path = dir.file("partial.db");
  std::filesystem::copy_file(kTuned, path);
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open(path.c_str(), &db), SQLITE_OK);
  EXPECT_EQ(
      sqlite3_exec(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('dropped_events', '7')",
                   nullptr, nullptr, nullptr),
      SQLITE_OK);
  sqlite3_close(db);

  const CommandResult strict = run_trainscope("check " + path + " --max-input-pct 100");
  EXPECT_EQ(strict.status, 1) << strict.out;
  const auto err = lines(strict.err);
  ASSERT_EQ(err.size(), 2u) << strict.err;
  EXPECT_EQ(err[0].rfind(path + ": warning: 7 events were dropped", 0), 0u) << err[0];
  EXPECT_NE(err[1].find("the trace is partial (1 gap)"), std::string::npos) << err[1];

  const std::string junit = dir.file("check.xml");
  const CommandResult allowed =
      run_trainscope("check " + path + " --max-input-pct 100 --allow-partial --junit " + junit);
  EXPECT_EQ(allowed.status, 0) << allowed.err;
  EXPECT_NE(allowed.err.find(": warning: 7 events were dropped"), std::string::npos)
      << "the gap is still said";
  const pugi::xml_document doc = parse_xml(read_file(junit));
  EXPECT_EQ(all(doc, "testcase").size(), 1u) << "no complete-trace case when gaps are allowed";
  EXPECT_EQ(all(doc, "failure").size(), 0u);

  // The complete sample trace passes without the flag.
  EXPECT_EQ(run_trainscope("check " + kTuned + " --max-input-pct 100").status, 0);
}

// synth writes the benchmarks' synthetic trace: about the events asked for, in whole steps, with
// the share of input-bound steps asked for, readable by every command.
TEST(Synth, WritesATraceOfTheSizeAsked) {
  TempDir dir;
  const std::string out = dir.file("synth.db");
  const CommandResult r =
      run_trainscope("synth --events 20000 --input-bound-fraction 1 --seed 7 -o " + out);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::int64_t events = std::stoll(sql(out, "SELECT count(*) FROM event").rows.at(0).at(0));
  EXPECT_GE(events, 20000);
  EXPECT_LT(events, 20200);
  std::string grouped = std::to_string(events);  // as the CLI prints it: "20 016"
  for (int i = static_cast<int>(grouped.size()) - 3; i > 0; i -= 3)
    grouped.insert(static_cast<std::size_t>(i), 1, ' ');
  EXPECT_NE(r.out.find("Wrote " + grouped + " events"), std::string::npos) << r.out;
  EXPECT_EQ(report_json(out).at("verdict").get<std::string>(), "high")
      << "every step made to wait for input";
  EXPECT_EQ(run_trainscope("synth --events 0 -o " + out).status, 2);
  EXPECT_EQ(run_trainscope("synth --events 100").status, 2);
  // --out and --output name the file as -o does; twice is an error.
  const std::string named = dir.file("named.db");
  ASSERT_EQ(run_trainscope("synth --events 5000 --no-analysis --out " + named).status, 0);
  EXPECT_EQ(sql(named, "SELECT count(*) > 0 FROM event").rows.at(0).at(0), "1");
  EXPECT_EQ(run_trainscope("synth --events 5000 --output " + named).status, 0);
  const CommandResult twice = run_trainscope("synth --events 5000 --out " + named + " -o " + named);
  EXPECT_EQ(twice.status, 2);
  EXPECT_NE(twice.err.find("give the output once"), std::string::npos) << twice.err;
}

// synth keeps the trace's analysis in it; report reads it back and prints exactly what a fresh
// analysis prints, and a report of other options analyses the events.
TEST(Synth, KeepsTheAnalysisThatReportReadsBack) {
  TempDir dir;
  const std::string kept = dir.file("kept.db"), plain = dir.file("plain.db");
  ASSERT_EQ(run_trainscope("synth --events 30000 --seed 3 -o " + kept).status, 0);
  ASSERT_EQ(run_trainscope("synth --events 30000 --seed 3 --no-analysis -o " + plain).status, 0);
  EXPECT_EQ(sql(kept, "SELECT count(DISTINCT key) FROM analysis").rows.at(0).at(0), "1");
  EXPECT_EQ(sql(plain, "SELECT count(*) FROM analysis").rows.at(0).at(0), "0");
  const auto report = [](const std::string& args, const std::string& file) {
    const CommandResult r = run_trainscope("report " + args + " " + file);
    EXPECT_EQ(r.status, 0) << r.err;
    // The file's name, where the report names it, as "F".
    std::string out;
    for (std::size_t at = 0;;) {
      const std::size_t next = r.out.find(file, at);
      out.append(r.out, at, next == std::string::npos ? std::string::npos : next - at);
      if (next == std::string::npos) break;
      out += 'F';
      at = next + file.size();
    }
    return out;
  };
  EXPECT_EQ(report("--json", kept), report("--json", plain));
  EXPECT_EQ(report("", kept), report("", plain));
  EXPECT_EQ(report("--gpu-hour-price 7 --json", kept), report("--gpu-hour-price 7 --json", plain));
  // Below a million events the reports did not keep theirs in the plain trace.
  EXPECT_EQ(sql(plain, "SELECT count(*) FROM analysis").rows.at(0).at(0), "0");
}

TEST(Diff, SideBySide) {
  const CommandResult r = run_trainscope("diff " + kInputBound + " " + kTuned);
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find(kInputBound), std::string::npos);
  EXPECT_NE(r.out.find(kTuned), std::string::npos);
  EXPECT_NE(r.out.find("high -> moderate"), std::string::npos) << r.out;

  const CommandResult j = run_trainscope("diff --json " + kInputBound + " " + kTuned);
  ASSERT_EQ(j.status, 0) << j.err;
  const Json d = Json::parse(j.out);
  EXPECT_EQ(d.at("a").at("file").get<std::string>(), kInputBound);
  EXPECT_EQ(d.at("b").at("file").get<std::string>(), kTuned);
  EXPECT_EQ(d.at("verdict").at("a").get<std::string>(), "high");
  EXPECT_EQ(d.at("verdict").at("b").get<std::string>(), "moderate");
  EXPECT_TRUE(d.at("kernels").is_array());
}

// The sample pair is one job, naive against tuned: the tuned run leaves out its cache-filling
// first epoch, so the diff leaves it out of both, says so, and gives every step's figure beside.
TEST(Diff, ComparesTheSameStepsAndTheWholeRun) {
  const Json a = report_json(kInputBound);
  const Json b = report_json(kTuned);
  ASSERT_NE(a.at("phases").at("analysed_steps").at(0), b.at("phases").at("analysed_steps").at(0))
      << "the rules differ";
  const CommandResult r = run_trainscope("diff " + kInputBound + " " + kTuned);
  ASSERT_EQ(r.status, 0) << r.err;
  const std::string steps =
      "over steps " + std::to_string(b.at("phases").at("analysed_steps").at(0).get<int>()) + "-" +
      std::to_string(b.at("phases").at("analysed_steps").at(1).get<int>()) + " of both";
  EXPECT_NE(r.out.find(steps), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nSteps compared: "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("epoch 1 fills the input cache"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nWhole run: B is "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("idle cost per "), std::string::npos) << r.out;
  const Json d = Json::parse(run_trainscope("diff --json " + kInputBound + " " + kTuned).out);
  EXPECT_EQ(d.at("steps_compared").at("a").at("first_step"),
            b.at("phases").at("analysed_steps").at(0));
  EXPECT_EQ(d.at("steps_compared").at("b").at("first_step"),
            b.at("phases").at("analysed_steps").at(0));
  EXPECT_TRUE(d.at("steps_compared").at("same_steps").get<bool>());
  EXPECT_GT(d.at("whole_run").at("speedup").get<double>(), 0);
  // Neither saving is more than the hour costs.
  for (const Json* s : {&d.at("saving"), &d.at("whole_run").at("saving")})
    EXPECT_LE(std::abs(s->at("per_device_hour").get<double>()), 2.5) << *s;
  // One rule given for both: taken as given.
  const Json given =
      Json::parse(run_trainscope("diff --json --skip-warmup 0 " + kInputBound + " " + kTuned).out);
  EXPECT_EQ(given.at("steps_compared").at("a").at("first_step"), 0);
  EXPECT_TRUE(given.at("steps_compared").at("common_warmup_steps").is_null());
}

// --steps that holds no step of the trace is one error (exit 2) in every command that takes it;
// one it holds in part is analysed where it does, and stderr says which steps.
TEST(Steps, ARangeOutsideTheTraceIsAnErrorAndOnePartlyInsideSaysWhatItTook) {
  const std::int64_t last = report_json(kTuned + " --skip-warmup 0").at("steps").get<int>() - 1;
  for (const std::string& command : {"report " + kTuned, "check " + kTuned + " --max-input-pct 100",
                                     "diff " + kInputBound + " " + kTuned}) {
    const CommandResult r = run_trainscope(command + " --steps 5000-6000");
    EXPECT_EQ(r.status, 2) << command << "\n" << r.out;
    ASSERT_EQ(lines(r.err).size(), 1u) << command << "\n" << r.err;
    EXPECT_NE(r.err.find("--steps 5000-6000: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("holds steps 0-" + std::to_string(last) + ", none in that range"),
              std::string::npos)
        << r.err;
  }
  const CommandResult part = run_trainscope("report --json " + kTuned + " --steps 10-6000");
  ASSERT_EQ(part.status, 0) << part.err;
  EXPECT_EQ(part.err, "trainscope: --steps 10-6000: " + kTuned + " holds steps 0-" +
                          std::to_string(last) + "; analysing steps 10-" + std::to_string(last) +
                          "\n");
  const Json j = Json::parse(part.out);
  EXPECT_EQ(j.at("phases").at("analysed_steps").at(0).get<int>(), 10);
  EXPECT_EQ(j.at("steps").get<std::int64_t>(), last - 9);
  // The warm-up is what comes before the range, not every step left out.
  const CommandResult inside = run_trainscope("report " + kTuned + " --steps 3-5");
  ASSERT_EQ(inside.status, 0) << inside.err;
  EXPECT_EQ(inside.err, "");
  EXPECT_NE(inside.out.find("warm-up     steps 0-2 left out"), std::string::npos) << inside.out;
}

TEST(Recover, IndexesAKilledCapturesStagedEventsInPlace) {
  TempDir dir;
  const std::string path = dir.file("killed.db");
  {
    store::WriterOptions staged;
    staged.staged = true;
    store::Writer w(path, staged);
    w.put_string(1, "step");
    w.put_label(1, 1, trace::Category::step);
    w.put_track(1, "main", trace::TrackKind::thread);
    const std::vector<store::EventRow> rows = {{1000, 100, 1, 1, 0}, {2000, 100, 1, 1, 1}};
    w.append(std::span<const store::EventRow>(rows));
    w.commit();
    // As a SIGKILL would leave it: the commits in the -wal file, nothing indexed yet.
    std::filesystem::copy_file(path, dir.file("copy.db"));
    std::filesystem::copy_file(path + "-wal", dir.file("copy.db-wal"));
  }
  const std::string copy = dir.file("copy.db");
  const CommandResult r = run_trainscope("recover " + copy);
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "Indexed 2 staged events into " + copy + "\n");
  EXPECT_EQ(sql(copy, "SELECT count(*) FROM steps").rows.at(0).at(0), "2");
  const CommandResult again = run_trainscope("recover " + copy);
  EXPECT_EQ(again.status, 0);
  EXPECT_NE(again.out.find("nothing to recover"), std::string::npos) << again.out;
  const CommandResult bad = run_trainscope("recover " + dir.file("missing.db"));
  EXPECT_EQ(bad.status, 2);
  EXPECT_NE(bad.err.find("missing.db"), std::string::npos) << bad.err;
}

// The number of events of each kind an export of `trace` must hold, counted with SQL.
struct Expected {
  std::int64_t complete = 0, counters = 0, metadata = 0;
};

Expected expected_counts(const std::string& trace) {
  Expected e;
  e.complete = std::stoll(sql(trace, "SELECT count(*) FROM event").rows.at(0).at(0));
  // Counter samples are all finite in a capture; each is one "C" event.
  e.counters = std::stoll(sql(trace, "SELECT count(*) FROM counter_sample").rows.at(0).at(0));
  const auto threads =
      std::stoll(sql(trace, "SELECT count(*) FROM track WHERE kind IN (0, 1)").rows.at(0).at(0));
  const bool device =
      std::stoll(sql(trace, "SELECT count(*) FROM track WHERE kind = 1").rows.at(0).at(0)) > 0;
  e.metadata = 2 + (device ? 2 : 0) + 2 * threads;  // names and sort indices
  return e;
}

TEST(Export, ValidJsonWithOneEventPerStoredEvent) {
  TempDir dir;
  for (const std::string& trace : {kInputBound, kTuned, kOpenCl}) {
    const std::string out = dir.file("out.json");
    // The recorded events only (the analysis tracks: CarriesTheAnalysisAsTracks).
    const CommandResult r =
        run_trainscope("export " + trace + " --chrome " + out + " --no-analysis");
    ASSERT_EQ(r.status, 0) << r.err;
    const Expected want = expected_counts(trace);
    EXPECT_NE(r.out.find(std::to_string(want.complete) + " events"), std::string::npos) << r.out;
    const Json doc = Json::parse(read_file(out));
    std::map<std::string, std::int64_t> phases;
    std::set<std::pair<double, double>> device_threads;
    for (const Json& e : doc.at("traceEvents")) {
      ++phases[e.at("ph").get<std::string>()];
      if (e.at("ph").get<std::string>() == "X" && e.at("cat").get<std::string>() == "kernel")
        device_threads.insert({e.at("pid").get<double>(), e.at("tid").get<double>()});
    }
    EXPECT_EQ(phases["X"], want.complete) << trace;
    EXPECT_EQ(phases["C"], want.counters) << trace;
    EXPECT_EQ(phases["M"], want.metadata) << trace;
    // A flow arrow per correlated launch and device event: "s" on the host, "f" on the device.
    const auto correlated =
        std::stoll(sql(trace, "SELECT count(*) FROM event_arg WHERE correlation IS NOT NULL")
                       .rows.at(0)
                       .at(0));
    EXPECT_EQ(phases["s"] + phases["f"], correlated) << trace;
    std::map<std::int64_t, std::pair<int, int>> ends;  // id -> (starts, finishes)
    for (const Json& e : doc.at("traceEvents")) {
      const std::string ph = e.at("ph").get<std::string>();
      if (ph == "s") ++ends[e.at("id").get<std::int64_t>()].first;
      if (ph == "f") {
        ++ends[e.at("id").get<std::int64_t>()].second;
        EXPECT_EQ(e.at("pid").get<double>(), 2) << "a flow finishes on the device";
        EXPECT_EQ(e.at("bp").get<std::string>(), "e");
      }
    }
    for (const auto& [id, n] : ends) EXPECT_EQ(n, std::make_pair(1, 1)) << trace << " id " << id;
    for (const auto& [ph, n] : phases)  // nothing else ("[]" above added zero entries)
      EXPECT_TRUE(n == 0 || ph == "X" || ph == "C" || ph == "M" || ph == "s" || ph == "f") << ph;
    // Kernels run on device queues, which are threads of the device process (pid 2).
    ASSERT_FALSE(device_threads.empty()) << trace;
    for (const auto& [pid, tid] : device_threads) EXPECT_EQ(pid, 2) << trace;
  }
}

TEST(Usage, HelpListsTheExitStatuses) {
  const CommandResult r = run_trainscope("--help");
  EXPECT_EQ(r.status, 0) << r.err;
  for (const char* status : {"0 success", "1 a failed check", "2 bad usage", "3 an internal error"})
    EXPECT_NE(r.out.find(status), std::string::npos) << status << "\n" << r.out;
}

// The analysis comes along as its own process: each step with its verdict, the device's idle
// gaps with their cause; --no-analysis leaves it out.
TEST(Export, CarriesTheAnalysisAsTracks) {
  TempDir dir;
  const std::string out = dir.file("out.json");
  ASSERT_EQ(run_trainscope("export " + kInputBound + " --chrome " + out).status, 0);
  const Json doc = Json::parse(read_file(out));
  const Json report = report_json(kInputBound + " --skip-warmup 0");
  std::int64_t input_bound = 0, steps = 0, gaps = 0;
  for (const Json& e : doc.at("traceEvents")) {
    if (e.at("pid").get<double>() != 3 || e.at("ph").get<std::string>() != "X") continue;
    const std::string cat = e.at("cat").get<std::string>();
    if (cat == "step" || cat == "input_bound_step") ++steps;
    if (cat == "input_bound_step") ++input_bound;
    if (cat.rfind("idle:", 0) == 0) ++gaps;
  }
  EXPECT_EQ(steps, report.at("steps").get<std::int64_t>());
  EXPECT_EQ(input_bound, report.at("input_bound_steps").get<std::int64_t>());
  EXPECT_GT(gaps, 0);
  ASSERT_EQ(run_trainscope("export " + kInputBound + " --chrome " + out + " --no-analysis").status,
            0);
  const Json plain = Json::parse(read_file(out));  // kept: the loop reads into it
  for (const Json& e : plain.at("traceEvents")) EXPECT_NE(e.at("pid").get<double>(), 3);
}

TEST(Export, ToStandardOutput) {
  const CommandResult r = run_trainscope("export " + kOpenCl + " --chrome -");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err, "");
  const Json doc = Json::parse(r.out);
  EXPECT_GT(doc.at("traceEvents").size(), 0u);
  EXPECT_EQ(doc.at("otherData").at("engine.backend").get<std::string>(), "opencl");
}

}  // namespace
}  // namespace ts::test
