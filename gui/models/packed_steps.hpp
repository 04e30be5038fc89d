// The analysis's per-step figures as the viewer holds them: packed in the kept report's step
// encoding (report_codec.hpp, about 60 bytes a step against 208 for an analysis::StepSummary) in
// blocks of kBlockSteps, a block decoded when one of its steps is read. A 100 M-event trace has
// 2.2 M steps: 130 MB packed instead of 460 MB.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::gui {

class PackedSteps {
 public:
  static constexpr std::size_t kBlockSteps = 1024;

  PackedSteps() = default;
  explicit PackedSteps(std::span<const analysis::StepSummary> steps) {
    append(steps);
    finish();
  }
  PackedSteps(const PackedSteps&) = delete;
  PackedSteps& operator=(const PackedSteps&) = delete;

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // Step i (i < size()). Safe on any thread; the block read last stays decoded, so reading steps
  // in order decodes each block once.
  analysis::StepSummary at(std::size_t i) const;
  // fn(i, step) for every step, in order, decoding each block once.
  void for_each(const std::function<void(std::size_t, const analysis::StepSummary&)>& fn) const;
  // The index of the last step numbered `step`, or nullopt.
  std::optional<std::size_t> find_step(std::int64_t step) const;
  // The earliest step start (0 when empty).
  std::int64_t earliest_start_ns() const { return earliest_start_ns_; }
  // The packed bytes, for the memory figures.
  std::size_t packed_bytes() const;

  // Packing, before the steps are read: steps in order, any number at a time (an analysis's
  // per-step parts, analysis::StepSink), then finish() once.
  void append(std::span<const analysis::StepSummary> steps);
  void finish();

 private:
  struct Block {
    std::string bytes;                                  // encode_step_run() of the block's steps
    std::int64_t before_step = 0, before_start_ns = 0;  // of the step before (0: none)
    bool has_before = false;
    std::int64_t least_step = 0, most_step = 0;  // the range of its step numbers
  };
  // The steps of block b, decoded (the caller holds mutex_).
  const std::vector<analysis::StepSummary>& decoded(std::size_t b) const;
  void pack(std::span<const analysis::StepSummary> run);

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  std::int64_t earliest_start_ns_ = 0;
  std::vector<analysis::StepSummary> pending_;        // appended, short of a block
  std::optional<analysis::StepSummary> last_packed_;  // the step before the next block
  mutable std::mutex mutex_;
  mutable std::size_t cached_block_ = SIZE_MAX;
  mutable std::vector<analysis::StepSummary> cache_;
};

}  // namespace ts::gui
