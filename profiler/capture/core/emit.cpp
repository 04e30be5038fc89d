// The recording half of the instrumentation API: everything a traced thread runs.
#include <bit>
#include <mutex>
#include <new>

#include "profiler/capture/core/device_sampling.hpp"
#include "profiler/capture/core/runtime.hpp"
#include "trainscope/trace.hpp"

namespace ts::trace::detail {
constinit std::atomic<std::uint32_t> g_state{kOff};
constinit std::atomic<bool> g_device_events{true};
}  // namespace ts::trace::detail

namespace ts::trace::core {

constinit thread_local SpscRing* tl_ring = nullptr;

Runtime& runtime() {
  static Runtime* r = new Runtime;
  return *r;
}

void set_state(std::uint32_t state) noexcept {
  detail::g_state.store(state, std::memory_order_release);
}

void set_device_events(bool on) noexcept {
  detail::g_device_events.store(on, std::memory_order_relaxed);
}

namespace {

enum WindowPhase : int { kNoWindow, kArmed, kInWindow };
// The hot path reads the phase alone; the lock orders a step switching recording on against a
// stop or a write error switching it off, so that neither undoes the other.
constinit std::atomic<int> g_window_phase{kNoWindow};
std::mutex g_window_mutex;
std::int64_t g_window_first = 0, g_window_last = 0;  // guarded by g_window_mutex
std::uint32_t g_window_state = detail::kOff;

void enter_step_window(std::int64_t step) noexcept {
  if (g_window_phase.load(std::memory_order_acquire) != kArmed) return;
  const std::lock_guard lock(g_window_mutex);
  if (g_window_phase.load(std::memory_order_relaxed) != kArmed || step < g_window_first ||
      step > g_window_last)
    return;
  g_window_phase.store(kInWindow, std::memory_order_release);
  set_state(g_window_state);
}

void leave_step_window(std::int64_t step) noexcept {
  if (g_window_phase.load(std::memory_order_acquire) != kInWindow) return;
  const std::lock_guard lock(g_window_mutex);
  if (g_window_phase.load(std::memory_order_relaxed) != kInWindow || step < g_window_last) return;
  g_window_phase.store(kNoWindow, std::memory_order_release);
  set_state(detail::kOff);
}

}  // namespace

void arm_step_window(std::int64_t first, std::int64_t last, std::uint32_t state) noexcept {
  const std::lock_guard lock(g_window_mutex);
  g_window_first = first;
  g_window_last = last;
  g_window_state = state;
  g_window_phase.store(kArmed, std::memory_order_release);
}

void disarm_step_window() noexcept {
  const std::lock_guard lock(g_window_mutex);
  g_window_phase.store(kNoWindow, std::memory_order_release);
}

void forget_step_window() noexcept {
  g_window_phase.store(kNoWindow, std::memory_order_relaxed);
}

namespace {

constinit std::atomic<std::uint32_t> g_step{kNoStep32};
constinit std::atomic<std::uint64_t> g_next_correlation{1};
constinit thread_local std::uint64_t tl_step_start = 0;
constinit thread_local std::uint32_t tl_step_state = detail::kOff;

[[gnu::noinline]] SpscRing* attach_thread() noexcept {
  try {
    Runtime& rt = runtime();
    tl_ring = rt.threads.current_ring(rt.ring_events.load(std::memory_order_relaxed));
  } catch (const std::bad_alloc&) {
    tl_ring = nullptr;
  }
  return tl_ring;
}

inline SpscRing* ring() noexcept {
  SpscRing* r = tl_ring;
  return r != nullptr ? r : attach_thread();
}

inline std::uint32_t step_arg(std::int64_t step) noexcept {
  if (step == kCurrentStep) return g_step.load(std::memory_order_relaxed);
  if (step < 0 || step >= static_cast<std::int64_t>(kNoStep32)) return kNoStep32;
  return static_cast<std::uint32_t>(step);
}

inline std::uint64_t ref_of(const void* p) noexcept {
  return reinterpret_cast<std::uintptr_t>(p);
}

void push(Event e, const EventArgs& args, std::uint64_t work_size) noexcept {
  SpscRing* r = ring();
  if (r == nullptr) return;
  if (args.bytes == 0 && args.correlation == 0 && work_size == 0) {
    r->push(e);
    return;
  }
  e.flags |= kHasArgs;
  r->push(e, ArgsRecord{args.bytes, work_size, args.correlation, 0});
}

}  // namespace
}  // namespace ts::trace::core

namespace ts::trace::detail {

using core::Event;
using core::EventKind;

void end_zone(const Site* site, std::uint64_t start) noexcept {
  const std::uint32_t s = state();
  if (s == kOff) return;
  const std::uint64_t end = ticks(s);
  if (core::SpscRing* r = core::ring())
    r->push(Event{start, end, core::ref_of(site), core::g_step.load(std::memory_order_relaxed), 0,
                  EventKind::zone, 0});
}

void end_zone_args(const Site* site, std::uint64_t start, const EventArgs& args) noexcept {
  const std::uint32_t s = state();
  if (s == kOff) return;
  const std::uint64_t end = ticks(s);
  core::push(
      Event{start, end, core::ref_of(site), core::step_arg(args.step), 0, EventKind::zone, 0}, args,
      0);
}

void end_zone_dynamic(std::uint32_t name_id, Category category, std::uint64_t start,
                      const EventArgs& args) noexcept {
  const std::uint32_t s = state();
  if (s == kOff) return;
  const std::uint64_t end = ticks(s);
  core::push(Event{start, end, core::pack_name(name_id, static_cast<std::uint8_t>(category)),
                   core::step_arg(args.step), 0, EventKind::zone_dynamic, 0},
             args, 0);
}

void emit_counter(const CounterSite* site, double value) noexcept {
  const std::uint32_t s = state();
  if (s == kOff) return;
  if (core::SpscRing* r = core::ring())
    r->push(Event{ticks(s), std::bit_cast<std::uint64_t>(value), core::ref_of(site),
                  core::g_step.load(std::memory_order_relaxed), 0, EventKind::counter_site, 0});
}

void emit_counter_track(std::uint32_t track, double value) noexcept {
  const std::uint32_t s = state();
  if (s == kOff || track == 0 || track > core::TrackTable::kMaxTracks) return;
  if (core::SpscRing* r = core::ring())
    r->push(Event{ticks(s), std::bit_cast<std::uint64_t>(value), 0,
                  core::g_step.load(std::memory_order_relaxed), static_cast<std::uint16_t>(track),
                  EventKind::counter_track, 0});
}

void emit_device(std::uint32_t track, Category category, std::uint32_t name_id,
                 std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes,
                 std::uint64_t work_size, std::int64_t step, std::uint64_t correlation) noexcept {
  if (track == 0 || track > core::TrackTable::kMaxTracks) return;
  core::note_device_event(core::step_arg(step));
  core::push(Event{static_cast<std::uint64_t>(start_ns), static_cast<std::uint64_t>(end_ns),
                   core::pack_name(name_id, static_cast<std::uint8_t>(category)),
                   core::step_arg(step), static_cast<std::uint16_t>(track), EventKind::device, 0},
             EventArgs{bytes, step, correlation}, work_size);
}

}  // namespace ts::trace::detail

namespace ts::trace {

std::uint32_t intern(std::string_view text) {
  return core::runtime().strings.intern(text);
}

std::uint32_t register_track(std::string_view name, TrackKind kind) {
  return core::runtime().tracks.find_or_add(name, kind);
}

void set_thread_name(std::string_view name) {
  core::Runtime& rt = core::runtime();
  if (core::ThreadBuffer* b = rt.threads.current()) rt.tracks.rename(b->track, name);
}

void set_meta(std::string_view key, std::string_view value) {
  core::runtime().meta.set(key, value);
}

std::uint64_t next_correlation_id() noexcept {
  return core::g_next_correlation.fetch_add(1, std::memory_order_relaxed);
}

void step_begin(std::int64_t step) noexcept {
  core::enter_step_window(step);
  core::g_step.store(core::step_arg(step < 0 ? kNoStep : step), std::memory_order_relaxed);
  const std::uint32_t s = detail::state();
  core::sample_device_step(step, s != detail::kOff);  // after the step number is published
  core::tl_step_state = s;
  if (s != detail::kOff) core::tl_step_start = detail::ticks(s);
}

void step_end(std::int64_t step) noexcept {
  core::end_device_step(step);
  const std::uint32_t s = detail::state();
  const std::uint32_t begun = core::tl_step_state;
  core::tl_step_state = detail::kOff;
  core::g_step.store(core::kNoStep32, std::memory_order_relaxed);
  if (s == detail::kOff || s != begun) return;
  const std::uint64_t end = detail::ticks(s);
  if (core::SpscRing* r = core::ring())
    r->push(core::Event{core::tl_step_start, end, 0, core::step_arg(step < 0 ? kNoStep : step), 0,
                        core::EventKind::step, 0});
  core::leave_step_window(step);
}

std::int64_t current_step() noexcept {
  const std::uint32_t s = core::g_step.load(std::memory_order_relaxed);
  return s == core::kNoStep32 ? kNoStep : static_cast<std::int64_t>(s);
}

}  // namespace ts::trace
