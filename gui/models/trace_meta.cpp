#include "gui/models/trace_meta.hpp"

#include <charconv>
#include <regex>

#include "profiler/analysis/phases.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::gui {

bool capture_in_progress(const store::Reader& reader) {
  return !reader.meta(meta_key::kCaptureEndNs).has_value() && !reader.has_overview();
}

std::vector<std::int64_t> epoch_first_steps(const store::Reader& reader) {
  return analysis::run_shape(reader).epoch_first_steps;
}

namespace {

double positive_number(const std::optional<std::string>& text) {
  if (!text) return 0;
  double v = 0;
  const auto [end, ec] = std::from_chars(text->data(), text->data() + text->size(), v);
  return ec == std::errc() && v > 0 ? v : 0;
}

}  // namespace

double memory_capacity(const store::Reader& reader, const std::string& counter_name) {
  static const std::regex gpu(R"(^GPU (\d+) memory\b.*)");
  static const std::regex opencl(R"(^device memory (.+)$)");
  std::smatch m;
  if (std::regex_match(counter_name, m, gpu))
    return positive_number(reader.meta(std::string(meta_key::kDeviceGpuPrefix) + m[1].str() +
                                       meta_key::kDeviceGpuTotalMemorySuffix));
  if (std::regex_match(counter_name, m, opencl)) {
    // The trace records one OpenCL device's properties: its memory is that device's.
    const auto name = reader.meta(meta_key::kDeviceOpenclName);
    if (name && *name != m[1].str()) return 0;
    return positive_number(reader.meta(meta_key::kDeviceOpenclGlobalMemoryBytes));
  }
  if (counter_name.rfind("host memory", 0) == 0)
    return positive_number(reader.meta(meta_key::kHostMemoryBytes));
  return 0;
}

std::unordered_map<std::uint32_t, double> memory_capacities(const store::Reader& reader) {
  std::unordered_map<std::uint32_t, double> out;
  for (const store::Track& t : reader.tracks())
    if (t.kind == trace::TrackKind::counter)
      if (const double bytes = memory_capacity(reader, t.name); bytes > 0) out[t.id] = bytes;
  return out;
}

}  // namespace ts::gui
