// The JSON and text reports: valid JSON whatever the names hold, the stable keys
// (profiler/analysis/README.md), no NaN, the verdict sentence first.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>
#include <utility>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/report.hpp"

namespace {

namespace a = ts::analysis;

a::Report sample_report() {
  a::Report r;
  r.file = "run.db";
  r.steps = 4;
  r.step_time_total_ns = 40'000'000;
  r.step_time = {10, 9, 12, 8, 13};
  r.breakdown[a::Part::device_compute] = 10'000'000;
  r.breakdown[a::Part::input_wait] = 25'000'000;
  r.breakdown[a::Part::other] = 5'000'000;
  r.input_pct = 62.5;
  r.verdict = a::Verdict::high;
  r.input_bound_steps = 3;
  r.device.has_device = true;
  r.device.busy_pct = 25;
  r.device.idle_pct = 75;
  r.samples_per_s = std::numeric_limits<double>::quiet_NaN();  // must not reach the JSON
  r.pipeline.bottleneck_stage = "decode";
  a::StageStat decode;
  decode.stage = "decode";
  decode.count = 8;
  decode.threads = 2;
  r.pipeline.stages.push_back(decode);
  a::KernelStat k;
  k.name = "gemm \"NN\"\\\n\x01\xff";  // quotes, backslash, control and an invalid byte
  k.count = 2;
  k.total_ns = 10'000'000;
  k.share_pct = 100;
  r.kernels.push_back(k);
  r.recommendations.push_back("Input is 62.5 % of step time.");
  for (int i = 0; i < 4; ++i) {
    a::StepSummary s;
    s.step = i;
    s.dur_ns = 10'000'000;
    s.input_pct = i == 0 ? 0 : 83.3;
    s.input_bound = i != 0;
    s.input_verdict = i != 0 ? a::Verdict::high : a::Verdict::none;
    r.per_step.push_back(s);
  }
  return r;
}

TEST(ReportOutput, ReportJsonIsValidAndHasTheStableKeys) {
  const std::string s = a::to_json(sample_report());
  ASSERT_TRUE(nlohmann::json::accept(s)) << s;
  for (const char* key : {"\"steps\": 4",
                          "\"step_time_ms\"",
                          "\"mean\": 10",
                          "\"p50\": 9",
                          "\"p90\": 12",
                          "\"breakdown_ms\"",
                          "\"device_compute\": 10",
                          "\"d2h\": 0",
                          "\"h2d\": 0",
                          "\"input_wait\": 25",
                          "\"launch\": 0",
                          "\"sync\": 0",
                          "\"host_compute\": 0",
                          "\"other\": 5",
                          "\"input_pct\": 62.5",
                          "\"verdict\": \"high\"",
                          "\"input_bound_steps\": 3",
                          "\"device\"",
                          "\"busy_pct\": 25",
                          "\"idle_pct\": 75",
                          "\"idle_by_cause_ms\"",
                          "\"input\": 0",
                          "\"host\": 0",
                          "\"samples_per_s\": null",
                          "\"bottleneck_stage\": \"decode\"",
                          "\"kernels\"",
                          "\"count\": 2",
                          "\"total_ms\": 10",
                          "\"share_pct\": 100",
                          "\"recommendations\": [\n    \"Input is 62.5 % of step time.\""})
    EXPECT_NE(s.find(key), std::string::npos) << key << "\n" << s;
  EXPECT_EQ(s.find("nan"), std::string::npos);
  EXPECT_EQ(s.find("NaN"), std::string::npos);
}

TEST(ReportOutput, EmptyReportIsValidJsonWithNulls) {
  const std::string s = a::to_json(a::Report{});
  ASSERT_TRUE(nlohmann::json::accept(s)) << s;
  EXPECT_NE(s.find("\"bottleneck_stage\": null"), std::string::npos);
  EXPECT_NE(s.find("\"verdict\": \"none\""), std::string::npos);
  EXPECT_NE(s.find("\"kernels\": []"), std::string::npos);
}

TEST(ReportOutput, VerdictSentences) {
  a::Report r = sample_report();
  EXPECT_EQ(a::verdict_sentence(r), "Highly input-bound: 62.5 % of step time is spent on input.");
  r.verdict = a::Verdict::moderate;
  r.input_pct = 7.24;
  EXPECT_EQ(a::verdict_sentence(r),
            "Moderately input-bound: 7.2 % of step time is spent on input.");
  r.verdict = a::Verdict::none;
  r.input_pct = 1;
  r.breakdown[a::Part::input_wait] = 0;
  r.breakdown[a::Part::device_compute] = 35'000'000;
  EXPECT_EQ(a::verdict_sentence(r),
            "Not input-bound: 1.0 % of step time is spent on input; the largest part is device "
            "compute (87.5 %).");
  EXPECT_EQ(a::verdict_sentence(a::Report{}),
            "No training steps recorded: there is nothing to analyse.");
}

TEST(ReportOutput, TextStartsWithTheVerdictAndListsInputBoundSteps) {
  const a::Report r = sample_report();
  const std::string t = a::to_text(r);
  EXPECT_EQ(t.substr(0, t.find('\n')), a::verdict_sentence(r));
  EXPECT_NE(t.find("highly input-bound: 3 steps: 1-3"), std::string::npos) << t;
  a::Report one = r;  // one input-bound step is named as a step, not read as a count
  bool first = true;
  one.per_step.update([&](a::StepSummary& s) {
    if (s.input_bound && !s.warmup) {
      s.input_bound = std::exchange(first, false);
      if (!s.input_bound) s.input_verdict = a::Verdict::none;
    }
  });
  const std::string t1 = a::to_text(one);
  EXPECT_NE(t1.find("highly input-bound: step 1\n"), std::string::npos) << t1;
  EXPECT_NE(t.find("bottleneck stage: decode"), std::string::npos) << t;
  EXPECT_NE(t.find("recommendations\n  - Input is 62.5 % of step time."), std::string::npos) << t;
  EXPECT_NE(t.find("device compute"), std::string::npos) << t;
  // Names from the file are made printable: no control bytes, valid UTF-8.
  EXPECT_NE(t.find("gemm \"NN\"\\??\xEF\xBF\xBD"), std::string::npos) << t;
  for (char c : t) EXPECT_TRUE(c == '\n' || static_cast<unsigned char>(c) >= 0x20) << int(c);
}

TEST(ReportOutput, Formatting) {
  namespace fmt = ts::analysis::fmt;
  EXPECT_EQ(fmt::pct(63.04), "63.0 %");
  EXPECT_EQ(fmt::count(1234567), "1 234 567");
  EXPECT_EQ(fmt::count(1234), "1234");
  EXPECT_EQ(fmt::money(0.0028472, "$"), "$0.0028");
  EXPECT_EQ(fmt::money(0.5, "$"), "$0.50");
  EXPECT_EQ(fmt::money(12345.678, "$"), "$12 345.68");
  EXPECT_EQ(fmt::duration(850), "850 ns");
  EXPECT_EQ(fmt::duration(12'345), "12.3 µs");
  EXPECT_EQ(fmt::duration(1'840'000), "1.84 ms");
  EXPECT_EQ(fmt::duration(2'500'000'000), "2.50 s");
  EXPECT_EQ(fmt::ms(123456.4), "123 456 ms");
}

}  // namespace

namespace {

// Two processes whose step numbers overlap (two hosts of one job, each counting from 2).
a::Report two_process_report(bool ranked) {
  a::Report r = sample_report();
  r.per_step.clear();
  for (int rank = 0; rank < 2; ++rank) {
    a::RankFigures k;
    k.process = rank + 1;
    if (ranked) k.rank = rank;
    k.name = "host" + std::string(1, static_cast<char>('A' + rank));
    k.steps = 2;
    r.ranks.push_back(k);
    for (int step = 2 + rank; step < 4 + rank; ++step) {
      a::StepSummary s;
      s.step = step;
      s.dur_ns = 10'000'000;
      s.input_pct = 90;
      s.input_bound = true;
      s.input_verdict = a::Verdict::high;
      s.rank_index = rank;
      r.per_step.push_back(s);
    }
  }
  return r;
}

}  // namespace

// Steps of several processes are listed per process, never merged into "2, 2-3, 3-4".
TEST(ReportOutput, InputBoundStepsOfSeveralProcessesAreListedPerProcess) {
  const std::string t = a::to_text(two_process_report(true));
  EXPECT_NE(t.find("highly input-bound, rank 0: 2 steps: 2-3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("highly input-bound, rank 1: 2 steps: 3-4\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("2, 2-3"), std::string::npos) << t;
  EXPECT_EQ(t.find("4 steps: "), std::string::npos) << t;
}

// Files imported without distributedInfo are separate processes: the report does not call
// them ranks.
TEST(ReportOutput, ProcessesWithoutARankAreNotCalledRanks) {
  a::Report r = two_process_report(false);
  r.source_format = "kineto";
  const std::string t = a::to_text(r);
  EXPECT_NE(t.find("processes   2 files without distributedInfo, treated as separate processes, "
                   "each over its own steps"),
            std::string::npos)
      << t;
  EXPECT_NE(t.find("\n  proc   steps  step mean"), std::string::npos) << t;
  EXPECT_NE(t.find("\n  proc      step       time"), std::string::npos) << t;
  EXPECT_NE(t.find("highly input-bound, p1: 2 steps: 2-3\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("rank"), std::string::npos) << t;
  // Ranked processes keep their heading.
  const std::string ranked = a::to_text(two_process_report(true));
  EXPECT_NE(ranked.find("ranks       2 processes, each over its own steps"), std::string::npos)
      << ranked;
}

// Kernel names with a long common prefix stay apart in the table; --wide prints them in full.
TEST(ReportOutput, KernelTableKeepsLongNamesApartAndWidePrintsThemInFull) {
  a::Report r = sample_report();
  r.kernels.clear();
  const std::string prefix =
      "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous namespace)::";
  for (const char* functor : {"FillFunctor<float>", "AddFunctor<float>"}) {
    a::KernelStat k;
    k.name = prefix + functor + ", at::detail::Array<char*, 1> >(int, at::detail::Array<char*, 1>)";
    k.count = 3;
    k.total_ns = 3'000'000;
    k.mean_ns = k.max_ns = 1'000'000;
    k.share_pct = 50;
    r.kernels.push_back(k);
  }
  const std::string t = a::to_text(r);
  const std::size_t table = t.find("\n  name ");
  ASSERT_NE(table, std::string::npos) << t;
  std::vector<std::string> rows;
  for (std::size_t at = t.find('\n', table + 1); rows.size() < 2; at = t.find('\n', at + 1))
    rows.push_back(t.substr(at + 1, t.find('\n', at + 1) - at - 1));
  EXPECT_NE(rows[0], rows[1]);
  EXPECT_NE(rows[0].find("FillFunctor"), std::string::npos) << t;
  EXPECT_NE(rows[1].find("AddFunctor"), std::string::npos) << t;
  for (const std::string& row : rows) {
    std::size_t columns = 0;
    for (unsigned char c : row) columns += (c & 0xC0) != 0x80;
    EXPECT_EQ(columns, 100u) << row;  // the name column is padded in characters, not bytes
  }
  a::TextOptions wide;
  wide.wide_names = true;
  const std::string w = a::to_text(r, wide);
  for (const a::KernelStat& k : r.kernels)
    EXPECT_NE(w.find("  50.0 %  " + k.name + "\n"), std::string::npos) << w;
}

// A job of many ranks reads in a few lines: ranks with the same input-bound steps share a line,
// a figure per rank in a sentence becomes its range, and a class lists at most eight lines.
TEST(ReportOutput, ManyRanksShareLinesAndSentencesGiveTheirRange) {
  a::Report r = sample_report();
  r.per_step.clear();
  constexpr int kRanks = 40;
  for (int rank = 0; rank < kRanks; ++rank) {
    a::RankFigures k;
    k.process = rank + 1;
    k.rank = rank;
    k.communication_overlap_pct = rank == 7 ? 30.0 : 10.0 + 0.01 * rank;
    k.steps = 3;
    r.ranks.push_back(k);
    for (int step = 1; step <= 3; ++step) {
      a::StepSummary s;
      s.step = step;
      s.dur_ns = 10'000'000;
      s.rank_index = rank;
      // Every rank moderately bound in steps 1-3, but rank 7 highly; ranks 20 and up each
      // highly bound in a step of their own.
      const bool high = rank == 7 || (rank >= 20 && step == 1 + rank % 3 && rank % 2 == 0);
      s.input_pct = high ? 30 : 10;
      s.input_bound = true;
      s.input_verdict = high ? a::Verdict::high : a::Verdict::moderate;
      r.per_step.push_back(s);
    }
  }
  r.communication_overlap_pct = 12.0;
  // Sentences wrap: read them as one line.
  const auto unwrapped = [](const std::string& text) {
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i) {
      if (text[i] != '\n' || i + 1 == text.size() || text[i + 1] != ' ') {
        out += text[i];
        continue;
      }
      out += ' ';  // a line break and the next line's indent: one space
      while (i + 1 < text.size() && text[i + 1] == ' ') ++i;
    }
    return out;
  };
  const std::string t = a::to_text(r);
  EXPECT_NE(t.find("highly input-bound, rank 7: 3 steps: 1-3\n"), std::string::npos) << t;
  // Ranks 20, 26, 32, 38 are highly bound in step 3, 22, 28, 34 in step 2, ...: each group of
  // equal steps on one line.
  EXPECT_NE(t.find("highly input-bound, ranks 20, 26, 32, 38: step 3\n"), std::string::npos) << t;
  EXPECT_NE(t.find("highly input-bound, ranks 22, 28, 34: step 2\n"), std::string::npos) << t;
  EXPECT_EQ(t.find("highly input-bound, rank 20:"), std::string::npos) << t;
  std::size_t moderate_lines = 0;
  for (std::size_t at = t.find("moderately input-bound, "); at != std::string::npos;
       at = t.find("moderately input-bound, ", at + 1))
    ++moderate_lines;
  EXPECT_LE(moderate_lines, 9u) << t;  // eight lines, then the count of the others
  EXPECT_NE(t.find("moderately input-bound, ranks 0-6, 8-19, 21, 23, 25"), std::string::npos) << t;
  // A figure of every rank in a sentence is its range, not forty figures.
  EXPECT_NE(unwrapped(t).find("(40 ranks from 10.0 % (rank 0) to 30.0 % (rank 7), median 10.2 %)"),
            std::string::npos)
      << t;
  EXPECT_EQ(t.find("rank 1 10.0 %"), std::string::npos) << t;
  // Past eight lines a class says how many more ranks have other steps.
  a::Report distinct = r;
  distinct.per_step.clear();
  for (int rank = 0; rank < 12; ++rank) {
    a::StepSummary s;
    s.step = rank + 1;  // every rank bound in a step of its own
    s.dur_ns = 10'000'000;
    s.rank_index = rank;
    s.input_pct = 30;
    s.input_bound = true;
    s.input_verdict = a::Verdict::high;
    distinct.per_step.push_back(s);
  }
  const std::string d = a::to_text(distinct);
  EXPECT_NE(d.find("highly input-bound, rank 7: step 8\n"), std::string::npos) << d;
  EXPECT_EQ(d.find("highly input-bound, rank 8: step 9\n"), std::string::npos) << d;
  EXPECT_NE(unwrapped(d).find("highly input-bound, 4 more ranks with other steps (the viewer's "
                              "Steps page lists every step)"),
            std::string::npos)
      << d;
  // Processes without a rank are named one by one, up to twenty.
  a::Report unranked = r;
  for (a::RankFigures& k : unranked.ranks) k.rank.reset();
  const std::string u = unwrapped(a::to_text(unranked));
  EXPECT_NE(u.find("moderately input-bound, p1, p2, p3, p4, p5, p6, p7, p9, p10,"),
            std::string::npos)
      << u;
  EXPECT_NE(u.find("p20, p22, … (9 more processes): 3 steps each: 1-3"), std::string::npos) << u;
  // Eight ranks or fewer are listed.
  r.ranks.resize(3);
  const std::string few = a::to_text(r);
  EXPECT_NE(unwrapped(few).find("(rank 0 10.0 %, rank 1 10.0 %, rank 2 10.0 %)"), std::string::npos)
      << few;
}

// Counts and totals of millions keep a space between them: columns grow with their figures.
TEST(ReportOutput, KernelTableFiguresNeverRunTogether) {
  a::Report r = sample_report();
  r.kernels.clear();
  a::KernelStat k;
  k.name = "ampere_sgemm_128x64_tn";
  k.count = 7'898'112;
  k.total_ns = 1'906'708'000'000'000;
  k.mean_ns = 241'400;
  k.max_ns = 626'100;
  k.share_pct = 37;
  r.kernels.push_back(k);
  const std::string t = a::to_text(r);
  EXPECT_NE(t.find(" 7 898 112 1 906 708 000 ms "), std::string::npos) << t;
  const std::size_t header = t.find("\n  name ");
  ASSERT_NE(header, std::string::npos) << t;
  const std::string head = t.substr(header + 1, t.find('\n', header + 1) - header - 1);
  const std::size_t row_at = t.find('\n', header + 1) + 1;
  const std::string row = t.substr(row_at, t.find('\n', row_at) - row_at);
  // The headings end where their figures end.
  EXPECT_EQ(head.find("count") + 5, row.find("7 898 112") + 9) << head << "\n" << row;
  EXPECT_EQ(head.find("total") + 5, row.find(" ms ") + 3) << head << "\n" << row;
}
