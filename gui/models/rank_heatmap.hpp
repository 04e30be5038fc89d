// The rank x step heat map of a trace of several ranks (the Ranks tab): one row per rank (the
// analysis' Report::ranks, in rank order), one column per step number, or per run of steps
// when there are more steps than columns, each cell the mean step time of that rank's steps
// there, or the mean time of one part of the breakdown (collective, input wait, ...). A slow
// rank is a dark row, a slow phase a dark column, a straggler's step a dark cell; a click on a
// cell opens that rank's steps in the timeline. Built from the analysis' per-step figures.
//
// A capture with device events on one step in K (Report::device_sampling) knows the device parts
// (device_part()) of the sampled steps only: coloured by one of them, a cell is the mean of its
// sampled steps, and a cell without any is "not sampled" (drawn hatched), never 0.
#pragma once

#include <QColor>
#include <QString>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "gui/models/packed_steps.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

struct RankHeatmap {
  struct RankRow {
    std::int64_t process = 0;  // the process id in the trace: the timeline's lane group
    QString name;              // "r3" (or the process's name when it has no rank)
  };
  std::vector<RankRow> ranks;
  std::int64_t first_step = 0;  // column c holds steps [first_step + c * per_column, + per_column)
  std::int64_t per_column = 1;
  std::size_t columns = 0;
  std::optional<analysis::Part> part;  // what a cell shows: this part's time, else the step time
  // ranks.size() x columns, row-major: the mean in ms, NaN where the rank has no step there.
  std::vector<double> ms;
  // ranks.size() x columns: the cell's steps hold no device events and `part` is a device part
  // (ms is NaN there, but the rank has steps).
  std::vector<std::uint8_t> not_sampled;
  std::vector<std::uint8_t> analysed;  // ranks.size() x columns: the cell holds analysed steps
  // The extent of each cell's steps (what a click opens), [start, end) in ns; 0, 0: none.
  std::vector<std::int64_t> start_ns, end_ns;
  double lo_ms = 0, hi_ms = 0;  // the colour scale: the analysed steps' cells (warm-up left out)

  bool empty() const { return ranks.empty() || columns == 0; }
  std::size_t at(std::size_t rank, std::size_t column) const { return rank * columns + column; }
  double value(std::size_t rank, std::size_t column) const { return ms[at(rank, column)]; }
  bool sampled(std::size_t rank, std::size_t column) const {
    return not_sampled.empty() || !not_sampled[at(rank, column)];
  }
  // The steps column c stands for, [first, last].
  std::pair<std::int64_t, std::int64_t> steps_of(std::size_t column) const;
  // The colour of a value on the scale: pale yellow (lo) to dark red (hi); grey for NaN.
  QColor color_of(double value_ms) const;
};

// What a heat map can be coloured by, as the Ranks tab lists it: "step time" (nullopt), then
// each part of the breakdown by its label ("collective", "input wait", ...).
std::vector<std::pair<QString, std::optional<analysis::Part>>> heatmap_measures();

// The rank that holds the others back, in words: "Slowest rank: r3, mean 5.20 ms a step against
// a median rank's 3.10 ms (1.68×)"; empty for a map without two ranks with steps, or when the
// slowest is within kSameAsMedian of the median (ranks that meet in a collective each step all
// take as long: the job overview names the one they wait for).
inline constexpr double kSameAsMedian = 0.01;
QString slowest_rank_line(const RankHeatmap& map);

// A cell in words, for its tooltip: "r3 · step 120: step time 5.20 ms" ("steps 120-129: mean ..."
// for a column of several steps; "no step" where the rank has none, "not sampled" where its steps
// hold no device events and the map shows a device part).
QString cell_text(const RankHeatmap& map, std::size_t rank, std::size_t column);

// The column of a rank's largest value among its analysed steps (its slowest steps by what the
// map shows; warm-up is slow for every rank), or nullopt when the rank has none.
std::optional<std::size_t> slowest_column(const RankHeatmap& map, std::size_t rank);

// Every rank's steps in `steps` (the session's step figures), of a report with two or more
// ranks; empty otherwise. At most max_columns columns.
RankHeatmap make_rank_heatmap(const PackedSteps& steps, const analysis::Report& report,
                              std::optional<analysis::Part> part = std::nullopt,
                              std::size_t max_columns = 600);

}  // namespace ts::gui
