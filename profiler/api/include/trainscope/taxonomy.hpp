// The event categories and track kinds of the trace model (traces/README.md). The numeric values
// are stored in trace files and listed in profiler/store/schema.sql: append, never renumber.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace ts::trace {

enum class Category : std::uint8_t {
  step,          // one training step, on the trainer thread
  input_wait,    // trainer blocked on the next batch
  input_read,    // reading raw samples (file, memory)
  input_decode,  // decoding samples (PNG/JPEG/IDX)
  input_map,     // per-sample transforms, augmentation
  input_batch,   // collating samples into a batch
  h2d,           // host-to-device copy (carries bytes)
  d2h,           // device-to-host copy (carries bytes)
  kernel,        // device compute (carries its name and work size)
  launch,        // host time spent enqueuing device work
  sync,          // host blocked on the device
  host_compute,  // host-side math (CPU backend kernels, loss, metrics)
  optimizer,     // parameter update
  other,
  collective,  // communication between ranks: allreduce, NCCL/RCCL kernels (carries bytes)
  // The trainer taking a batch that was already made: the input pipeline's lock, the hand-over,
  // waking its workers (and being descheduled while doing so). Not input wait: a batch was there.
  input_handoff,
};
inline constexpr int kCategoryCount = 16;
static_assert(static_cast<int>(Category::input_handoff) + 1 == kCategoryCount,
              "kCategoryCount must follow the last Category");

enum class TrackKind : std::uint8_t {
  thread,        // a host thread: trainer, input worker, writer
  device_queue,  // a device command queue (compute, copy)
  counter,       // a value time series (prefetch fill, bytes in flight, device memory)
};
inline constexpr int kTrackKindCount = 3;
static_assert(static_cast<int>(TrackKind::counter) + 1 == kTrackKindCount,
              "kTrackKindCount must follow the last TrackKind");

constexpr std::string_view category_name(Category c) {
  constexpr std::string_view names[kCategoryCount] = {
      "step",      "input_wait", "input_read", "input_decode", "input_map", "input_batch",
      "h2d",       "d2h",        "kernel",     "launch",       "sync",      "host_compute",
      "optimizer", "other",      "collective", "input_handoff"};
  const auto i = static_cast<int>(c);
  return i < kCategoryCount ? names[i] : std::string_view("other");
}

constexpr std::optional<Category> category_from_name(std::string_view name) {
  for (int i = 0; i < kCategoryCount; ++i)
    if (category_name(static_cast<Category>(i)) == name) return static_cast<Category>(i);
  return std::nullopt;
}

constexpr std::string_view track_kind_name(TrackKind k) {
  switch (k) {
    case TrackKind::thread:
      return "thread";
    case TrackKind::device_queue:
      return "device_queue";
    case TrackKind::counter:
      return "counter";
  }
  return "thread";
}

}  // namespace ts::trace
