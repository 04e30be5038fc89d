#include "gui/widgets/timeline/lane_layout.hpp"

#include <algorithm>

namespace ts::gui {

namespace {

// Sort key of a track: the trainer, input workers, other threads, device queues, counters.
int rank(const store::Track& t) {
  if (t.kind == trace::TrackKind::device_queue) return 3;
  if (t.kind == trace::TrackKind::counter) return 4;
  const QString name = QString::fromStdString(t.name).toLower();
  if (name == "main" || name.contains("trainer")) return 0;
  if (name.contains("input") || name.contains("worker") || name.contains("loader")) return 1;
  return 2;
}

}  // namespace

// Where a track's process comes among the processes: by rank, then id; tracks of no process
// last.
std::pair<std::int64_t, std::int64_t> process_order(const store::Track& t,
                                                    const std::vector<store::Process>& processes) {
  for (const store::Process& p : processes)
    if (p.id == t.process) return {p.rank != store::kNull ? p.rank : INT64_MAX - 1, p.id};
  return {INT64_MAX, 0};
}

std::vector<const store::Track*> LaneLayout::ordered(const std::vector<store::Track>& tracks,
                                                     const std::vector<store::Process>& processes) {
  std::vector<const store::Track*> out;
  for (const store::Track& t : tracks) out.push_back(&t);
  std::stable_sort(out.begin(), out.end(), [&](const store::Track* a, const store::Track* b) {
    const auto pa = process_order(*a, processes), pb = process_order(*b, processes);
    if (pa != pb) return pa < pb;
    const int ra = rank(*a), rb = rank(*b);
    return ra != rb ? ra < rb : a->id < b->id;
  });
  return out;
}

QString LaneLayout::process_prefix(const store::Track& t,
                                   const std::vector<store::Process>& processes) {
  if (processes.size() < 2) return {};
  for (const store::Process& p : processes) {
    if (p.id != t.process) continue;
    return p.rank != store::kNull ? QStringLiteral("r%1 · ").arg(p.rank)
                                  : QStringLiteral("p%1 · ").arg(p.id);
  }
  return {};
}

void LaneLayout::add(LaneKind kind, std::uint32_t track, QString title, int rows) {
  Lane lane;
  lane.kind = kind;
  lane.track = track;
  lane.title = std::move(title);
  lane.rows = std::max(1, rows);
  lane.y = lanes_.empty() ? kLaneGap : lanes_.back().y + lanes_.back().height + kLaneGap;
  lane.height = kind == LaneKind::counter ? kCounterHeight : lane.rows * kRowHeight;
  if (kind == LaneKind::steps) lane.height = kRowHeight + 4;
  lanes_.push_back(std::move(lane));
}

void LaneLayout::add_group(std::int64_t process, const std::vector<store::Process>& processes,
                           const std::vector<const store::Track*>& tracks, bool collapsed) {
  QString name = QStringLiteral("process %1").arg(process);
  for (const store::Process& p : processes)
    if (p.id == process) name = QString::fromStdString(p.name);
  int lanes = 0;
  for (const store::Track* t : tracks) lanes += t->process == process;
  add(LaneKind::group, 0,
      (collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + name +
          (collapsed ? QStringLiteral(" (%1 lanes folded)").arg(lanes) : QString()),
      1);
  lanes_.back().process = process;
}

void LaneLayout::add_idle() {
  add(LaneKind::idle, 0, QStringLiteral("device idle"), 1);
  idle_added_ = true;
}

double LaneLayout::height() const {
  return lanes_.empty() ? 0 : lanes_.back().y + lanes_.back().height + kLaneGap;
}

const Lane* LaneLayout::lane_at(double y) const {
  for (const Lane& l : lanes_)
    if (y >= l.y && y < l.y + l.height) return &l;
  return nullptr;
}

std::pair<double, double> LaneLayout::device_span() const {
  double top = -1, bottom = -1;
  for (const Lane& l : lanes_) {
    if (l.kind != LaneKind::device && l.kind != LaneKind::idle) continue;
    if (top < 0) top = l.y;
    bottom = l.y + l.height;
  }
  return {top, bottom};
}

}  // namespace ts::gui
