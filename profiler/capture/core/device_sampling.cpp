#include "profiler/capture/core/device_sampling.hpp"

#include <atomic>
#include <charconv>
#include <cmath>
#include <string>
#include <string_view>

#include "trainscope/meta_keys.hpp"
#include "trainscope/trace.hpp"

namespace ts::trace::detail {
constinit std::atomic<bool> g_device_step_sampled{true};
}  // namespace ts::trace::detail

namespace ts::trace::core {

constexpr std::uint32_t kMaxEvery = 1u << 20;

namespace {

// The automatic choice's progress: fixed K (no choice to make), or which recorded step is next.
enum Phase : int { kFixed, kAutoWarmup, kAutoMeasure, kAutoMeasuring };

constinit std::atomic<int> g_phase{kFixed};
constinit std::atomic<std::uint32_t> g_every{1};
constinit std::atomic<double> g_target_pct{1.0};
constinit std::atomic<double> g_cost_ns{0.0};
constinit std::atomic<std::int64_t> g_measured_step{-1};
constinit std::atomic<std::int64_t> g_measure_start_ns{0}, g_measure_end_ns{0};
constinit std::atomic<std::uint64_t> g_measured_commands{0};

void write_every(std::uint32_t every) noexcept {
  try {
    set_meta(meta_key::kCaptureDeviceEventEvery, std::to_string(every));
  } catch (...) {
    // The meta line is lost (no memory); the sampling itself holds.
  }
}

// The third recorded step begins: choose K from the measured step.
void choose() noexcept {
  const std::int64_t start = g_measure_start_ns.load(std::memory_order_relaxed);
  const std::int64_t end = g_measure_end_ns.load(std::memory_order_relaxed);
  const std::uint32_t every = choose_device_event_every(
      static_cast<double>(g_measured_commands.load(std::memory_order_relaxed)),
      g_cost_ns.load(std::memory_order_relaxed), static_cast<double>(end - start),
      g_target_pct.load(std::memory_order_relaxed));
  g_every.store(every, std::memory_order_relaxed);
  g_phase.store(kFixed, std::memory_order_relaxed);
  write_every(every);
}

}  // namespace

std::uint32_t choose_device_event_every(double commands, double cost_ns, double step_ns,
                                        double target_pct) noexcept {
  if (!(commands > 0) || !(cost_ns > 0) || !(step_ns > 0) || !(target_pct > 0)) return 1;
  const double k = std::ceil(commands * cost_ns / (target_pct / 100.0 * step_ns) - 1e-9);
  if (!(k < kMaxEvery)) return kMaxEvery;
  return k < 1 ? 1 : static_cast<std::uint32_t>(k);
}

void configure_device_sampling(std::uint32_t every, double target_pct) noexcept {
  const bool automatic = every == SessionOptions::kDeviceEventEveryAuto;
  g_every.store(automatic ? 1 : every, std::memory_order_relaxed);
  g_target_pct.store(target_pct, std::memory_order_relaxed);
  g_cost_ns.store(0, std::memory_order_relaxed);
  g_measured_step.store(-1, std::memory_order_relaxed);
  g_measured_commands.store(0, std::memory_order_relaxed);
  g_measure_start_ns.store(0, std::memory_order_relaxed);
  g_measure_end_ns.store(0, std::memory_order_relaxed);
  g_phase.store(automatic ? kAutoWarmup : kFixed, std::memory_order_relaxed);
  detail::g_device_step_sampled.store(true, std::memory_order_relaxed);
}

void reset_device_sampling() noexcept {
  g_phase.store(kFixed, std::memory_order_relaxed);
  g_every.store(1, std::memory_order_relaxed);
  detail::g_device_step_sampled.store(true, std::memory_order_relaxed);
}

void sample_device_step(std::int64_t step, bool recording) noexcept {
  const int phase = g_phase.load(std::memory_order_relaxed);
  if (phase == kFixed && g_every.load(std::memory_order_relaxed) == 1) return;  // every step
  if (phase != kFixed && recording) {
    if (phase == kAutoWarmup) {
      g_phase.store(kAutoMeasure, std::memory_order_relaxed);
    } else if (phase == kAutoMeasure) {
      g_measured_commands.store(0, std::memory_order_relaxed);
      g_measured_step.store(step, std::memory_order_relaxed);
      g_measure_start_ns.store(now_ns(), std::memory_order_relaxed);
      g_phase.store(kAutoMeasuring, std::memory_order_relaxed);
    } else {
      choose();
    }
  }
  const std::uint32_t every = g_every.load(std::memory_order_relaxed);
  const bool sampled = g_phase.load(std::memory_order_relaxed) != kFixed || step < 0 ||
                       step % static_cast<std::int64_t>(every) == 0;
  detail::g_device_step_sampled.store(sampled, std::memory_order_relaxed);
}

void end_device_step(std::int64_t step) noexcept {
  if (g_phase.load(std::memory_order_relaxed) != kAutoMeasuring ||
      g_measured_step.load(std::memory_order_relaxed) != step ||
      g_measure_end_ns.load(std::memory_order_relaxed) != 0)
    return;
  g_measure_end_ns.store(now_ns(), std::memory_order_relaxed);
}

void note_device_event(std::uint32_t step) noexcept {
  if (g_phase.load(std::memory_order_relaxed) != kAutoMeasuring ||
      g_measured_step.load(std::memory_order_relaxed) != static_cast<std::int64_t>(step))
    return;
  g_measured_commands.fetch_add(1, std::memory_order_relaxed);
}

}  // namespace ts::trace::core

namespace ts::trace {

void set_device_event_cost(double ns_per_command) noexcept {
  if (!(ns_per_command >= 0)) return;
  core::g_cost_ns.store(ns_per_command, std::memory_order_relaxed);
  try {
    set_meta(meta_key::kCaptureDeviceEventCostNs, std::to_string(std::llround(ns_per_command)));
  } catch (...) {
  }
}

}  // namespace ts::trace

namespace ts::trace {

bool parse_device_event_choice(std::string_view text, SessionOptions& options) noexcept {
  constexpr std::string_view kEvery = "every:";
  std::uint32_t every = 1;
  bool on = true;
  if (text == "off") {
    on = false;
  } else if (text == "auto") {
    every = SessionOptions::kDeviceEventEveryAuto;
  } else if (text.starts_with(kEvery)) {
    const char* first = text.data() + kEvery.size();
    const char* last = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(first, last, every);
    if (first == last || ec != std::errc() || ptr != last || every < 1 || every > core::kMaxEvery)
      return false;
  } else if (text != "on") {
    return false;
  }
  options.device_events = on;
  options.device_event_every = every;
  return true;
}

}  // namespace ts::trace
