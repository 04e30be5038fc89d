// Input pipeline statistics (profiler/analysis/README.md): per stage (read, decode, map, batch),
// over every thread that ran it (input workers, or the trainer itself in a pipeline without
// workers).
//
// - Stage time is self time: zones of one stage nested in another's (a "decode image" inside a
//   worker's "load samples" read zone) count for the inner stage only, so stage times add up to
//   the time spent on input.
// - Time per sample = stage time / samples, samples as counted by the caller (batch × batches
//   handed over); per event when the sample count is unknown.
// - Utilisation = stage time / (threads × wall time of the run).
// - Bottleneck stage = the largest time per sample divided by the number of threads running the
//   stage: the stage whose throughput (samples/s it can deliver with its parallelism) is lowest
//   and therefore limits the pipeline's rate — tf.data's bottleneck analysis, which names the
//   stage with the highest latency per element relative to its parallelism.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

inline constexpr int kStageCount = 4;
// A stage is named the bottleneck only when input stages ran during at least this share of the
// trainer's input wait (PipelineStats::busy_during_waits_pct).
inline constexpr double kBusyDuringWaitsPct = 50.0;
// The stage index of an input category (0 read .. 3 batch), -1 for other categories.
int stage_index(trace::Category c);

class StageAccumulator {
 public:
  // later_part: this accumulator takes a later part of a split scan and will be merged into
  // the one before it, so it remembers the zones that may nest in that one's open zones.
  explicit StageAccumulator(bool later_part = false) : later_part_(later_part) {}
  // Takes events of thread tracks in start order per track (as Reader::scan delivers them);
  // ignores categories that are not input stages. `track` is a dense index (TrackTable), `when`
  // clamped by event_interval(); `label` names the event (its self time is also kept per label).
  void add(int track, trace::Category category, Interval when, std::uint32_t label = 0);
  // Adds what an accumulator of the next part of the same scan collected (a parallel pass
  // splits the trace by time): zones of this part still open take back the time of the later
  // part's zones nested in them, exactly as one sequential pass would have.
  void merge(StageAccumulator&& later);
  // samples: how many samples went through the pipeline (0: unknown, report per event).
  // wall_ns: the run's wall time, for utilisation. label_name: names a label, for each stage's
  // main event (none when empty).
  PipelineStats finish(std::int64_t samples, std::int64_t wall_ns,
                       const std::function<std::string_view(std::uint32_t)>& label_name = {}) const;

 private:
  struct Open {
    Interval when;
    int stage = 0;
    std::uint32_t label = 0;
  };
  struct PerStage {
    std::int64_t count = 0;
    std::int64_t self_ns = 0;
    std::vector<int> tracks;
    std::unordered_map<std::uint32_t, std::int64_t> self_by_label;
  };
  std::vector<Open>& open_on(int track);
  void nest(const Open& parent, Interval child);

  std::array<PerStage, kStageCount> stages_;
  std::vector<std::vector<Open>> open_;  // per track: the stage zones enclosing the scan point
  // Per track, the zones that arrived with no zone of this accumulator open around them: the
  // only ones a zone of an earlier part of the scan can enclose.
  std::vector<std::vector<Interval>> roots_;
  bool later_part_ = false;
};

// The mean of a counter over time, each sample holding until the next and the last until
// `end_ns` (a counter is a step function). The plain mean of the values when the samples span
// no time. Empty input: nullopt.
std::optional<double> time_weighted_mean(std::span<const store::CounterSample> samples,
                                         std::int64_t end_ns);

}  // namespace ts::analysis
