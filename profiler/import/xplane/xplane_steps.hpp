// The training steps of one TensorFlow profile (README.md, "TensorFlow profiles", Steps):
//   (0) with --step-marker REGEX: the host events whose name matches, numbered 1, 2, ...;
//   (1) step markers as XProf finds them: root events (stat _r) other than function runs, e.g.
//       Keras 2's "train"/"test" with step_num and epoch_num, JAX's StepTraceAnnotation, and the
//       legacy "TraceContext";
//   (2) else Keras 3's "Profiled batch" annotations (step_num, no _r: XProf takes none);
//   (3) else the IteratorGetNext cadence: step k from the start of the k-th input wait to the
//       start of the next (the DataLoader cadence of the JSON importer, common/steps.hpp);
//   (4) else none.
// Markers nested in another marker of their thread are not steps. A marker's number is its
// step_num while step_num increases in time order; once it goes back (a new epoch) or is absent,
// the marker gets the previous number + 1, so numbers are unique and increasing.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "profiler/import/common/steps.hpp"

namespace ts::import {

// A host event that may mark a step.
struct MarkerEvent {
  std::int64_t start = 0, end = 0;
  std::uint32_t track = 0;
  std::size_t chunk = 0, row = 0;  // where its row is
  std::string name;
  std::optional<std::int64_t> step_num, epoch_num;
};

struct StepPlan {
  std::vector<StepSpan> spans;       // StepSpan.thread = track; .event = index into `markers`, -1
  std::vector<MarkerEvent> markers;  // the markers that became steps, in time order
  std::string source;                // steps.source: one sentence
  bool cadence = false;              // (3): the spans need step rows of their own
};

// regex_markers: (0), when step_marker_text is not empty; explicit_markers: (1); profiled: (2);
// get_next: the IteratorGetNext events (StepCandidate.thread = track); track_end(track): the end
// of that track's last event.
StepPlan find_xplane_steps(const std::string& step_marker_text,
                           std::vector<MarkerEvent> regex_markers,
                           std::vector<MarkerEvent> explicit_markers,
                           std::vector<MarkerEvent> profiled, std::vector<StepCandidate> get_next,
                           const std::vector<std::int64_t>& track_end);

}  // namespace ts::import
