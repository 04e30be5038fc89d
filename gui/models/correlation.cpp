#include "gui/models/correlation.hpp"

#include <limits>

namespace ts::gui {

std::optional<store::Event> correlated_event(const store::Reader& reader,
                                             const store::Event& event) {
  const std::int64_t id = reader.args(event).correlation;
  if (id == store::kNull || id == 0) return std::nullopt;
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  const std::int64_t t0 =
      event.start_ns > kMin + kLinkBeforeNs ? event.start_ns - kLinkBeforeNs : kMin;
  const std::int64_t t1 =
      event.start_ns < kMax - kLinkAfterNs ? event.start_ns + kLinkAfterNs : kMax;
  for (const store::Event& e : reader.events_with_correlation(id, t0, t1))
    if (e.track != event.track) return e;
  return std::nullopt;
}

std::optional<store::Event> correlated_event_at(const store::Reader& reader, std::uint32_t track,
                                                std::int64_t start_ns) {
  std::optional<store::Event> partner;
  for (const store::Event& e : reader.events(start_ns, start_ns + 1, track))
    if (e.start_ns == start_ns && e.track == track)
      if (auto other = correlated_event(reader, e)) partner = std::move(other);
  return partner;
}

}  // namespace ts::gui
