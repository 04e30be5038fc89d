#include "profiler/import/common/skip_reasons.hpp"

namespace ts::import {

std::string_view skip_name(Skip s) {
  constexpr std::string_view names[kSkipCount] = {
      "not_an_object",     "missing_phase",     "unknown_phase",
      "unsupported_phase", "async_event",       "flow",
      "missing_timestamp", "invalid_timestamp", "missing_duration",
      "negative_duration", "invalid_duration",  "number_out_of_range",
      "unpaired_end",      "unclosed_begin",    "duplicate",
      "instant_event",     "trace_span",        "cupti_overhead",
      "gpu_annotation",    "invalid_counter",   "too_many_tracks",
      "name_truncated",    "truncated_file",    "syntax_error",
      "nesting_too_deep",  "gzip_error",        "unsupported_plane",
      "derived_line",      "out_of_key_range"};
  const auto i = static_cast<int>(s);
  return i < kSkipCount ? names[i] : std::string_view("unknown");
}

bool is_loss(Skip s) {
  switch (s) {
    case Skip::not_an_object:
    case Skip::missing_phase:
    case Skip::unknown_phase:
    case Skip::missing_timestamp:
    case Skip::invalid_timestamp:
    case Skip::missing_duration:
    case Skip::negative_duration:
    case Skip::invalid_duration:
    case Skip::number_out_of_range:
    case Skip::unpaired_end:
    case Skip::unclosed_begin:
    case Skip::invalid_counter:
    case Skip::too_many_tracks:
    case Skip::out_of_key_range:
      return true;
    default:
      return false;
  }
}

bool is_loss(std::string_view reason) {
  for (int i = 0; i < kSkipCount; ++i)
    if (skip_name(static_cast<Skip>(i)) == reason) return is_loss(static_cast<Skip>(i));
  return false;
}

void SkipCounts::add_to(std::map<std::string, std::uint64_t>& out) const {
  for (int i = 0; i < kSkipCount; ++i)
    if (n[i] != 0) out[std::string(skip_name(static_cast<Skip>(i)))] += n[i];
}

}  // namespace ts::import
