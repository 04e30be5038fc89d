// Numbered step labels: the ProfilerStep#N markers of an imported trace share one step label,
// "ProfilerStep#", and an event's full name is that name followed by its step number
// ("ProfilerStep#12"). A trace of a million steps then holds one label for them, not a million.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "profiler/store/rows.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::store {

// The label PyTorch's ProfilerStep#N markers are stored under.
inline constexpr std::string_view kNumberedStepName = "ProfilerStep#";

// Whether a label of this name and category stands for one name per step.
inline bool is_numbered_label(std::string_view name, trace::Category category) {
  return category == trace::Category::step && name == kNumberedStepName;
}

// An event's full name: its label's name, followed by its step number when the label is
// numbered (and the event has a step).
inline std::string full_event_name(std::string_view label_name, trace::Category category,
                                   std::int64_t step) {
  std::string name(label_name);
  if (step != kNull && is_numbered_label(label_name, category)) name += std::to_string(step);
  return name;
}

}  // namespace ts::store
