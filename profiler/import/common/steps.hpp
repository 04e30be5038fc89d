// Training steps of one file: the spans found (ProfilerStep#N markers) or inferred, and the
// lookup of the step an event belongs to.
//
// Inference when a file has no ProfilerStep#N (see README.md, "Steps"):
//   (a) --step-marker REGEX: the outermost host events whose name matches, numbered 1, 2, ... in
//       time order;
//   (b) DataLoader cadence: on the thread with the most enumerate(DataLoader)#...__next__ calls,
//       step k runs from the start of call k to the start of call k+1; the last one to the end of
//       that thread's last event;
//   (c) a top-level annotation repeating at least 3 times on the busiest host thread: one step
//       per occurrence;
//   (d) none.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/import/common/none.hpp"

namespace ts::import {

struct StepSpan {
  std::int64_t start = 0, end = 0;  // absolute ns
  std::int64_t step = 0;
  std::uint32_t thread = 0;  // the file's thread index
  std::int64_t event = -1;   // the event that marks it (file order index), -1: inferred
};

// Finds the step a time lies in: the span with the latest start at or before it, when the time
// is before that span's end (HTA's and the TB plugin's rule: start <= t < end).
class StepIndex {
 public:
  StepIndex() = default;
  explicit StepIndex(std::vector<StepSpan> spans);
  std::int64_t step_at(std::int64_t t) const;  // kNone outside every step
  bool empty() const { return starts_.empty(); }

 private:
  std::vector<std::int64_t> starts_, ends_;
  std::vector<std::int64_t> steps_;  // empty when step i is first_step_ + i
  std::int64_t first_step_ = 0;
};

// A host event that could mark a step, as the inference rules see it.
struct StepCandidate {
  std::int64_t start = 0, end = 0;
  std::uint32_t thread = 0;
  std::uint32_t name = 0;
  std::int64_t event = 0;  // file order index
};

// (a): the outermost candidates per thread (those no other candidate on their thread contains),
// numbered 1.. in time order.
std::vector<StepSpan> steps_from_marker(std::vector<StepCandidate> matches);

// (b): calls = the DataLoader __next__ calls of one thread; thread_end = the end of the last
// event of that thread.
std::vector<StepSpan> steps_from_dataloader(std::vector<StepCandidate> calls,
                                            std::int64_t thread_end);

// (c): annotations = the annotation events of the busiest thread; returns the spans of the
// top-level name repeating most often (at least min_repeats times), and that name in `name`.
std::vector<StepSpan> steps_from_repeating(std::vector<StepCandidate> annotations,
                                           std::uint32_t& name, int min_repeats = 3);

}  // namespace ts::import
