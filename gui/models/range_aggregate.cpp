#include "gui/models/range_aggregate.hpp"

#include <algorithm>
#include <unordered_map>

namespace ts::gui {

RangeAggregate aggregate_range(const store::Reader& reader, std::int64_t t0, std::int64_t t1,
                               const std::vector<std::uint32_t>& tracks, std::int64_t max_events) {
  RangeAggregate out;
  out.start_ns = std::min(t0, t1);
  out.end_ns = std::max(t0, t1);
  std::unordered_map<std::uint32_t, RangeRow> by_label;
  struct Stop {};
  auto take = [&](const store::Event& e) {
    if (out.events >= max_events) {
      out.truncated = true;
      throw Stop{};
    }
    ++out.events;
    RangeRow& row = by_label[e.label];
    ++row.count;
    const std::int64_t inside =
        std::min(e.end_ns(), out.end_ns) - std::max(e.start_ns, out.start_ns);
    row.total_ns += std::max<std::int64_t>(0, inside);
    row.max_ns = std::max(row.max_ns, e.dur_ns);
  };
  try {
    if (tracks.empty()) {
      out.tracks = static_cast<int>(reader.tracks().size());
      reader.scan(out.start_ns, out.end_ns, 0, take);
    } else {
      out.tracks = static_cast<int>(tracks.size());
      for (const std::uint32_t t : tracks) reader.scan(out.start_ns, out.end_ns, t, take);
    }
  } catch (const Stop&) {
  }
  // Rows by name: several labels may share one (a name in two categories stays two rows).
  std::vector<RangeRow> rows;
  for (const auto& [label, row] : by_label) {
    const store::Label& l = reader.label(label);
    auto same = std::find_if(rows.begin(), rows.end(), [&](const RangeRow& r) {
      return r.name == l.name && r.category == l.category;
    });
    if (same == rows.end()) {
      RangeRow r = row;
      r.name = l.name;
      r.category = l.category;
      rows.push_back(std::move(r));
    } else {
      same->count += row.count;
      same->total_ns += row.total_ns;
      same->max_ns = std::max(same->max_ns, row.max_ns);
    }
  }
  std::sort(rows.begin(), rows.end(), [](const RangeRow& a, const RangeRow& b) {
    return a.total_ns != b.total_ns ? a.total_ns > b.total_ns : a.name < b.name;
  });
  out.rows = std::move(rows);
  return out;
}

}  // namespace ts::gui
