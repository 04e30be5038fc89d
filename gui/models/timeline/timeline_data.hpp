// The timeline's rows that come from the steps and the analysis rather than from track events:
// the step lane (with which steps are input-bound and where each epoch starts) and the
// device-idle lane (gaps with their cause). A prefix sum lets a merged run of steps say how many
// were input-bound without visiting each one; running sums by cause give a merged run of gaps its
// cause.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <vector>

#include "gui/models/packed_steps.hpp"
#include "gui/models/zone.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

// How many steps a zone of a whole-trace row stands for: 1 for a trace of up to kWholeRowZones
// steps; past that, enough for kWholeRowZones zones (a 100 M-event trace's 2.2 M steps: 9 a
// zone), which stay narrower than a pixel until the view spans few enough steps for exact rows
// of what it shows (kExactRowSteps).
inline constexpr std::size_t kWholeRowZones = std::size_t{1} << 18;
inline constexpr std::size_t kExactRowSteps = 20'000;
std::size_t steps_per_zone(std::size_t steps);
// The zones a whole-trace row may have (kWholeRowZones); tests and benchmarks lower it (rows made
// afterwards use the new value).
std::size_t whole_row_zones();
void set_whole_row_zones(std::size_t zones);
// The most steps a row of exact steps around a view holds (the view: a third of them):
// kExactRowSteps, or fewer with whole_row_zones() lowered below it.
inline std::size_t exact_row_steps() {
  return std::min(kExactRowSteps, whole_row_zones());
}

struct StepRow {
  // Zone i stands for `per_zone` consecutive steps (the last zone for what is left), numbers[i]
  // the first one's number; per_zone is 1 but in a whole-trace row of very many steps.
  Row row;
  std::size_t per_zone = 1;
  std::size_t steps = 0;  // the steps the zones stand for
  std::vector<std::int64_t> numbers;
  std::vector<float> input_pct;  // per_zone 1: the step's input share; -1 unknown (or per_zone > 1)
  // The highest input class (analysis::Verdict: 0 none, 1 moderate, 2 high) of the zone's steps.
  std::vector<std::uint8_t> input_bound;
  std::vector<std::uint32_t> bound_cum;  // input-bound steps (either class) in zones[0, i)
  std::vector<std::uint32_t> high_cum;   // highly input-bound steps in zones[0, i)
  // Where the epochs start, when the trace records two or more: the zone of each epoch's first
  // step and the epoch's number (1-based), in time order.
  struct EpochStart {
    std::size_t zone = 0;
    int epoch = 0;
  };
  std::vector<EpochStart> epochs;
  // The epoch of zone i (0: the trace records no epochs).
  int epoch_of(std::size_t zone) const;
  std::uint32_t bound_in(std::size_t first, std::size_t last) const {
    return bound_cum.empty() ? 0 : bound_cum[last] - bound_cum[first];
  }
  std::uint32_t high_in(std::size_t first, std::size_t last) const {
    return high_cum.empty() ? 0 : high_cum[last] - high_cum[first];
  }
  analysis::Verdict input_class(std::size_t zone) const {
    return zone < input_bound.size() ? static_cast<analysis::Verdict>(input_bound[zone])
                                     : analysis::Verdict::none;
  }
  // The steps zones[first, last) stand for.
  std::size_t steps_in(std::size_t first, std::size_t last) const {
    return std::min(last * per_zone, steps) - std::min(first * per_zone, steps);
  }
};

// Either the idle gaps themselves (zone i is gap i, zones[i].label its cause), or, for a trace too
// long to hold every gap (gap_windows.hpp loads those of what is shown), one zone per step that
// had idle time (per_zone 1; per_zone steps' worth in a trace of very many steps): the whole step
// (from the first to the last of them), labelled with its commonest cause, idle_ns[i] its idle
// time and zones[i].count how many steps with idle time it stands for.
struct GapRow {
  Row row;
  std::vector<std::int64_t> steps;  // the step zone i lies in (per_step: is, or the first)
  bool per_step = false;
  std::size_t per_zone = 1;
  std::vector<std::int64_t> idle_ns;  // per_step: the device's idle time in step i
  // The cause with the most idle time over zones[first, last) (a gap by its length, a step's zone
  // by its idle time), exactly: from the running sums every kCauseStride zones and at most
  // 2 * kCauseStride zones at the ends (a merged run may stand for millions of gaps; a few long
  // waits for input among many short host-bound gaps must not be sampled away).
  analysis::IdleCause dominant(std::size_t first, std::size_t last) const;
  // The idle time of zones[first, last), by cause and in all, exactly, from the same sums: how
  // much of a merged run the device idled (the idle lane draws it as a bar of that height).
  std::array<std::int64_t, analysis::kIdleCauseCount> idle_by_cause(std::size_t first,
                                                                    std::size_t last) const;
  std::int64_t idle_in(std::size_t first, std::size_t last) const;
  // Makes those running sums, once the zones are in (the makers below call it).
  void sum_causes();
  static constexpr std::size_t kCauseStride = 64;
  // Idle time by cause of zones[0, kCauseStride * k): 0.6 bytes a zone.
  std::vector<std::array<std::int64_t, analysis::kIdleCauseCount>> cause_sums;
};

// Steps in time order (the store's step_span rows, all of them or those around a view), per_zone
// of them a zone; `figures` (the analysis's per-step figures, null until it is done) adds the
// input-bound flags; epoch_first_steps (trace_meta.hpp) the step number each epoch starts at,
// ascending. The row holds each step once: of a job's ranks, the first to start each step; a step
// that starts a little before the one kept before it ends (timestamps rounded to the
// microsecond) is kept when its number is higher, that one's zone ending where it starts.
// make_step_row() one step at a time, for a pass that holds no list of the steps.
class StepRowBuilder {
 public:
  explicit StepRowBuilder(std::size_t per_zone = 1, std::size_t steps = 0);
  void add(const store::Step& s);
  StepRow finish(const PackedSteps* figures, const std::vector<std::int64_t>& epoch_first_steps);

 private:
  StepRow r_;
  std::int64_t last_start_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t last_end_ = std::numeric_limits<std::int64_t>::min();
  std::int64_t last_step_ = std::numeric_limits<std::int64_t>::min();
};
StepRow make_step_row(std::span<const store::Step> steps, const PackedSteps* figures,
                      const std::vector<std::int64_t>& epoch_first_steps = {},
                      std::size_t per_zone = 1);
// Sets the input-bound flags and input shares of `row`'s steps from `figures` (null: unknown), in
// place: a report arriving after the row was built does not build it again.
void mark_step_row(StepRow& row, const PackedSteps* figures);
// mark_step_row for a row whose zones stand for several steps each (per_zone > 1), fed the
// figures in their order, so that one walk over them can feed other builders too (the session
// walks 2.2 M packed steps once, not once per use).
class StepZoneMarker {
 public:
  explicit StepZoneMarker(StepRow& row);
  void add(const analysis::StepSummary& s);
  void finish();

 private:
  StepRow& r_;
  bool sorted_;
  std::vector<std::uint32_t> bound_, high_;
  std::optional<std::size_t> last_zone_;
  std::int64_t last_step_ = 0;
  analysis::Verdict last_class_ = analysis::Verdict::none;
};
GapRow make_gap_row(const std::vector<analysis::IdleGap>& gaps);
// One zone per step (per_zone steps; the analysis's per-step figures) with idle device time, in
// time order (of the overlapping steps of several ranks, the first to start: the idle lane is one
// lane).
GapRow make_step_idle_row(const PackedSteps& steps, std::size_t per_zone = 1);
// make_step_idle_row fed the figures of `steps` steps in their order.
class StepIdleRowBuilder {
 public:
  StepIdleRowBuilder(std::size_t steps, std::size_t per_zone);
  void add(const analysis::StepSummary& s);
  GapRow finish();

 private:
  void close_zone();
  GapRow g_;
  std::array<std::int64_t, analysis::kIdleCauseCount> by_cause_{};
  std::size_t in_zone_ = 0;
  std::int64_t last_end_ = std::numeric_limits<std::int64_t>::min();
};

}  // namespace ts::gui
