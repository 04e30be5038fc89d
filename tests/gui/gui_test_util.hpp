// Traces for the GUI tests: the sample traces in traces/ and synthetic ones written on demand
// into a temporary directory (ts_trace_synth).
#pragma once

#include <QDir>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>
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

}  // namespace ts::gui::test
