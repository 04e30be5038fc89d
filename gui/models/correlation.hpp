// The other end of a launch: the device event a host launch caused, or the launch that caused a
// device event. Both carry the same correlation id (event_arg.correlation). The partner lies
// close in time — a kernel starts after its launch, typically within milliseconds — so it is
// looked for in a window around the event, not in the whole trace.
#pragma once

#include <cstdint>
#include <optional>

#include "profiler/store/reader.hpp"

namespace ts::gui {

// The window searched: before and after the event's start (a kernel may start long after its
// launch when the queue is deep).
inline constexpr std::int64_t kLinkBeforeNs = 1'000'000'000;
inline constexpr std::int64_t kLinkAfterNs = 10'000'000'000;

// The first event on another track with `event`'s correlation id; nullopt when it has none or
// none is found in the window.
std::optional<store::Event> correlated_event(const store::Reader& reader,
                                             const store::Event& event);
// The partner of the event of `track` starting at `start_ns` (a selected one), as
// correlated_event() finds it; nullopt when there is no such event or it has none.
std::optional<store::Event> correlated_event_at(const store::Reader& reader, std::uint32_t track,
                                                std::int64_t start_ns);

}  // namespace ts::gui
