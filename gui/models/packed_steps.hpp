// The analysis's per-step figures as the viewer holds them, in blocks of up to kBlockSteps steps in
// the kept report's step encoding (report_codec.hpp), a block decoded when one of its steps is
// read:
//   - packed in memory: about 60 bytes a step against 208 for an analysis::StepSummary (a
//     100 M-event trace has 2.2 M steps: 130 MB instead of 460 MB);
//   - or left in the trace file, when they come from the report the trace keeps
//     (add_kept_part): the blocks are places in its kept parts (store::KeptParts reads a part
//     again when a block of it is read), and nothing per step stays in memory.
// A kept part that no longer reads back (the file changed under the viewer) reads as empty
// steps (numbered -1) and sets read_failed().
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/analysis_table.hpp"

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
  // fn(i, step) for the steps from index `first` on, in order, until fn returns false.
  void for_each_from(
      std::size_t first,
      const std::function<bool(std::size_t, const analysis::StepSummary&)>& fn) const;
  // The index of the last step numbered `step`, or nullopt.
  std::optional<std::size_t> find_step(std::int64_t step) const;
  // True when the step numbers never decrease (a trace's usual order, ranks' steps side by side).
  bool ascending() const { return ascending_; }
  // With ascending(): the index of the first step numbered at least `step` (size() if none),
  // found among the blocks' number ranges and one block decoded; 0 otherwise.
  std::size_t first_at_least(std::int64_t step) const;
  // The earliest step start (0 when empty).
  std::int64_t earliest_start_ns() const { return earliest_start_ns_; }
  // The bytes held in memory for the steps (blocks and their bytes), for the memory figures.
  std::size_t packed_bytes() const;
  // True when the steps are read from the trace file (add_kept_part).
  bool in_file() const { return parts_ != nullptr; }
  // A kept part did not read back since (its steps read as empty ones).
  bool read_failed() const;

  // Packing, before the steps are read: steps in order, any number at a time (an analysis's
  // per-step parts, analysis::StepSink), then finish() once.
  void append(std::span<const analysis::StepSummary> steps);
  // Or the parts of steps of the report the trace at `path` keeps under `key`, in order: indexed
  // (decoded once), not held. False when the bytes do not decode (nothing of them is added).
  bool add_kept_part(const std::string& path, std::string_view key, std::size_t part,
                     std::string_view bytes);
  void finish();

 private:
  struct Block {
    std::size_t first = 0;  // the index of its first step (blocks hold up to kBlockSteps)
    std::string bytes;      // in memory: encode_step_run() of the block's steps
    // In the file: the kept part, the offset of the block's first step and how many it holds.
    std::size_t part = 0, offset = 0, count = 0;
    std::int64_t before_step = 0, before_start_ns = 0;  // of the step before (0: none)
    bool has_before = false;
    std::int64_t least_step = 0, most_step = 0;  // the range of its step numbers
  };
  // The steps of block b, decoded (the caller holds mutex_): kept as the block read last.
  const std::vector<analysis::StepSummary>& decoded(std::size_t b) const;
  // The same into `out`, leaving the kept block as it is (the caller holds mutex_).
  void decode_into(std::size_t b, std::vector<analysis::StepSummary>& out) const;
  // The block holding step i (i < size()).
  std::size_t block_of(std::size_t i) const;
  std::size_t steps_in_blocks() const {
    return blocks_.empty() ? 0 : blocks_.back().first + blocks_.back().count;
  }
  void pack(std::span<const analysis::StepSummary> run);
  // Adds a block's place and its steps' figures to the index.
  void index_block(Block& b, std::span<const analysis::StepSummary> run);

  std::vector<Block> blocks_;
  std::size_t size_ = 0;
  std::int64_t earliest_start_ns_ = 0;
  bool ascending_ = true;
  std::vector<analysis::StepSummary> pending_;        // appended, short of a block
  std::optional<analysis::StepSummary> last_packed_;  // the step before the next block
  std::unique_ptr<store::KeptParts> parts_;           // in the file: where they are read
  std::string key_;
  mutable std::mutex mutex_;
  mutable std::size_t cached_block_ = SIZE_MAX;
  mutable std::vector<analysis::StepSummary> cache_;
  mutable std::size_t cached_part_ = 0;  // 0: none
  mutable std::string part_bytes_;
  mutable bool read_failed_ = false;
};

// Takes the per-step figures an analysis hands over (analysis::analyse_or_reuse) into
// PackedSteps: the parts of the report the trace at `path` keeps are indexed where they are kept,
// anything else is packed in memory.
class PackedStepsSink : public analysis::StepSink {
 public:
  explicit PackedStepsSink(std::string path) : path_(std::move(path)) {}
  void kept_part(std::string_view key, std::size_t part, std::string_view bytes) override {
    part_in_file_ = packed_->add_kept_part(path_, key, part, bytes);
  }
  void take(std::vector<analysis::StepSummary>& steps) override {
    if (!part_in_file_) packed_->append(steps);
    part_in_file_ = false;
  }
  void discard() override {
    packed_ = std::make_shared<PackedSteps>();
    part_in_file_ = false;
  }
  std::shared_ptr<const PackedSteps> finish() {
    packed_->finish();
    return std::move(packed_);
  }

 private:
  std::string path_;
  std::shared_ptr<PackedSteps> packed_ = std::make_shared<PackedSteps>();
  bool part_in_file_ = false;  // the part being taken is indexed in the file
};

}  // namespace ts::gui
