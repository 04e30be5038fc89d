// A Report (report.hpp) in a compact binary form, cut into parts, for keeping it in a trace
// (kept_report.hpp):
//
//   head  := "TSRP" 0x01 varint(#steps) report fields
//   steps := varint(#steps in this part) (zigzag(step - previous step)
//            zigzag(start_ns - previous start_ns) step fields)*
//
// The first part is the head: every field of the report but its per-step list, in the order of
// the struct declarations, and without the idle gaps themselves (DeviceStats::gaps: only their
// number, listed_gaps); then the per-step list in parts of at most kStepsPerPart steps. Integers
// are zigzag varints (varint.hpp), doubles little-endian IEEE, strings a varint length and the
// bytes, optionals a presence byte, vectors a varint count. About 60 bytes a step.
//
// The decoder meets whatever a file holds: anything truncated, out of range (a double not finite
// or beyond ±2^62, a flag not 0 or 1, a verdict it does not know) or with bytes left over makes it
// refuse the whole report, and it never allocates more than a small multiple of
// the bytes it is given.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/report.hpp"

namespace ts::analysis {

inline constexpr std::size_t kStepsPerPart = 16384;

// The parts of `report`: the head, then one part per kStepsPerPart steps; made one at a time by
// a caller storing them as it goes, so that no more than one part is held besides the report.
std::size_t report_parts(const Report& report);
std::string encode_report_part(const Report& report, std::size_t part);
std::vector<std::string> encode_report(const Report& report);  // every part

// A run of steps in the form of a report's step part: the count, then each step, its number and
// start delta-coded from the step before it (from `before`, the step preceding the run, for the
// first; from 0 when null). About 60 bytes a step, against sizeof(StepSummary), 208.
std::string encode_step_run(std::span<const StepSummary> steps, const StepSummary* before);
// Appends the steps of a run encode_step_run() made with the same `before` to `out`; false when
// the bytes do not decode, hold no step or more than `most`, or have bytes left over (`out` then
// holds what decoded).
bool decode_step_run(std::string_view bytes, const StepSummary* before, std::size_t most,
                     std::vector<StepSummary>& out);

// A run read in pieces (the viewer reads a kept report's steps a block at a time): its count and
// the offset of its first step; then `n` steps from any step boundary `offset`, the first
// delta-coded from `before` (the step before it), appended to `out`. decode_steps_at returns the
// offset after them, or nullopt when they do not decode (`out` then holds what did).
struct StepRunHead {
  std::size_t count = 0;
  std::size_t first_offset = 0;
};
std::optional<StepRunHead> step_run_head(std::string_view run);
std::optional<std::size_t> decode_steps_at(std::string_view run, std::size_t offset, std::size_t n,
                                           const StepSummary* before,
                                           std::vector<StepSummary>& out);

// Decodes the parts encode_report() made, fed one at a time.
class ReportDecoder {
 public:
  // `all_bytes`: the size of every part together, which bounds what the head may announce.
  // False once anything does not decode; every later part is then refused too.
  bool add(std::string_view part, std::uint64_t all_bytes);
  // The report, when every part decoded and the steps the head announced all came.
  std::optional<Report> finish();
  // Hands each part's steps to `sink` as it decodes (it may move them) instead of keeping them
  // in the report: finish()'s report then has no per-step list. Set before the first part.
  void set_step_sink(std::function<void(std::vector<StepSummary>&)> sink) {
    sink_ = std::move(sink);
  }

 private:
  Report report_;
  std::size_t parts_ = 0;
  std::uint64_t steps_ = 0, decoded_steps_ = 0;
  std::optional<StepSummary> last_step_;  // the last step decoded, where the next part goes on
  std::function<void(std::vector<StepSummary>&)> sink_;
  bool failed_ = false;
};

}  // namespace ts::analysis
