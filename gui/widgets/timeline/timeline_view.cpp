#include "gui/widgets/timeline/timeline_view.hpp"

#include <QContextMenuEvent>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QKeyEvent>
#include <QMenu>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>
#include <algorithm>
#include <cmath>

#include "gui/models/correlation.hpp"
#include "gui/models/format.hpp"
#include "gui/models/lod.hpp"
#include "gui/models/palette.hpp"
#include "gui/models/trace_meta.hpp"

namespace ts::gui {

namespace {

constexpr double kWheelStep = 1.25;  // zoom per wheel notch and per W/S press

// A lane's full name and what the lane is.
QString lane_tooltip(const Lane& lane) {
  switch (lane.kind) {
    case LaneKind::steps:
      return QObject::tr("%1: the training steps, red when input-bound").arg(lane.title);
    case LaneKind::group:
      return QObject::tr(
                 "%1 (click to fold or unfold its lanes; click the pin, or right-click, "
                 "to keep them at the top while scrolling)")
          .arg(lane.title);
    case LaneKind::device:
      return QObject::tr("%1 (device queue)").arg(lane.title);
    case LaneKind::idle:
      return QObject::tr("%1: the device's idle gaps inside steps, coloured by cause")
          .arg(lane.title);
    case LaneKind::counter:
      return QObject::tr("%1 (counter)").arg(lane.title);
    case LaneKind::thread:
      break;
  }
  return QObject::tr("%1 (thread)").arg(lane.title);
}
constexpr double kPanStep = 0.15;  // of the width, per A/D press
constexpr double kDragThreshold = 3;

// Events of the summary's rows overlapping [t0, t1]: what loading that window would cost.
std::uint64_t estimate_events(const SummaryData& d, std::int64_t t0, std::int64_t t1) {
  std::uint64_t n = 0;
  for (const TrackRows& t : d.tracks)
    for (const Row& r : t.rows) {
      const auto [first, last] = visible_zones(r, t0, t1);
      n += r.events(first, last);
    }
  return n;
}

}  // namespace

TimelineView::TimelineView(QWidget* parent)
    : QWidget(parent), vbar_(new QScrollBar(Qt::Vertical, this)) {
  setFocusPolicy(Qt::StrongFocus);
  setMouseTracking(true);
  setMinimumSize(400, 200);
  setAttribute(Qt::WA_OpaquePaintEvent);
  vbar_->setRange(0, 0);
  connect(vbar_, &QScrollBar::valueChanged, this, [this] { update(); });
}

void TimelineView::set_session(TraceSession* session, bool keep_view) {
  if (session_) disconnect(session_, nullptr, this, nullptr);
  session_ = session;
  labels_.reset(session ? &session->reader() : nullptr);
  capacities_ =
      session ? memory_capacities(session->reader()) : std::unordered_map<std::uint32_t, double>{};
  steps_ = session ? &session->step_row() : &no_steps_;
  window_steps_ = {};
  window_steps_from_ = window_steps_to_ = 0;
  shown_steps_ = steps_;
  gaps_ = std::make_shared<const GapRow>();
  shown_gaps_ = gaps_;
  has_gaps_ = false;
  last_ = {};
  if (!keep_view) {
    selection_ = {};
    // Another trace: other processes and devices; a job of many ranks opens folded.
    groups_ = session ? initial_lane_groups(session->reader().processes()) : LaneGroupState{};
  }
  if (!session) {
    epochs_.clear();
    update();
    return;
  }
  epochs_ = epoch_first_steps(session->reader());
  if (session->report()) report_ready();
  const auto [begin, end] = session->extent();
  if (keep_view) {
    // Live: a view that showed the end of the trace follows it as new steps arrive.
    const std::int64_t old_end = mapping_.extent_end();
    const bool following = mapping_.view_end() >= old_end;
    mapping_.set_extent(begin, end);
    if (following && end > old_end) {
      const std::int64_t span = mapping_.view_end() - mapping_.view_begin();
      mapping_.show(end - span, end);
    }
  } else {
    mapping_ = TimeMapping(begin, end, std::max(1.0, geometry().area.width()));
    // A few steps around the first input-bound one, read exactly: complete long before the
    // summary of the whole trace is (Home shows everything).
    if (const auto r = session->initial_range()) mapping_.show(r->first, r->second);
  }
  connect(session, &TraceSession::summaryProgress, this, [this] { update(); });
  connect(session, &TraceSession::summaryFinished, this, [this] { update(); });
  connect(session, &TraceSession::reportReady, this, &TimelineView::report_ready);
  connect(&session->windows(), &WindowCache::loaded, this, [this] { update(); });
  if (GapWindows* gaps = session->gap_windows())
    connect(gaps, &GapWindows::loaded, this, [this] { update(); });
  request_window();  // now, not at the first paint: the page may not be shown yet
  changed();
}

void TimelineView::report_ready() {
  if (!session_ || !session_->report()) return;
  const Report& r = *session_->report();
  mark_step_row(window_steps_, session_->step_figures().get());
  gaps_ = session_->gap_row();
  shown_gaps_ = gaps_;
  has_gaps_ = r.device.has_device;
  update();
}

// A trace whose whole step row gives a zone several steps: the exact steps around the view (as
// far on each side as the view is wide), once it spans few enough for them to show; built here,
// from the session's steps and the figures of those steps alone.
void TimelineView::request_steps() {
  shown_steps_ = steps_;
  if (!session_ || steps_->per_zone == 1) return;
  const std::int64_t v0 = std::max(mapping_.view_begin(), mapping_.extent_begin());
  const std::int64_t v1 = std::min(mapping_.view_end(), mapping_.extent_end() + 1);
  if (v1 <= v0 || session_->steps_starting_in(v0, v1) > exact_row_steps() / 3) return;
  if (window_steps_from_ > v0 || window_steps_to_ < v1) {
    const std::int64_t span = v1 - v0;
    window_steps_from_ = std::max(mapping_.extent_begin(), v0 - span);
    window_steps_to_ = std::min(mapping_.extent_end() + 1, v1 + span);
    window_steps_ = session_->exact_step_row(window_steps_from_, window_steps_to_, epochs_);
  }
  shown_steps_ = &window_steps_;
}

// A trace too long to hold every idle gap: the exact gaps of the steps around the view (as far
// on each side as the view is wide), once the view spans few enough steps; the session's
// per-step row until then.
void TimelineView::request_gaps() {
  shown_gaps_ = gaps_;
  GapWindows* windows = session_->gap_windows();
  if (!windows || !has_gaps_) return;
  const std::int64_t v0 = mapping_.view_begin(), v1 = mapping_.view_end();
  if (session_->steps_starting_in(v0, v1) > GapWindows::kMaxSteps / 3) return;
  if (auto exact = windows->find(v0, v1)) {
    shown_gaps_ = std::move(exact);
    return;
  }
  const std::int64_t span = v1 - v0;
  windows->request(std::max(mapping_.extent_begin(), v0 - span),
                   std::min(mapping_.extent_end() + 1, v1 + span));
}

TimelineGeometry TimelineView::geometry() const {
  const double bar = vbar_->isVisible() ? vbar_->width() : 0;
  return TimelineGeometry::of(QRectF(0, 0, width() - bar, height()), vbar_->value(), names_width_);
}

void TimelineView::set_names_width(double w) {
  const double bar = vbar_->isVisible() ? vbar_->width() : 0;
  const double most = std::max(TimelineGeometry::kMinNamesWidth, (width() - bar) / 2);
  names_width_ = std::clamp(w, TimelineGeometry::kMinNamesWidth, most);
  mapping_.set_width(std::max(1.0, geometry().area.width()));
  changed();
}

bool TimelineView::on_names_edge(const QPointF& pos) const {
  return pos.y() >= TimelineGeometry::kRulerHeight && std::fabs(pos.x() - names_width_) <= 4;
}

QPointF TimelineView::widget_point(std::int64_t ns, double content_y) const {
  const TimelineGeometry g = geometry();
  const double y = content_y < layout_.pinned_height() ? content_y : content_y - g.scroll_y;
  return {g.area.left() + mapping_.x_of(ns), g.area.top() + y};
}

void TimelineView::scroll_to(int y) {
  update_scrollbar();
  vbar_->setValue(y);
}

int TimelineView::scroll_y() const {
  return vbar_->value();
}

double TimelineView::content_y_at(double y) const {
  const TimelineGeometry g = geometry();
  return layout_.content_y(y - g.area.top(), g.scroll_y);
}

void TimelineView::sync_extent() {
  if (!session_) return;
  const auto [begin, end] = session_->extent();
  if (begin != mapping_.extent_begin() || end != mapping_.extent_end())
    mapping_.set_extent(begin, end);
  const double w = std::max(1.0, geometry().area.width());
  if (w != mapping_.width()) mapping_.set_width(w);
}

void TimelineView::show_range(std::int64_t t0, std::int64_t t1) {
  sync_extent();
  mapping_.show(t0, t1);
  changed();
}

void TimelineView::show_all() {
  sync_extent();
  mapping_.show_all();
  changed();
}

bool TimelineView::show_step(std::int64_t step) {
  if (!session_) return false;
  // The session's steps: the whole row's zones may each stand for several.
  std::optional<Step> found;
  try {
    found = session_->steps().numbered(step);
  } catch (const std::exception&) {
  }
  if (found) {
    const Step& s = *found;
    const std::int64_t margin = std::max<std::int64_t>(1, s.dur_ns / 6);
    show_range(s.start_ns - margin, s.start_ns + s.dur_ns + margin);
    request_steps();  // the row the next frame shows, whose zone the selection names
    const StepRow& row = *shown_steps_;
    for (std::size_t i = 0; i < row.numbers.size(); ++i) {
      if (row.numbers[i] != step || row.per_zone != 1) continue;
      const Zone& z = row.row.zones[i];
      select({Selection::Kind::step, 0, 0, z.start_ns, z.end_ns, 0, i, {}});
      return true;
    }
  }
  return false;
}

void TimelineView::zoom(double factor) {
  const TimelineGeometry g = geometry();
  const QPointF cursor = mapFromGlobal(QCursor::pos());
  const double x = g.area.contains(cursor) ? cursor.x() - g.area.left() : mapping_.width() / 2;
  mapping_.zoom_at(x, factor);
  changed();
}

void TimelineView::pan_fraction(double fraction) {
  mapping_.pan_px(-fraction * mapping_.width());
  changed();
}

void TimelineView::select(const Selection& s) {
  if (s == selection_) return;
  selection_ = s;
  link_ = {};
  if (s.kind == Selection::Kind::event && session_) {
    // The correlated partner, for the flow line: found once per selection, not per frame.
    if (const auto other = correlated_event_at(session_->reader(), s.track, s.start_ns))
      link_ = {Selection::Kind::event, other->track, -1, other->start_ns,
               other->end_ns(),        other->label, 0,  {}};
  }
  update();
  emit selectionChanged(selection_);
}

void TimelineView::reveal(const Selection& s) {
  const double span = mapping_.view_span_ns();
  const double dur = static_cast<double>(s.end_ns - s.start_ns);
  if (dur < 0.8 * span) {
    const double centre = static_cast<double>(s.start_ns) + dur / 2;
    mapping_.show(static_cast<std::int64_t>(centre - span / 2),
                  static_cast<std::int64_t>(centre + span / 2));
  } else {
    const auto m = static_cast<std::int64_t>(dur / 4) + 1;
    mapping_.show(s.start_ns - m, s.end_ns + m);
  }
  select(s);
  changed();
}

void TimelineView::changed() {
  update();
  emit viewChanged();
}

void TimelineView::request_window() {
  sync_extent();
  const std::int64_t v0 = mapping_.view_begin(), v1 = mapping_.view_end();
  WindowCache& windows = session_->windows();
  if (windows.find(v0, v1)) return;
  const double span = static_cast<double>(v1 - v0);
  const std::int64_t w0 = std::max(mapping_.extent_begin(), v0 - static_cast<std::int64_t>(span));
  const std::int64_t w1 = std::min(mapping_.extent_end() + 1, v1 + static_cast<std::int64_t>(span));
  const auto want = session_->summary().read(
      [&](const SummaryData& d) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
        if (!d.has_extent) {
          // The scan has not read the extent yet: the resolution it will have, from the steps'
          // extent, and no estimate of the window's size (the cache's cap still holds).
          const double resolution =
              std::max(1.0, static_cast<double>(mapping_.extent_end() - mapping_.extent_begin()) /
                                SummaryData::kBins);
          if (mapping_.ns_per_px() >= resolution) return std::nullopt;
          return std::pair{w0, w1};
        }
        // Zoomed out, the summary is as good as the events: it merged only what a pixel merges.
        if (mapping_.ns_per_px() >= d.resolution_ns) return std::nullopt;
        const auto limit = static_cast<std::uint64_t>(0.9 * WindowCache::kMaxEvents);
        if (estimate_events(d, w0, w1) <= limit) return std::pair{w0, w1};
        if (estimate_events(d, v0, v1) <= limit) return std::pair{v0, v1};
        return std::nullopt;
      });
  if (want) windows.request(want->first, want->second);
}

DrawList TimelineView::build_frame() {
  if (!session_) return {};
  sync_extent();
  request_window();
  request_steps();
  request_gaps();
  const TimelineGeometry g = geometry();
  const EventWindow* window = session_->windows().find(mapping_.view_begin(), mapping_.view_end());
  return session_->summary().read([&](const SummaryData& d) {
    layout_.build(
        session_->reader().tracks(), session_->reader().processes(), has_gaps_,
        [&](std::uint32_t track) {
          std::size_t rows = 1;
          if (const TrackRows* r = d.rows_of(track)) rows = std::max(rows, r->rows.size());
          if (window)
            if (const TrackRows* r = window->rows_of(track)) rows = std::max(rows, r->rows.size());
          return static_cast<int>(rows);
        },
        groups_);
    DrawContext ctx;
    ctx.mapping = &mapping_;
    ctx.layout = &layout_;
    ctx.area = g.area;
    ctx.scroll_y = g.scroll_y;
    ctx.summary = &d;
    ctx.window = window;
    ctx.steps = shown_steps_;
    ctx.gaps = has_gaps_ ? shown_gaps_.get() : nullptr;
    ctx.labels = &labels_;
    ctx.capacities = &capacities_;
    ctx.metrics = QFontMetricsF(font());
    ctx.selection = selection_;
    ctx.link = link_;
    return build_draw_list(ctx);
  });
}

void TimelineView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  if (!session_) {
    p.fillRect(rect(), palette().window());
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("Open a trace: File → Open, or drop a file here"));
    return;
  }
  QElapsedTimer timer;
  timer.start();
  last_ = build_frame();
  build_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  timer.restart();
  paint_draw_list(p, last_, layout_, geometry());
  if (vbar_->isVisible())  // the ruler's row above the scroll bar
    p.fillRect(QRectF(vbar_->x(), 0, width() - vbar_->x(), TimelineGeometry::kRulerHeight),
               QColor(0xec, 0xef, 0xf1));
  paint_ms_ = static_cast<double>(timer.nsecsElapsed()) / 1e6;
  update_scrollbar();
}

void TimelineView::update_scrollbar() {
  const double overflow = layout_.height() - geometry().area.height();
  const int max = std::max(0, static_cast<int>(std::ceil(overflow)));
  if (vbar_->maximum() != max) vbar_->setRange(0, max);
  vbar_->setPageStep(
      static_cast<int>(std::max(1.0, geometry().area.height() - layout_.pinned_height())));
  const bool show = max > 0;
  if (vbar_->isVisible() != show) {
    vbar_->setVisible(show);
    update();
  }
}

void TimelineView::resizeEvent(QResizeEvent*) {
  vbar_->setGeometry(width() - vbar_->sizeHint().width(),
                     static_cast<int>(TimelineGeometry::kRulerHeight), vbar_->sizeHint().width(),
                     height() - static_cast<int>(TimelineGeometry::kRulerHeight));
  mapping_.set_width(std::max(1.0, geometry().area.width()));
}

void TimelineView::wheelEvent(QWheelEvent* e) {
  const QPoint d = e->angleDelta();
  if (e->modifiers() & Qt::ShiftModifier) {
    vbar_->setValue(vbar_->value() - d.y() / 2);
  } else if (std::abs(d.x()) > std::abs(d.y())) {
    mapping_.pan_px(d.x() / 2.0);
    changed();
  } else if (d.y() != 0) {
    const double x = e->position().x() - geometry().area.left();
    mapping_.zoom_at(std::clamp(x, 0.0, mapping_.width()), std::pow(kWheelStep, d.y() / 120.0));
    changed();
  }
  e->accept();
}

void TimelineView::mousePressEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton) return;
  press_ = last_drag_ = e->position();
  dragging_ = false;
  resizing_names_ = on_names_edge(e->position());
  ranging_ = (e->modifiers() & Qt::ShiftModifier) && e->position().x() >= geometry().area.left();
}

void TimelineView::select_range(std::int64_t t0, std::int64_t t1, double y0, double y1) {
  select(range_selection(t0, t1, y0, y1));
}

Selection TimelineView::range_selection(std::int64_t t0, std::int64_t t1, double y0,
                                        double y1) const {
  Selection s;
  s.kind = Selection::Kind::range;
  s.start_ns = std::min(t0, t1);
  s.end_ns = std::max(t0, t1);
  const double top = std::min(y0, y1), bottom = std::max(y0, y1);
  for (const Lane& l : layout_.lanes())
    if ((l.kind == LaneKind::thread || l.kind == LaneKind::device || l.kind == LaneKind::counter) &&
        l.y + l.height > top && l.y < bottom)
      s.tracks.push_back(l.track);
  return s;
}

void TimelineView::mouseMoveEvent(QMouseEvent* e) {
  const QPointF pos = e->position();
  if (!press_ || !(e->buttons() & Qt::LeftButton)) {  // hovering: the names' edge can be dragged
    if (on_names_edge(pos))
      setCursor(Qt::SplitHCursor);
    else
      unsetCursor();
    return;
  }
  if (resizing_names_) {
    set_names_width(pos.x());
    return;
  }
  if (!dragging_ && (pos - *press_).manhattanLength() < kDragThreshold) return;
  dragging_ = true;
  if (ranging_) {  // Shift+drag: the range follows the mouse
    const TimelineGeometry g = geometry();
    const double x0 = press_->x() - g.area.left(), x1 = pos.x() - g.area.left();
    // While dragging only the overlay follows; the details are summed up on release.
    selection_ = range_selection(mapping_.ns_at(x0), mapping_.ns_at(x1), content_y_at(press_->y()),
                                 content_y_at(pos.y()));
    update();
    return;
  }
  setCursor(Qt::ClosedHandCursor);
  const QPointF delta = pos - *last_drag_;
  last_drag_ = pos;
  mapping_.pan_px(delta.x());
  vbar_->setValue(vbar_->value() - static_cast<int>(delta.y()));
  changed();
}

void TimelineView::mouseReleaseEvent(QMouseEvent* e) {
  if (e->button() != Qt::LeftButton || !press_) return;
  if (resizing_names_) {
    // the column keeps its new width
  } else if (!dragging_) {
    click(e->position());
  } else if (ranging_) {
    emit selectionChanged(selection_);
  }
  press_.reset();
  dragging_ = false;
  ranging_ = false;
  resizing_names_ = false;
  unsetCursor();
}

const DrawBox* TimelineView::box_at(const QPointF& pos) const {
  // Over the pinned band only its boxes count: the scrolled ones pass beneath it.
  const bool in_band = pos.y() < geometry().area.top() + layout_.pinned_height();
  for (auto it = last_.boxes.rbegin(); it != last_.boxes.rend(); ++it)
    if (it->hit.kind != Selection::Kind::none && it->pinned == in_band &&
        it->rect.adjusted(-1, 0, 1, 0).contains(pos))
      return &*it;
  return nullptr;
}

void TimelineView::toggle_group(const QString& key) {
  if (!groups_.collapsed.erase(key)) groups_.collapsed.insert(key);
  changed();
}

bool TimelineView::set_rank_filter(const QString& text) {
  const auto ranks = parse_rank_filter(text);
  if (!ranks) return false;
  groups_.hidden_processes = session_ ? processes_left_out(session_->reader().processes(), *ranks)
                                      : std::set<std::int64_t>{};
  changed();
  return true;
}

void TimelineView::show_process_range(std::int64_t process, std::int64_t t0, std::int64_t t1) {
  const QString key = LaneLayout::process_group(process);
  groups_.collapsed.erase(key);
  groups_.hidden_processes.erase(process);
  const std::int64_t margin = std::max<std::int64_t>(1, (t1 - t0) / 6);
  show_range(t0 - margin, t1 + margin);
  build_frame();  // lays the lanes out with the group unfolded
  if (const Lane* header = layout_.group_lane(key); header && !header->pinned)
    scroll_to(static_cast<int>(header->y - layout_.pinned_height()));
}

void TimelineView::toggle_pin(const QString& key) {
  if (!groups_.pinned.erase(key)) groups_.pinned.insert(key);
  changed();
}

void TimelineView::click(const QPointF& pos) {
  const TimelineGeometry g = geometry();
  if (pos.x() < g.names.right()) {
    const Lane* lane = layout_.lane_at(content_y_at(pos.y()));
    if (lane == nullptr || lane->kind != LaneKind::group) return;
    const double top = g.area.top() + layout_.view_y(*lane, lane->y, g.scroll_y);
    if (pin_button(g, top).adjusted(-2, -2, 2, 2).contains(pos))
      toggle_pin(lane->group);
    else
      toggle_group(lane->group);
    return;
  }
  const DrawBox* b = box_at(pos);
  if (!b) {
    select({});
    return;
  }
  if (b->style == DrawBox::Style::merged) {  // a merged run: zoom until it comes apart
    const std::int64_t margin = std::max<std::int64_t>(1, (b->hit.end_ns - b->hit.start_ns) / 10);
    show_range(b->hit.start_ns - margin, b->hit.end_ns + margin);
    return;
  }
  select(b->hit);
}

void TimelineView::keyPressEvent(QKeyEvent* e) {
  switch (e->key()) {
    case Qt::Key_W:
    case Qt::Key_Plus:
      zoom(kWheelStep);
      break;
    case Qt::Key_S:
    case Qt::Key_Minus:
      zoom(1 / kWheelStep);
      break;
    case Qt::Key_A:
    case Qt::Key_Left:
      pan_fraction(-kPanStep);
      break;
    case Qt::Key_D:
    case Qt::Key_Right:
      pan_fraction(kPanStep);
      break;
    case Qt::Key_Home:
    case Qt::Key_0:
      show_all();
      break;
    case Qt::Key_N:
      if (selection_.kind != Selection::Kind::event) return QWidget::keyPressEvent(e);
      emit instanceRequested(!(e->modifiers() & Qt::ShiftModifier));
      break;
    case Qt::Key_F:
      if (!selection_.empty()) {
        const std::int64_t m =
            std::max<std::int64_t>(1, (selection_.end_ns - selection_.start_ns) / 4);
        show_range(selection_.start_ns - m, selection_.end_ns + m);
      }
      break;
    default:
      QWidget::keyPressEvent(e);
      return;
  }
  e->accept();
}

void TimelineView::contextMenuEvent(QContextMenuEvent* e) {
  const TimelineGeometry g = geometry();
  QMenu menu(this);
  if (g.names.contains(e->pos())) {
    const Lane* lane = layout_.lane_at(content_y_at(e->pos().y()));
    if (lane == nullptr || lane->kind != LaneKind::group) return;
    const QString key = lane->group;
    menu.addAction(lane->collapsed ? tr("Unfold") : tr("Fold"), this,
                   [this, key] { toggle_group(key); });
    menu.addAction(lane->pinned ? tr("Unpin") : tr("Pin to the top"), this,
                   [this, key] { toggle_pin(key); });
  } else {
    const DrawBox* b = box_at(e->pos());
    if (b == nullptr || b->style != DrawBox::Style::solid || b->hit.kind != Selection::Kind::event)
      return;
    select(b->hit);
    const QString name = labels_.get(b->hit.label).name;
    menu.addAction(tr("Next instance of %1 (N)").arg(name), this,
                   [this] { emit instanceRequested(true); });
    menu.addAction(tr("Previous instance of %1 (Shift+N)").arg(name), this,
                   [this] { emit instanceRequested(false); });
  }
  menu.exec(e->globalPos());
}

bool TimelineView::event(QEvent* e) {
  if (e->type() != QEvent::ToolTip) return QWidget::event(e);
  const auto* help = static_cast<QHelpEvent*>(e);
  const TimelineGeometry g = geometry();
  if (g.names.contains(help->pos())) {  // a lane's name, in full (the column may elide it)
    const Lane* lane = layout_.lane_at(content_y_at(help->pos().y()));
    if (lane == nullptr || lane->title.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), lane_tooltip(*lane), this);
    return true;
  }
  const DrawBox* b = box_at(help->pos());
  if (!b) {
    QToolTip::hideText();
    return true;
  }
  QString tip;
  const Selection& h = b->hit;
  const QString dur = format_ns(static_cast<double>(h.end_ns - h.start_ns));
  if (b->style == DrawBox::Style::merged) {
    tip = tr("%1 merged over %2 — click to zoom in")
              .arg(h.kind == Selection::Kind::step ? tr("%1 steps").arg(b->events)
                   : h.kind == Selection::Kind::gap
                       ? tr("%1 idle gaps").arg(b->events)
                       : tr("%1 events").arg(format_count(static_cast<std::int64_t>(b->events))),
                   dur);
    if (!b->detail.isEmpty()) tip += QStringLiteral("\n") + b->detail;
  } else if (h.kind == Selection::Kind::event) {
    const LabelInfo& l = labels_.get(h.label);
    tip = QStringLiteral("%1 (%2) — %3").arg(l.name, category_label(l.category), dur);
  } else if (h.kind == Selection::Kind::step) {
    const StepRow& row = *shown_steps_;
    if (h.index >= row.numbers.size()) {  // a box of a row built again since (show_step)
      QToolTip::hideText();
      return true;
    }
    tip = tr("step %1 — %2").arg(row.numbers[h.index]).arg(dur);
    if (const int epoch = row.epoch_of(h.index); epoch > 0) tip += tr(" (epoch %1)").arg(epoch);
    if (row.input_pct[h.index] >= 0)
      tip += tr(", input %1").arg(format_pct(row.input_pct[h.index]));
    if (row.input_bound[h.index])
      tip += QStringLiteral(" — ") + input_class_label(row.input_class(h.index));
  } else if (h.index < shown_gaps_->row.zones.size()) {
    const GapRow& g = *shown_gaps_;
    const QString why = idle_cause_label(static_cast<IdleCause>(g.row.zones[h.index].label));
    if (g.per_step && h.index < g.idle_ns.size()) {
      tip = tr("step %1 — device idle %2, mostly %3")
                .arg(g.steps[h.index])
                .arg(format_ns(static_cast<double>(g.idle_ns[h.index])), why);
    } else {
      tip = tr("device idle %1 — %2").arg(dur, why);
    }
  }
  QToolTip::showText(help->globalPos(), tip, this);
  return true;
}

}  // namespace ts::gui
