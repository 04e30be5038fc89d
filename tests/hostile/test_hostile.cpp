// The hostile-input suite: each case generates its input, runs it through the trainscope binary
// and holds it to a budget: wall time, peak memory of the child, exit status and message. The
// budgets are generous (5x and more the times measured on a 2-core machine, docs/reliability.md):
// they catch a cost that follows what a file claims, not a slow machine. Every run's figures are
// printed as a table row ("| case | s | MiB | exit | message |").
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <thread>

#include "tests/hostile/hostile_inputs.hpp"
#include "tests/hostile/hostile_run.hpp"

namespace ts::hostile {
namespace {

namespace fs = std::filesystem;

// Appends one JSON event (or several, comma-separated) to a comma-separated list.
void append_event(std::string& list, const std::string& event) {
  if (!list.empty()) list += ',';
  list += event;
}

// How much slower than the budgets a busy machine may run a case before it counts as hung.
constexpr double kLoadAllowance = 4.0;

struct Budget {
  double seconds;
  std::uint64_t rss_mib;
  int status;           // -1: any
  std::string message;  // in stderr (or stdout when exit 0 and stderr lacks it)
};

class Hostile : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (fs::temp_directory_path() / "tshostile_XXXXXX").string();
    ASSERT_NE(::mkdtemp(tmpl.data()), nullptr);
    dir_ = tmpl;
  }
  void TearDown() override {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string file(const std::string& name) const { return dir_ + "/" + name; }

  // Runs `args` and checks the budget; returns the run for further checks.
  RunResult check(const std::string& name, const std::vector<std::string>& args, const Budget& b,
                  bool stdout_pipe = false, const std::string& binary = TRAINSCOPE_BIN) {
    const RunResult r = run_trainscope(args, dir_, stdout_pipe, binary);
    // The error: stderr's last line (a note on the import may come before it).
    std::string last_line = r.err.substr(0, r.err.find_last_not_of('\n') + 1);
    last_line = r.status == 0 ? "" : last_line.substr(last_line.rfind('\n') + 1);
    std::cout << "| " << name << " | " << r.seconds << " s | " << r.peak_rss_kib / 1024 << " MiB | "
              << r.status << " | " << last_line.substr(0, 160) << " |\n";
    if (b.status >= 0) {
      EXPECT_EQ(r.status, b.status) << name << ": " << r.err;
    }
    // A hang guard, not a speed check: the budgets are already 5x what was measured, and a loaded
    // CI machine (or a sanitizer build) may be several times slower again.
    EXPECT_LE(r.seconds, kLoadAllowance * b.seconds) << name;
    EXPECT_LE(r.peak_rss_kib / 1024, b.rss_mib) << name;
    if (!b.message.empty()) {
      EXPECT_NE((r.err + r.out).find(b.message), std::string::npos)
          << name << ": no '" << b.message << "' in: " << r.err.substr(0, 2000);
    }
    EXPECT_EQ(r.err.find("internal error"), std::string::npos) << name << ": " << r.err;
    return r;
  }

  std::string fixture() const {
    return read_gzip(std::string(TS_SOURCE_DIR) +
                     "/tests/data/pytorch/input_bound.pt.trace.json.gz");
  }
  // The fixture with `event` inserted as the first event of its traceEvents array.
  std::string fixture_with(const std::string& event) const {
    std::string t = fixture();
    const std::size_t at = t.find('[', t.find("\"traceEvents\"")) + 1;
    t.insert(at, event + ",");
    return t;
  }

  std::string dir_;
};

TEST_F(Hostile, NumberTooBigForADoubleSkipsOneEvent) {
  write_text(file("big.json"), fixture_with("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big\","
                                            "\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":1e999}"));
  const RunResult r = check("number too big (1e999 in dur)", {"import", "big.json", "-o", "big.db"},
                            {30, 400, 0, "1 number_out_of_range"});
  EXPECT_NE(r.out.find("3270 events"), std::string::npos) << r.out;
  std::string digits =
      "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"big\",\"pid\":1,\"tid\":1,\"ts\":";
  digits += std::string(400, '9') + ",\"dur\":1}";
  write_gzip(file("digits.json.gz"), fixture_with(digits));
  check("number too big (400 digits, gzip)", {"report", "digits.json.gz"}, {30, 400, 0, ""});
}

TEST_F(Hostile, StrayEventAtTsZeroKeepsTheRest) {
  write_text(file("stray.json"), fixture_with("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"stray\","
                                              "\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1}"));
  const RunResult r =
      check("stray event at ts 0", {"import", "stray.json", "-o", "s.db"}, {30, 400, 0, ""});
  EXPECT_NE(r.out.find("3270 events"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("1 out_of_key_range"), std::string::npos) << r.out;
  check("stray event at ts 0: report", {"report", "s.db"}, {30, 400, 0, "input"});
}

TEST_F(Hostile, AllNegativeDurationsIsOneClearError) {
  std::string events;
  for (int i = 0; i < 2000; ++i)
    append_event(events, std::string("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"op\",\"pid\":1,"
                                     "\"tid\":1,\"ts\":") +
                             std::to_string(1000 + 10 * i) + ",\"dur\":-5}");
  write_text(file("neg.json"), kineto(events));
  const std::string why =
      "neg.json: none of its 2 000 trace events could be imported "
      "(2 000 negative_duration)";
  const RunResult r = check("all durations negative", {"report", "neg.json"}, {30, 300, 2, why});
  EXPECT_EQ(r.out, "");
  check("all durations negative, --allow-partial", {"report", "neg.json", "--allow-partial"},
        {30, 300, 2, why});
}

TEST_F(Hostile, LosingMoreThanOnePercentFailsUnlessAllowed) {
  std::string events;
  for (int i = 0; i < 100; ++i)
    append_event(events, step_and_op(i, 1700000000000000 + i * 100, 90));
  events += ",{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":5}";
  for (int i = 0; i < 4; ++i) events += ",{\"ph\":\"E\",\"pid\":1,\"tid\":9,\"ts\":7}";
  write_text(file("lossy.json"), kineto(events));
  check("2.4 % of events invalid", {"report", "lossy.json"},
        {30, 300, 2,
         "2.4 % of its 205 events could not be imported (4 unpaired_end, 1 "
         "missing_duration), more than 1 %; --allow-partial imports the rest"});
  check("2.4 % of events invalid, --allow-partial", {"report", "lossy.json", "--allow-partial"},
        {30, 300, 0, ""});
}

TEST_F(Hostile, GzipBombsAreRefusedEarly) {
  write_gzip_bomb(file("bomb.json.gz"),
                  "{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,"
                  "\"dur\":1}",
                  ' ', 1024, "]}");
  check("JSON gzip bomb (1 GiB of spaces)", {"import", "bomb.json.gz", "-o", "b.db"},
        {30, 200, 2, "refused as a decompression bomb"});
  write_gzip_bomb(file("host.xplane.pb.gz"), "", '\0', 1024, "");
  check("XPlane gzip bomb (1 GiB of zeros)", {"import", "host.xplane.pb.gz", "-o", "x.db"},
        {30, 400, 2, "refused as a decompression bomb"});
}

TEST_F(Hostile, TinyStepsByTheHundredThousand) {
  {  // the text freed before the run: a child's peak memory counts the parent's at the fork
    std::string events;
    const int steps = 100000;
    events.reserve(static_cast<std::size_t>(steps) * 200);
    for (int i = 0; i < steps; ++i)
      append_event(events, step_and_op(i, 1700000000000000 + i * 10, 8));
    write_gzip(file("tiny.json.gz"), kineto(events));
  }
  // The markers share one numbered label ("ProfilerStep#"): the budgets, about twice what these
  // runs take, hold the per-step cost to hundreds of bytes while importing.
  check("100 000 tiny steps (.json.gz)", {"import", "tiny.json.gz", "-o", "tiny.db"},
        {60, 110, 0, "100000 steps"});
  check("100 000 tiny steps: report", {"report", "tiny.db", "--steps", "0-99998"}, {60, 90, 0, ""});
#ifdef TRAINSCOPE_GUI_BIN
  // The viewer reads the steps from the file as they are shown (about 105 MiB, most of it Qt's).
  for (const char* view : {"overview", "timeline"})
    check(std::string("100 000 tiny steps: viewer ") + view,
          {"tiny.db", "--screenshot", "shot.png", "--view", view}, {30, 250, 0, ""}, false,
          TRAINSCOPE_GUI_BIN);
#endif
}

TEST_F(Hostile, HugeNamesAndMetaValuesAreCut) {
  const std::string long_value(100000, 'm');
  {
    std::string events = "{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"" +
                         std::string(15 << 20, 'n') +
                         "\",\"pid\":1,\"tid\":1,\"ts\":1700000000000005,\"dur\":3}";
    for (int i = 0; i < 20; ++i)
      append_event(events, step_and_op(i, 1700000000000000 + i * 100, 90));
    write_text(file("names.json"), kineto(events, "\"traceName\":\"" + long_value +
                                                      "\",\"host_name\":\"" + long_value + "\""));
  }
  check("15 MB name, 100 000-char meta values", {"import", "names.json", "-o", "n.db"},
        {30, 400, 0, "1 name_truncated"});
  const RunResult rep = check("15 MB name: report", {"report", "n.db"}, {30, 300, 0, ""});
  EXPECT_LT(longest_line(rep.out), 20000u);
  // A 100 000-character capture.write_error: the report stays readable.
  set_meta(file("n.db"), "capture.write_error", long_value);
  check("100 000-char capture.write_error: report", {"report", "n.db"}, {30, 300, 0, ""});
}

TEST_F(Hostile, TensOfThousandsOfThreads) {
  const auto one_per_thread = [](int threads, std::string events) {
    for (int t = 0; t < threads; ++t) {
      std::string e = R"({"ph":"X","cat":"cpu_op","name":"w","pid":1,"tid":)";
      e += std::to_string(100 + t);
      e += R"(,"ts":)";
      e += std::to_string(1700000000000010 + t % 1000);
      e += R"(,"dur":1})";
      append_event(events, e);
    }
    return kineto(events);
  };
  std::string steps;
  for (int i = 0; i < 20; ++i) append_event(steps, step_and_op(i, 1700000000000000 + i * 100, 90));
  write_text(file("threads.json"), one_per_thread(65000, steps));
  check("65 000 threads", {"report", "threads.json"}, {60, 600, 0, ""});
#ifdef TRAINSCOPE_GUI_BIN
  // The viewer lays out a lane per thread: in time linear in the tracks, not quadratic.
  check("65 000 threads: import", {"import", "threads.json", "-o", "threads.db"}, {60, 600, 0, ""});
  for (const char* view : {"overview", "timeline"})
    check(std::string("65 000 threads: viewer ") + view,
          {"threads.db", "--screenshot", "shot.png", "--view", view}, {5, 800, 0, ""}, false,
          TRAINSCOPE_GUI_BIN);
#endif
  write_text(file("tracks.json"), one_per_thread(200000, ""));
  check("200 000 tracks", {"import", "tracks.json", "-o", "t.db"}, {60, 600, 2, "too_many_tracks"});
}

TEST_F(Hostile, MergePartsClaimingABillionRanks) {
  std::string events;
  for (int i = 0; i < 20; ++i) append_event(events, step_and_op(i, 1700000000000000 + i * 100, 90));
  write_text(file("small.json"), kineto(events));
  ASSERT_EQ(run_trainscope({"import", "small.json", "-o", "run.rank0.part"}, dir_).status, 0);
  set_meta(file("run.rank0.part"), "dist.world_size", "1000000000");
  set_meta(file("run.rank0.part"), "dist.rank", "0");
  const RunResult r = check("merge: world_size 1 000 000 000",
                            {"merge", "run.rank0.part", "-o", "m.db"}, {30, 300, -1, ""});
  EXPECT_TRUE(r.status == 0 || r.status == 2) << r.err;
  ASSERT_EQ(run_trainscope({"import", "small.json", "-o", "run.rank1.part"}, dir_).status, 0);
  set_meta(file("run.rank1.part"), "dist.rank", "2147483647");
  set_meta(file("run.rank1.part"), "dist.world_size", "2");
  const RunResult r2 = check("merge: rank 2 147 483 647",
                             {"merge", "run.rank1.part", "-o", "m2.db"}, {30, 300, -1, ""});
  EXPECT_TRUE(r2.status == 0 || r2.status == 2) << r2.err;
}

TEST_F(Hostile, ExportToStdoutOnAPipe) {
  std::string events;
  for (int i = 0; i < 20; ++i) append_event(events, step_and_op(i, 1700000000000000 + i * 100, 90));
  write_text(file("small.json"), kineto(events));
  ASSERT_EQ(run_trainscope({"import", "small.json", "-o", "small.db"}, dir_).status, 0);
  const RunResult r =
      check("export --chrome /dev/stdout on a pipe",
            {"export", "small.db", "--chrome", "/dev/stdout"}, {30, 300, 0, ""}, true);
  EXPECT_GT(r.out_bytes, 1000u);
  EXPECT_NE(r.out.find("traceEvents"), std::string::npos);
}

// Two `train --trace same.db` at once: the second is refused at its start with one line naming
// the file another capture holds, and the first's trace is whole (stopped by SIGTERM once the
// second was refused, which ends a run after its current step and writes its trace).
TEST_F(Hostile, TwoCapturesIntoOneFile) {
  const auto train = [](const std::string& epochs, bool quiet) {
    std::vector<std::string> args{"train",     "--backend",      "cpu",     "--epochs", epochs,
                                  "--dataset", "synthetic:4096", "--trace", "same.db"};
    if (quiet) args.push_back("--quiet");
    return args;
  };
  const Started first = start_trainscope(train("1000", false), dir_, "first");
  const auto ended = [&] {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(first.pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           info.si_pid == first.pid;
  };
  // Once its first epoch is done the first capture holds same.db and has steps in it.
  const auto first_epoch_done = [&] {
    std::uint64_t size = 0;
    return read_head(first.out_path, size).find("Epoch 2/") != std::string::npos;
  };
  while (!first_epoch_done() && !ended())
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  ASSERT_FALSE(ended()) << "the first capture ended before the second started";
  const RunResult second = check("second capture into a file being written", train("1", true),
                                 {30, 400, 2, "same.db is being written by another capture"});
  EXPECT_EQ(second.err.find('\n'), second.err.size() - 1) << "one line: " << second.err;
  ::kill(first.pid, SIGTERM);
  const RunResult r = wait_trainscope(first);
  EXPECT_EQ(r.status, 143) << r.err;
  const RunResult report =
      check("the first capture's trace", {"report", "same.db"}, {30, 400, 0, "mlp on cpu"});
  EXPECT_EQ(report.out.find("warning"), std::string::npos) << report.out;
}

// Device work cut to a nanosecond (UPDATE) or deleted (DELETE) everywhere but at the trace's
// two ends, after the analysis was kept in the trace.
const std::string kKernelsInside =
    "label IN (SELECT label.id FROM label JOIN category ON category.id = label.category WHERE "
    "category.name = 'kernel') AND id > (SELECT min(id) FROM event) AND id < (SELECT max(id) "
    "FROM event)";

TEST_F(Hostile, EventsEditedAfterTheAnalysisWasKept) {
  ASSERT_EQ(run_trainscope(
                {"synth", "--events", "30000", "--input-bound-fraction", "0", "-o", "run.db"}, dir_)
                .status,
            0);
  const std::vector<std::string> gate = {"--max-device-idle-pct", "30"};
  const auto check_of = [&](const std::string& trace) {
    std::vector<std::string> args{"check", trace};
    args.insert(args.end(), gate.begin(), gate.end());
    return args;
  };
  check("kept analysis, events unchanged", check_of("run.db"),
        {30, 300, 0, "analysis kept in the trace, events unchanged"});
  fs::copy_file(file("run.db"), file("deleted.db"));
  fs::copy_file(file("run.db"), file("plain.db"));
  exec_sql(file("run.db"), "UPDATE event SET dur_ns = 1 WHERE " + kKernelsInside);
  exec_sql(file("deleted.db"), "DELETE FROM event WHERE " + kKernelsInside);
  for (const char* trace : {"run.db", "deleted.db"}) {
    const RunResult r = check(std::string("kept analysis, events edited (") + trace + ")",
                              check_of(trace), {30, 300, 1, "exceeds --max-device-idle-pct 30"});
    EXPECT_NE(r.err.find("analysed afresh: the events are not those"), std::string::npos) << r.err;
  }
  // The figures the events give: those of the same edit in a trace that never kept one.
  exec_sql(file("plain.db"), "DROP TABLE analysis; DELETE FROM event WHERE " + kKernelsInside);
  const RunResult edited = run_trainscope({"report", "--json", "deleted.db"}, dir_);
  const RunResult never_kept = run_trainscope({"report", "--json", "plain.db"}, dir_);
  EXPECT_EQ(edited.out, never_kept.out);
}

// An import cache planted at SOURCE.trainscope.db: another run's import, copied there before
// SOURCE was ever imported.
TEST_F(Hostile, PlantedImportCacheIsNotTrusted) {
  fs::copy_file(std::string(TS_SOURCE_DIR) + "/tests/data/pytorch/input_bound.pt.trace.json.gz",
                file("run.json.gz"));
  fs::copy_file(std::string(TS_SOURCE_DIR) + "/tests/data/pytorch/tuned.pt.trace.json.gz",
                file("other.json.gz"));
  check("import cache of another run", {"check", "other.json.gz", "--max-input-pct", "20"},
        {30, 400, 0, ""});
  fs::copy_file(file("other.json.gz.trainscope.db"), file("run.json.gz.trainscope.db"));
  const RunResult r =
      check("planted import cache", {"check", "run.json.gz", "--max-input-pct", "20"},
            {30, 400, 1, "was not imported from run.json.gz as it is now"});
  EXPECT_NE(r.err.find("exceeds --max-input-pct 20"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace ts::hostile
