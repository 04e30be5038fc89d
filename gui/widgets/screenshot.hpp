// `trainscope-gui FILE --screenshot OUT.png [--view ...]`: opens the trace in a window that is
// never shown on a screen, waits for the analysis and the timeline's data, renders one view into
// a PNG and returns. For documentation and tests: the picture is what a person would see.
#pragma once

#include <QSize>
#include <QString>
#include <QStringList>
#include <cstdint>
#include <optional>
#include <utility>

#include "gui/models/trace_types.hpp"
#include "gui/widgets/main_window.hpp"

namespace ts::gui {

struct ScreenshotOptions {
  QString trace;
  QString output;
  QString view = QStringLiteral("overview");  // overview|timeline|kernels|pipeline|steps|compare
  QSize size{1600, 1000};
  // Timeline: the steps to show (first, last); by default where the timeline opens for a user
  // (TraceSession::initial_range: a few steps around the first input-bound one past the
  // warm-up, else from the first step the figures cover).
  std::optional<std::pair<std::int64_t, std::int64_t>> steps;
  // Timeline: the time window to show instead, in ms from the trace's start; window_all: the
  // whole trace (drawn from the summary's level of detail).
  std::optional<std::pair<double, double>> window_ms;
  bool window_all = false;
  // Timeline: the instances of this kernel, the first one from the view's start selected.
  QString kernel;
  QStringList pin, fold;  // timeline: the lane groups to pin and to fold, by (part of) their name
  int scroll = 0;         // timeline: how far the lanes are scrolled down, in pixels
  QString compare_with;   // compare view: the second trace
  AnalysisOptions analysis;  // which steps the analysis covers
  bool analyse = true;       // false: the events only (--no-analysis)
  ImportOptions import;      // how another tool's trace is imported
};

// The views --view accepts, and the window's view of one of those names (overview otherwise).
bool is_screenshot_view(const QString& view);
MainWindow::View view_from_name(const QString& view);

// The time range a timeline screenshot of `session` shows for `options` (window_ms, steps, or
// where the timeline opens); nullopt: the whole trace.
std::optional<std::pair<std::int64_t, std::int64_t>> screenshot_time_range(
    const TraceSession& session, const ScreenshotOptions& options);

// Renders and writes the PNG. Returns an empty string, or one sentence saying what failed.
QString take_screenshot(const ScreenshotOptions& options);

}  // namespace ts::gui
