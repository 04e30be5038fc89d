// The fixed-size record a traced thread writes into its ring, one per event (two when the
// event carries arguments). Raw and compact on purpose: the writer thread resolves sites to
// labels, ticks to nanoseconds and steps to SQL values.
#pragma once

#include <bit>
#include <cstdint>
#include <type_traits>

namespace ts::trace::core {

enum class EventKind : std::uint8_t {
  zone = 1,       // ref: const Site*; t0/t1: ticks
  zone_dynamic,   // ref: name id | category << 32; t0/t1: ticks
  step,           // t0/t1: ticks; step: the step
  counter_site,   // ref: const CounterSite*; t0: ticks; t1: the value's bits
  counter_track,  // track: counter track; t0: ticks; t1: the value's bits
  device,         // ref: name id | category << 32; track: device track; t0/t1: host ns
};

inline constexpr std::uint8_t kHasArgs = 1;  // the next slot holds an ArgsRecord
inline constexpr std::uint32_t kNoStep32 = 0xFFFFFFFFu;

struct Event {
  std::uint64_t t0;
  std::uint64_t t1;
  std::uint64_t ref;
  std::uint32_t step;   // kNoStep32 when outside any step
  std::uint16_t track;  // device and counter-track events; 0 = the producing thread
  EventKind kind;
  std::uint8_t flags;
};
static_assert(sizeof(Event) == 32, "ring slots are 32 bytes");
static_assert(std::is_trivially_copyable_v<Event> && std::is_standard_layout_v<Event>);

// The second slot of an event with arguments. Zero means "none".
struct ArgsRecord {
  std::uint64_t bytes;
  std::uint64_t work_size;
  std::uint64_t correlation;
  std::uint64_t reserved;
};
static_assert(sizeof(ArgsRecord) == sizeof(Event));

inline Event as_slot(const ArgsRecord& a) {
  return std::bit_cast<Event>(a);
}
inline ArgsRecord as_args(const Event& e) {
  return std::bit_cast<ArgsRecord>(e);
}

inline std::uint64_t pack_name(std::uint32_t name_id, std::uint8_t category) {
  return static_cast<std::uint64_t>(name_id) | static_cast<std::uint64_t>(category) << 32;
}
inline std::uint32_t name_of(std::uint64_t ref) {
  return static_cast<std::uint32_t>(ref);
}
inline std::uint8_t category_of(std::uint64_t ref) {
  return static_cast<std::uint8_t>(ref >> 32);
}

}  // namespace ts::trace::core
