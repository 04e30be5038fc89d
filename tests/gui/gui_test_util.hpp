// Traces for the GUI tests: the sample traces in traces/ and synthetic ones written on demand
// into a temporary directory (ts_trace_synth).
#pragma once

#include <QDir>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "gui/models/packed_steps.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/writer.hpp"
#include "profiler/synth/synth.hpp"

namespace ts::gui::test {

// traces/*.db of the source tree.
inline QStringList sample_traces() {
  QStringList out;
  const QDir dir(QStringLiteral(TS_SOURCE_DIR "/traces"));
  for (const QString& f : dir.entryList({QStringLiteral("*.db")}, QDir::Files, QDir::Name))
    out << dir.filePath(f);
  return out;
}

// Packed per-step figures (a session's step_figures()), unpacked.
inline std::vector<analysis::StepSummary> unpacked(const PackedSteps& steps) {
  std::vector<analysis::StepSummary> out;
  steps.for_each([&](std::size_t, const analysis::StepSummary& s) { out.push_back(s); });
  return out;
}

// A synthetic trace of about `events` events in `dir`.
inline QString synth_trace(const QTemporaryDir& dir, std::int64_t events, double input_bound = 0.3,
                           const QString& name = QStringLiteral("synth.db")) {
  const QString path = dir.filePath(name);
  synth::SynthOptions o;
  o.target_events = events;
  o.input_bound_fraction = input_bound;
  synth::write_synthetic_trace(path.toStdString(), o);
  return path;
}

// The labels and tracks of a small hand-written trace: label 1 "step" (a step), label 2 `kernel`
// (a kernel); track 1 `thread` (a thread), track 2 `device` (a device queue).
inline void put_step_and_kernel(store::Writer& w, const char* kernel, const char* thread,
                                const char* device) {
  w.put_string(1, "step");
  w.put_string(2, kernel);
  w.put_label(1, 1, trace::Category::step);
  w.put_label(2, 2, trace::Category::kernel);
  w.put_track(1, thread, trace::TrackKind::thread);
  w.put_track(2, device, trace::TrackKind::device_queue);
}

// A hand-written trace of one step per entry of `input_pct`, 1 ms each: the trainer waits for
// input for that share of the step and computes on the host for the rest (but the first µs).
// epoch_first_steps (meta fit.epoch_first_steps, "0,6") with cache true: a run whose first epoch
// fills the input cache, which the analysis leaves out as warm-up.
inline void write_input_share_trace(const QString& path, const std::vector<double>& input_pct,
                                    const char* epoch_first_steps = nullptr, bool cache = false) {
  store::Writer w(path.toStdString());
  w.put_string(1, "step");
  w.put_string(2, "wait for batch");
  w.put_string(3, "forward");
  w.put_label(1, 1, trace::Category::step);
  w.put_label(2, 2, trace::Category::input_wait);
  w.put_label(3, 3, trace::Category::host_compute);
  w.put_track(1, "main", trace::TrackKind::thread);
  if (epoch_first_steps != nullptr) w.put_meta("fit.epoch_first_steps", epoch_first_steps);
  w.put_meta("pipeline.cache", cache ? "memory" : "none");
  constexpr std::int64_t kStepNs = 1'000'000, kOrigin = 1'000'000'000;
  std::vector<store::EventRow> rows;
  for (std::size_t i = 0; i < input_pct.size(); ++i) {
    const auto step = static_cast<std::int64_t>(i);
    const std::int64_t t = kOrigin + step * kStepNs;
    const auto wait = static_cast<std::int64_t>(input_pct[i] / 100 * kStepNs);
    // The wait starts 1 µs into the step (zones of a track never share a start).
    rows.push_back({t, kStepNs, 1, 1, step, store::kNull});
    if (wait > 0) rows.push_back({t + 1000, wait, 1, 2, step, store::kNull});
    rows.push_back({t + 1000 + wait, kStepNs - 1000 - wait, 1, 3, step, store::kNull});
  }
  w.append(std::span<const store::EventRow>(rows));
  w.finish();
}

// A job of `ranks` ranks (a process each, rank r numbered r), `steps` steps of 1 ms on each
// rank's trainer thread, but rank `slow` whose steps take 2 ms; every rank starts together.
inline void write_ranks_trace(const QString& path, int ranks, int steps, int slow) {
  store::Writer w(path.toStdString());
  w.put_string(1, "step");
  w.put_string(2, "forward");
  w.put_label(1, 1, trace::Category::step);
  w.put_label(2, 2, trace::Category::host_compute);
  std::vector<store::EventRow> rows;
  for (int r = 0; r < ranks; ++r) {
    const auto process = static_cast<std::uint32_t>(r + 1);
    w.put_process(process, "rank " + std::to_string(r), r);
    w.put_track(process, "main", trace::TrackKind::thread, store::kNull, process);
    const std::int64_t step_ns = r == slow ? 2'000'000 : 1'000'000;
    for (int s = 0; s < steps; ++s) {
      const std::int64_t t = 1'000'000'000 + s * step_ns;
      rows.push_back({t, step_ns, process, 1, s, store::kNull});
      rows.push_back({t + 1000, step_ns - 2000, process, 2, s, store::kNull});
    }
  }
  std::sort(rows.begin(), rows.end(), [](const store::EventRow& a, const store::EventRow& b) {
    return a.start_ns < b.start_ns;
  });
  w.append(std::span<const store::EventRow>(rows));
  w.finish();
}

}  // namespace ts::gui::test
