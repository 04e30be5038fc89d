// Traces for the GUI tests: the sample traces in traces/ and synthetic ones written on demand
// into a temporary directory (ts_trace_synth).
#pragma once

#include <QDir>
#include <QString>
#include <QStringList>
#include <QTemporaryDir>

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

}  // namespace ts::gui::test
