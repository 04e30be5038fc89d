#include "profiler/import/common/skip_reasons.hpp"

namespace ts::import {

std::string_view skip_name(Skip s) {
  constexpr std::string_view names[kSkipCount] = {
      "not_an_object",     "missing_phase",     "unknown_phase",
      "unsupported_phase", "async_event",       "flow",
      "missing_timestamp", "invalid_timestamp", "missing_duration",
      "negative_duration", "invalid_duration",  "unpaired_end",
      "unclosed_begin",    "duplicate",         "instant_event",
      "trace_span",        "cupti_overhead",    "gpu_annotation",
      "invalid_counter",   "too_many_tracks",   "name_truncated",
      "truncated_file",    "syntax_error",      "nesting_too_deep",
      "gzip_error",        "unsupported_plane", "derived_line",
      "out_of_key_range"};
  const auto i = static_cast<int>(s);
  return i < kSkipCount ? names[i] : std::string_view("unknown");
}

void SkipCounts::add_to(std::map<std::string, std::uint64_t>& out) const {
  for (int i = 0; i < kSkipCount; ++i)
    if (n[i] != 0) out[std::string(skip_name(static_cast<Skip>(i)))] += n[i];
}

}  // namespace ts::import
