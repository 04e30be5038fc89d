// The timeline: one lane per track (steps, trainer, input workers, device queues, device idle,
// counters), nested zones by depth, a time ruler with the epochs. Lanes come in groups (per
// rank, per device: lane_layout.hpp) that fold and pin to the top (a click on a group header
// folds it, on its pin pins it; also its context menu). Wheel zooms around the cursor, dragging
// pans, W/S zoom and A/D pan (as in Perfetto and Tracy), Home shows everything. A click selects an
// event, a step or an idle gap; a click on a merged block zooms into it; Shift+drag selects a
// time range over the lanes it crosses (summed up by name in the details panel). N and Shift+N
// (or an event's context menu) ask for the next and previous instance of the selected event's
// name (instanceRequested: the page steps to it). Each frame is
// built as a draw list (pass 1, from the trace summary when zoomed out, from a loaded window of
// exact events when zoomed in) and then painted (pass 2). A new trace opens on a few steps around
// its first input-bound step (TraceSession::initial_range), whose window is asked for at once, so
// the first complete frame does not wait for the summary of the whole trace.
#pragma once

#include <QPointer>
#include <QScrollBar>
#include <QWidget>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>

#include "gui/models/time_mapping.hpp"
#include "gui/models/timeline/draw_list.hpp"
#include "gui/models/timeline/draw_list_painter.hpp"
#include "gui/models/timeline/label_cache.hpp"
#include "gui/models/timeline/lane_layout.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

class TimelineView : public QWidget {
  Q_OBJECT

 public:
  explicit TimelineView(QWidget* parent = nullptr);

  // The session to show (not owned; null clears). Opens on session->initial_range(), or keeps
  // the visible window when keep_view is set and the new session is the same file reloaded
  // (live mode).
  void set_session(TraceSession* session, bool keep_view = false);
  TraceSession* session() const { return session_; }

  const TimeMapping& mapping() const { return mapping_; }
  void show_range(std::int64_t t0, std::int64_t t1);
  void show_all();
  // Shows step number `step` with a little context either side and selects it.
  bool show_step(std::int64_t step);
  void zoom(double factor);            // around the cursor when over the lanes, else the centre
  void pan_fraction(double fraction);  // of the visible width; positive shows later time

  // The lane names' column: as wide as the user dragged its edge (between kMinNamesWidth and
  // half the view); a lane's full name shows in a tooltip over it.
  double names_width() const { return names_width_; }
  void set_names_width(double width);

  const Selection& selection() const { return selection_; }
  // The selected event's correlated partner (kind none: none), drawn with a flow line.
  const Selection& link() const { return link_; }
  // Selects the time range [t0, t1) over the lanes between content heights y0 and y1 (what a
  // Shift+drag does; every lane when they span no track lane).
  void select_range(std::int64_t t0, std::int64_t t1, double y0, double y1);
  void select(const Selection& s);
  // Selects an event and scrolls it into view, keeping the zoom when it fits.
  void reveal(const Selection& s);

  // Pass 1 for the current view, as paintEvent builds it (tests, benchmarks).
  DrawList build_frame();
  // The draw list of the last paint (its used_window: every lane drawn from exact events).
  const DrawList& last_frame() const { return last_; }
  const LaneLayout& layout() const { return layout_; }
  // Where time `ns` at content height `content_y` of the lanes is drawn, in widget coordinates.
  QPointF widget_point(std::int64_t ns, double content_y) const;
  // Folds or unfolds the lanes of a group (LaneLayout::process_group, device_group) under its
  // header; a click on the header in the lane names does the same.
  void toggle_group(const QString& key);
  // Pins a group's lanes in a band at the top that does not scroll, or unpins them; a click on
  // the header's pin does the same.
  void toggle_pin(const QString& key);
  const LaneGroupState& groups() const { return groups_; }
  // Lays out only the ranks `text` names ("0-3, 7"; "" every rank: parse_rank_filter()).
  // False, and nothing changed, when it names none.
  bool set_rank_filter(const QString& text);
  // Shows [t0, t1) of one process (rank): its lane group unfolded, shown and scrolled to (a
  // cell of the Ranks tab's heat map).
  void show_process_range(std::int64_t process, std::int64_t t0, std::int64_t t1);
  // Scrolls the lanes below the pinned band down by `y` pixels (clamped to what there is).
  void scroll_to(int y);
  int scroll_y() const;
  // The content y (lane_layout.hpp) drawn at widget y `y`.
  double content_y_at(double y) const;
  double last_build_ms() const { return build_ms_; }
  double last_paint_ms() const { return paint_ms_; }
  // What the step lane shows: the whole trace's step row, or, for a trace whose whole row gives
  // a zone several steps (StepRow::per_zone), the exact steps around a view spanning few enough.
  const StepRow& step_row() const { return *shown_steps_; }
  // What the idle lane shows: the session's gap row, or the exact gaps loaded around the view
  // (TraceSession::gap_windows).
  const GapRow& gap_row() const { return *shown_gaps_; }

 signals:
  void selectionChanged(const ts::gui::Selection& selection);
  void viewChanged();
  // The next (forward) or previous instance of the selected event's name is wanted.
  void instanceRequested(bool forward);

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void contextMenuEvent(QContextMenuEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void report_ready();
  TimelineGeometry geometry() const;
  void sync_extent();
  void request_window();
  void update_scrollbar();
  const DrawBox* box_at(const QPointF& pos) const;
  void click(const QPointF& pos);
  void changed();
  bool on_names_edge(const QPointF& pos) const;

  QPointer<TraceSession> session_;
  TimeMapping mapping_;
  LaneLayout layout_;
  LaneGroupState groups_;
  std::vector<std::int64_t> epochs_;  // the step number each epoch starts at
  bool ranging_ = false;              // this drag selects a range (Shift was held when it started)
  Selection link_;                    // the selected event's correlated partner
  Selection range_selection(std::int64_t t0, std::int64_t t1, double y0, double y1) const;
  LabelCache labels_;
  std::unordered_map<std::uint32_t, double> capacities_;  // memory counters' device memory
  StepRow no_steps_;                                      // without a session
  const StepRow* steps_ = &no_steps_;                     // the whole trace's: the session's
  StepRow window_steps_;  // per_zone > 1: the exact steps of [window_steps_from_, _to_)
  std::int64_t window_steps_from_ = 0, window_steps_to_ = 0;
  const StepRow* shown_steps_ = steps_;  // the last frame's
  void request_steps();
  std::shared_ptr<const GapRow> gaps_ = std::make_shared<const GapRow>();  // the session's
  std::shared_ptr<const GapRow> shown_gaps_ = gaps_;                       // the last frame's
  bool has_gaps_ = false;
  void request_gaps();
  Selection selection_;
  DrawList last_;
  QScrollBar* vbar_;
  double build_ms_ = 0, paint_ms_ = 0;
  std::optional<QPointF> press_, last_drag_;
  bool dragging_ = false;
  bool resizing_names_ = false;  // this drag moves the names column's edge
  double names_width_ = TimelineGeometry::kNamesWidth;
};

}  // namespace ts::gui
