#include "cli/keep_analysis.hpp"

#include "profiler/store/reader.hpp"

namespace ts::cli {

bool keep_analysis_of(const std::string& path, std::int64_t from_events) noexcept {
  try {
    const store::Reader reader(path);
    if (reader.event_count(from_events) < from_events || reader.steps().empty()) return false;
    analysis::AnalysisOptions options;
    options.keep_gaps = false;
    if (analysis::kept_report(reader, options)) return true;
    const analysis::Report report = analysis::analyse(reader, options);
    return analysis::keep_report(reader, report, options);
  } catch (...) {
    return false;
  }
}

}  // namespace ts::cli
