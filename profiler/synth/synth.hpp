// Synthetic training traces of any size, for benchmarks (analysis, the viewer) and tests. The
// timeline looks like a traced `trainscope train` run on an accelerator:
//
//   trainer thread   step ⊃ input_wait, batch, launch × (kernels + 1), optimizer ⊃ launch,
//                    sync, host_compute ("loss")
//   input workers    per batch, `chunks` × read ("load samples") ⊃ decode, map
//   compute queue    the step's kernels (a handful of names, forward, backward, adam), in order,
//                    each starting after its launch and after the previous kernel
//   copy queue       one h2d (batch × 784 floats, with bytes) before the kernels, one d2h after
//   counter          "prefetch buffer fill": batches ready and not yet taken (<= prefetch)
//
// Timestamps are consistent: every event of a step lies inside it (device work included), events
// on a queue never overlap, zones on a thread nest, no two events of a track share a start, and
// a worker finishes a batch exactly when the trainer stops waiting for it. A step is
// input-bound by construction with probability `input_bound_fraction`: its batch comes from a
// worker that was busy (slow decode) and the trainer waits 30–100 % of the step's compute time
// (input >= 19 % of the step); other steps wait 0.5–1.5 µs (input, exposed h2d included, < 3 %
// of the step). Deterministic for a given seed on every platform (own RNG).
#pragma once

#include <cstdint>
#include <string>

namespace ts::synth {

struct SynthOptions {
  std::int64_t target_events = 100'000;  // rounded up to whole steps
  std::uint64_t seed = 1;
  double input_bound_fraction = 0.3;
  int workers = 2;             // input worker threads (>= 1)
  int prefetch = 2;            // batches ready ahead at most (a worker waits for a free slot)
  int chunks_per_batch = 4;    // read zones per batch (each holds a decode and a map)
  int batch = 32;              // engine.batch; also sizes the h2d copy
  double compute_scale = 1.0;  // multiplies every kernel duration
  std::int64_t start_ns = 1'000'000'000;
};

// Track ids of a synthetic trace; input workers are kFirstWorkerTrack, +1, ...
inline constexpr std::uint32_t kTrainerTrack = 1;
inline constexpr std::uint32_t kComputeTrack = 2;
inline constexpr std::uint32_t kCopyTrack = 3;
inline constexpr std::uint32_t kFillTrack = 4;
inline constexpr std::uint32_t kFirstWorkerTrack = 5;
inline constexpr int kKernelsPerStep = 12;

struct SynthResult {
  std::int64_t events = 0;  // rows written to the event table
  std::int64_t steps = 0;
  std::int64_t input_bound_steps = 0;  // steps made to wait for input
  std::int64_t start_ns = 0, end_ns = 0;
};

// Events per step for these options (the trace holds steps × this).
std::int64_t events_per_step(const SynthOptions& options);

// Writes the trace to `path` (replacing an earlier trace there) through store::Writer. Throws
// store::Error when the file cannot be written, std::invalid_argument for bad options.
SynthResult write_synthetic_trace(const std::string& path, const SynthOptions& options = {});

}  // namespace ts::synth
