// Opening a trace for the viewer, the one call a window makes (as Hotspot's widgets call one
// model function): another tool's trace is imported first (or its cached import reused), a
// capture still running gets the reader its live reloads go on from (LiveFollower), and the
// session is opened over it. The window then only shows what it gets, or the error.
#pragma once

#include <QString>
#include <cstdint>
#include <memory>
#include <utility>

#include "gui/models/live_follower.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

struct TraceOpenOptions {
  AnalysisOptions analysis;  // which steps the analysis covers (--steps, --skip-warmup)
  bool analyse = true;       // false: the events only, no analysis (--no-analysis)
  ImportOptions import;      // how another tool's trace is imported (--step-marker, --run)
};

struct OpenedTrace {
  std::unique_ptr<TraceSession> session;
  // Set while the trace is a capture still running: what its live reloads read
  // (reload_capture()). Null for a finished trace and for an import.
  std::unique_ptr<LiveFollower> follower;
  // Another tool's trace, imported now into session->path() (not reused from an earlier import).
  bool imported = false;
  bool live() const { return follower != nullptr; }
};

// Opens what the user named: a trainscope trace, or another tool's trace imported into one
// (the session's source() then names what was opened). Throws std::exception saying what is
// wrong (not a trace, unreadable, an import that failed).
OpenedTrace open_trace(const QString& path, const TraceOpenOptions& options);

// The next reload of the capture at `path`, still running: `follower` (made here when null)
// takes in what the capture committed since the last reload, and the session reads its
// snapshot, going on from the last reload's analysis and summary. Throws std::exception when
// the file cannot be read now (caught mid-write: the caller tries again later).
std::unique_ptr<TraceSession> reload_capture(std::unique_ptr<LiveFollower>& follower,
                                             const QString& path, const TraceOpenOptions& options);

// Whether the capture writing the session's trace is still running (trace_meta.hpp).
bool still_capturing(const TraceSession& session);

// What a --steps range says of the trace at `path` (imported as `import` says): `error` when the
// trace holds none of those steps (bad usage), `note` when it holds some of them (what is
// analysed); both empty when it holds all of them or the file does not open (the viewer's own
// error says so then).
struct StepRangeCheck {
  QString error;
  QString note;
};
StepRangeCheck check_step_range(const QString& path, std::pair<std::int64_t, std::int64_t> range,
                                const ImportOptions& import);

}  // namespace ts::gui
