#include "gui/models/trace_summary.hpp"

#include <algorithm>

namespace ts::gui {

const TrackRows* SummaryData::rows_of(std::uint32_t track) const {
  for (const TrackRows& t : tracks)
    if (t.track == track) return &t;
  return nullptr;
}

const CounterSeries* SummaryData::counter_of(std::uint32_t track) const {
  for (const CounterSeries& c : counters)
    if (c.track == track) return &c;
  return nullptr;
}

std::uint32_t SummaryData::search_bin(std::int64_t t) const {
  const double span = std::max<double>(1, static_cast<double>(end_ns - begin_ns));
  const double f = (static_cast<double>(t) - static_cast<double>(begin_ns)) / span;
  return static_cast<std::uint32_t>(std::clamp(f * kSearchBins, 0.0, kSearchBins - 1.0));
}

std::pair<std::int64_t, std::int64_t> SummaryData::search_bin_range(std::uint32_t bin) const {
  const double span = static_cast<double>(end_ns - begin_ns);
  const auto at = [&](std::uint32_t b) {
    return begin_ns + static_cast<std::int64_t>(span * b / kSearchBins);
  };
  // The last bin also takes events starting exactly at the end.
  return {at(bin), bin + 1 >= kSearchBins ? end_ns + 1 : at(bin + 1)};
}

}  // namespace ts::gui
