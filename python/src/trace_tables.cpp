#include "trace_tables.hpp"

#include <limits>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cli/args.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::python {

namespace {

double ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

// Distinct strings numbered in the order first seen.
class Coder {
 public:
  std::int32_t code(std::string_view s) {
    const auto [it, added] =
        codes_.try_emplace(std::string(s), static_cast<std::int32_t>(names_.size()));
    if (added) names_.emplace_back(s);
    return it->second;
  }
  const std::vector<std::string>& names() const { return names_; }

 private:
  std::unordered_map<std::string, std::int32_t> codes_;
  std::vector<std::string> names_;
};

std::vector<std::string> category_names() {
  std::vector<std::string> names;
  for (int i = 0; i < trace::kCategoryCount; ++i)
    names.emplace_back(trace::category_name(static_cast<trace::Category>(i)));
  return names;
}

// The rank a step or track belongs to: its distributed rank when known, else the index of its
// process in the report (0 for a trace of one process).
std::int64_t rank_of(const analysis::Report& report, int rank_index) {
  if (rank_index < 0 || static_cast<std::size_t>(rank_index) >= report.ranks.size())
    return rank_index;
  return report.ranks[static_cast<std::size_t>(rank_index)].rank.value_or(rank_index);
}

}  // namespace

py::tuple step_columns(const analysis::Report& report) {
  const auto& steps = report.per_step;
  const std::size_t n = steps.size();
  std::vector<std::int64_t> step(n), rank(n), epoch(n), start(n);
  std::vector<double> dur(n), input_pct(n), busy(n);
  std::vector<bool> input_bound(n), warmup(n);
  std::vector<std::int32_t> verdict(n);
  std::vector<std::vector<double>> parts(analysis::kPartCount, std::vector<double>(n));
  std::vector<std::vector<double>> idle(analysis::kIdleCauseCount, std::vector<double>(n));
  for (std::size_t i = 0; i < n; ++i) {
    const analysis::StepSummary& s = steps[i];
    step[i] = s.step;
    rank[i] = rank_of(report, s.rank_index);
    epoch[i] = s.epoch;
    start[i] = s.start_ns;
    dur[i] = ms(s.dur_ns);
    input_pct[i] = s.input_pct;
    input_bound[i] = s.input_bound;
    verdict[i] = static_cast<std::int32_t>(s.input_verdict);
    warmup[i] = s.warmup;
    busy[i] = ms(s.device_busy_ns);
    for (int p = 0; p < analysis::kPartCount; ++p) parts[p][i] = ms(s.parts.ns[p]);
    for (int c = 0; c < analysis::kIdleCauseCount; ++c) idle[c][i] = ms(s.idle_by_cause_ns[c]);
  }
  Columns columns;
  columns.add("step", step);
  columns.add("rank", rank);
  columns.add("epoch", epoch);
  columns.add("start_ns", start);
  columns.add("step_time_ms", dur);
  for (int p = 0; p < analysis::kPartCount; ++p) {
    const std::string name =
        std::string(analysis::part_name(static_cast<analysis::Part>(p))) + "_ms";
    columns.add(name.c_str(), parts[p]);
  }
  columns.add("input_pct", input_pct);
  columns.add("input_bound", input_bound);
  columns.add_coded("verdict", verdict,
                    {std::string(analysis::verdict_name(analysis::Verdict::none)),
                     std::string(analysis::verdict_name(analysis::Verdict::moderate)),
                     std::string(analysis::verdict_name(analysis::Verdict::high))});
  columns.add("device_busy_ms", busy);
  for (int c = 0; c < analysis::kIdleCauseCount; ++c) {
    const std::string name =
        "idle_" + std::string(analysis::idle_cause_name(static_cast<analysis::IdleCause>(c))) +
        "_ms";
    columns.add(name.c_str(), idle[c]);
  }
  columns.add("warmup", warmup);
  return columns.take();
}

py::tuple idle_gap_columns(const analysis::Report& report) {
  const auto& gaps = report.device.gaps;
  const std::size_t n = gaps.size();
  std::vector<std::int64_t> start(n), end(n), step(n);
  std::vector<double> dur(n);
  std::vector<std::int32_t> cause(n);
  for (std::size_t i = 0; i < n; ++i) {
    start[i] = gaps[i].start_ns;
    end[i] = gaps[i].end_ns;
    dur[i] = static_cast<double>(gaps[i].end_ns - gaps[i].start_ns) / 1e3;
    step[i] = gaps[i].step;
    cause[i] = static_cast<std::int32_t>(gaps[i].cause);
  }
  std::vector<std::string> causes;
  for (int c = 0; c < analysis::kIdleCauseCount; ++c)
    causes.emplace_back(analysis::idle_cause_name(static_cast<analysis::IdleCause>(c)));
  Columns columns;
  columns.add("start_ns", start);
  columns.add("end_ns", end);
  columns.add("dur_us", dur);
  columns.add("step", step);
  columns.add_coded("cause", cause, causes);
  return columns.take();
}

namespace {

struct EventRows {
  std::vector<std::int64_t> start, dur, step, bytes, rank;
  std::vector<std::int32_t> name, category, track;
  Coder names, tracks;
};

// Thrown from inside Reader::scan to stop it at the limit.
struct LimitReached {};

std::int64_t or_minus_one(std::int64_t v) {
  return v == store::kNull ? -1 : v;
}

}  // namespace

py::tuple event_columns(const std::string& path, const std::string& source,
                        const EventQuery& query) {
  std::optional<trace::Category> category;
  if (query.category) {
    category = trace::category_from_name(*query.category);
    if (!category) {
      std::string known;
      for (const std::string& name : category_names()) known += (known.empty() ? "" : ", ") + name;
      throw cli::UsageError("events: unknown category '" + *query.category +
                            "' (categories: " + known + ")");
    }
  }
  const std::int64_t t0 = query.start_ns.value_or(std::numeric_limits<std::int64_t>::min());
  const std::int64_t t1 = query.end_ns.value_or(std::numeric_limits<std::int64_t>::max());
  if (t1 < t0)
    throw cli::UsageError("events: the window ends (end=" + std::to_string(t1) +
                          ") before it starts (start=" + std::to_string(t0) + ")");
  if (query.limit && *query.limit < 0)
    throw cli::UsageError("events: limit must be 0 or more, not " + std::to_string(*query.limit));

  EventRows rows;
  {
    py::gil_scoped_release release;
    const store::Reader reader(path);
    std::unordered_map<std::uint32_t, std::int32_t> label_code, track_code;
    std::unordered_map<std::uint32_t, std::int64_t> track_rank;
    // As the steps' rank column: the process's rank, else its index; 0 for one process.
    std::unordered_map<std::int64_t, std::int64_t> process_rank;
    for (const store::Process& p : reader.processes())
      process_rank[p.id] =
          p.rank != store::kNull ? p.rank : static_cast<std::int64_t>(process_rank.size());
    for (const store::Track& t : reader.tracks()) {
      track_code[t.id] = rows.tracks.code(t.name);
      const auto rank = process_rank.find(t.process);
      track_rank[t.id] = rank == process_rank.end() ? 0 : rank->second;
    }
    std::int64_t taken = 0;
    try {
      reader.scan(t0, t1, 0, [&](const store::Event& e) {
        if (category && e.category != *category) return;
        if (query.limit && taken >= *query.limit) throw LimitReached{};
        ++taken;
        auto [label, added] = label_code.try_emplace(e.label, 0);
        const store::Label& l = reader.label(e.label);
        if (added) label->second = rows.names.code(l.name);
        // A numbered step label's events each have a name of their own.
        const std::int32_t name = store::is_numbered_label(l.name, l.category)
                                      ? rows.names.code(reader.full_name(e))
                                      : label->second;
        auto track = track_code.find(e.track);
        if (track == track_code.end())
          track = track_code.emplace(e.track, rows.tracks.code("track " + std::to_string(e.track)))
                      .first;
        const auto rank = track_rank.find(e.track);
        rows.start.push_back(e.start_ns);
        rows.dur.push_back(e.dur_ns);
        rows.name.push_back(name);
        rows.category.push_back(static_cast<std::int32_t>(e.category));
        rows.track.push_back(track->second);
        rows.rank.push_back(rank == track_rank.end() ? 0 : rank->second);
        rows.step.push_back(or_minus_one(e.step));
        rows.bytes.push_back(or_minus_one(e.bytes));
      });
    } catch (const LimitReached&) {
      throw cli::UsageError(
          "events: " + source + " holds more than limit=" + std::to_string(*query.limit) +
          " events in that window: narrow it with start/end or category, or pass a larger limit "
          "(limit=None for all)");
    }
  }
  Columns columns;
  columns.add("start_ns", rows.start);
  columns.add("dur_ns", rows.dur);
  columns.add_coded("name", rows.name, rows.names.names());
  columns.add_coded("category", rows.category, category_names());
  columns.add_coded("track", rows.track, rows.tracks.names());
  columns.add("rank", rows.rank);
  columns.add("step", rows.step);
  columns.add("bytes", rows.bytes);
  return columns.take();
}

}  // namespace ts::python
