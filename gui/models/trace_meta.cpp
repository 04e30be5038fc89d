#include "gui/models/trace_meta.hpp"

#include "profiler/analysis/phases.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::gui {

bool capture_in_progress(const store::Reader& reader) {
  return !reader.meta(meta_key::kCaptureEndNs).has_value() && !reader.has_overview();
}

std::vector<std::int64_t> epoch_first_steps(const store::Reader& reader) {
  return analysis::run_shape(reader).epoch_first_steps;
}

}  // namespace ts::gui
