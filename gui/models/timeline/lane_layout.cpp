#include "gui/models/timeline/lane_layout.hpp"

#include <QRegularExpression>
#include <algorithm>
#include <optional>
#include <unordered_map>

#include "gui/models/format.hpp"

namespace ts::gui {

namespace {

// Sort key of a track: the trainer, input workers, other threads, device queues, counters.
int rank(const store::Track& t) {
  if (t.kind == trace::TrackKind::device_queue) return 3;
  if (t.kind == trace::TrackKind::counter) return 4;
  const QString name = display_text(t.name).toLower();
  if (name == "main" || name.contains("trainer")) return 0;
  if (name.contains("input") || name.contains("worker") || name.contains("loader")) return 1;
  return 2;
}

std::vector<const store::Track*> ordered(const std::vector<store::Track>& tracks,
                                         const std::vector<store::Process>& processes) {
  // By process (its rank, then id; tracks of no process last), then trainer, input workers, other
  // threads, device queues, counters. Each track's key once, not in every comparison: a trace may
  // hold tens of thousands of threads in hundreds of processes.
  std::unordered_map<std::int64_t, std::pair<std::int64_t, std::int64_t>> order_of_process;
  for (const store::Process& p : processes)
    order_of_process.try_emplace(p.id, p.rank != store::kNull ? p.rank : INT64_MAX - 1, p.id);
  struct Keyed {
    std::pair<std::int64_t, std::int64_t> process;
    int rank;
    const store::Track* track;
  };
  std::vector<Keyed> keyed;
  keyed.reserve(tracks.size());
  for (const store::Track& t : tracks) {
    const auto it = order_of_process.find(t.process);
    keyed.push_back({it != order_of_process.end() ? it->second : std::pair{INT64_MAX, INT64_C(0)},
                     rank(t), &t});
  }
  std::stable_sort(keyed.begin(), keyed.end(), [](const Keyed& a, const Keyed& b) {
    if (a.process != b.process) return a.process < b.process;
    return a.rank != b.rank ? a.rank < b.rank : a.track->id < b.track->id;
  });
  std::vector<const store::Track*> out;
  out.reserve(keyed.size());
  for (const Keyed& k : keyed) out.push_back(k.track);
  return out;
}

// "r1 · " for a track of rank 1 in a trace of several processes, else "".
QString process_prefix(const store::Track& t, const std::vector<store::Process>& processes) {
  if (processes.size() < 2) return {};
  for (const store::Process& p : processes) {
    if (p.id != t.process) continue;
    return p.rank != store::kNull ? QStringLiteral("r%1 · ").arg(p.rank)
                                  : QStringLiteral("p%1 · ").arg(p.id);
  }
  return {};
}

QString process_name(std::int64_t process, const std::vector<store::Process>& processes) {
  for (const store::Process& p : processes)
    if (p.id == process) return display_text(p.name);
  return QStringLiteral("process %1").arg(process);
}

// A lane before layout, with the groups holding it: outer the process's, inner the device's.
struct Entry {
  Lane lane;
  QString outer, inner;
};

}  // namespace

LaneGroupState initial_lane_groups(const std::vector<store::Process>& processes) {
  LaneGroupState g;
  if (processes.size() > kFoldRanksAbove)
    for (const store::Process& p : processes) g.collapsed.insert(LaneLayout::process_group(p.id));
  return g;
}

std::optional<std::set<std::int64_t>> parse_rank_filter(const QString& text) {
  std::set<std::int64_t> ranks;
  static const QRegularExpression item(QStringLiteral("^(\\d{1,9})(?:-(\\d{1,9}))?$"));
  for (const QString& part :
       text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts)) {
    const auto m = item.match(part);
    if (!m.hasMatch()) return std::nullopt;
    const std::int64_t a = m.captured(1).toLongLong();
    const std::int64_t b = m.captured(2).isEmpty() ? a : m.captured(2).toLongLong();
    if (b < a || b - a > 1'000'000) return std::nullopt;
    for (std::int64_t r = a; r <= b; ++r) ranks.insert(r);
  }
  return ranks;
}

std::set<std::int64_t> processes_left_out(const std::vector<store::Process>& processes,
                                          const std::set<std::int64_t>& ranks) {
  std::set<std::int64_t> out;
  if (ranks.empty()) return out;
  for (const store::Process& p : processes)
    if (p.rank != store::kNull && !ranks.count(p.rank)) out.insert(p.id);
  return out;
}

QString LaneLayout::process_group(std::int64_t process) {
  return QStringLiteral("process:%1").arg(process);
}

QString LaneLayout::device_group(std::int64_t process, const QString& device) {
  return QStringLiteral("device:%1:%2").arg(process).arg(device);
}

QString LaneLayout::device_of(const std::string& queue_name) {
  const QString name = display_text(queue_name).trimmed();
  static const QRegularExpression gpu(QStringLiteral("^GPU \\d+"));
  if (const auto m = gpu.match(name); m.hasMatch()) return m.captured(0);
  const qsizetype space = name.lastIndexOf(QLatin1Char(' '));
  return space > 0 ? name.left(space) : name;
}

void LaneLayout::build(const std::vector<store::Track>& tracks,
                       const std::vector<store::Process>& processes, bool has_idle_lane,
                       const std::function<int(std::uint32_t)>& rows_of,
                       const LaneGroupState& groups) {
  std::vector<Entry> all;
  std::vector<store::Track> kept;  // the tracks of the processes the rank filter leaves in
  if (!groups.hidden_processes.empty()) {
    for (const store::Track& t : tracks)
      if (!groups.hidden_processes.count(t.process)) kept.push_back(t);
  }
  const std::vector<store::Track>& shown = groups.hidden_processes.empty() ? tracks : kept;
  const auto push = [&](LaneKind kind, std::uint32_t track, QString title, int rows, int level,
                        const QString& outer, const QString& inner) {
    Entry e;
    e.lane.kind = kind;
    e.lane.track = track;
    e.lane.title = std::move(title);
    e.lane.rows = std::max(1, rows);
    e.lane.level = level;
    e.lane.group = inner.isEmpty() ? outer : inner;
    e.outer = outer;
    e.inner = inner;
    all.push_back(std::move(e));
    return &all.back().lane;
  };
  push(LaneKind::steps, 0, QStringLiteral("steps"), 1, 0, {}, {});

  const bool by_process = processes.size() >= 2;
  const auto order = ordered(shown, processes);
  const auto device_key = [&](const store::Track& t) {
    return t.kind == trace::TrackKind::device_queue ? device_group(t.process, device_of(t.name))
                                                    : QString();
  };
  std::set<QString> devices;
  for (const store::Track* t : order)
    if (t->kind == trace::TrackKind::device_queue) devices.insert(device_key(*t));
  // With a single device, the idle lane (the device's idle gaps) belongs to its group.
  const bool idle_with_device = devices.size() == 1;
  bool idle_added = false;
  std::optional<std::int64_t> process;
  QString outer, inner;
  const int base = by_process ? 1 : 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    const store::Track& t = *order[i];
    const LaneKind kind = t.kind == trace::TrackKind::device_queue ? LaneKind::device
                          : t.kind == trace::TrackKind::counter    ? LaneKind::counter
                                                                   : LaneKind::thread;
    if (by_process && (!process || *process != t.process)) {
      process = t.process;
      outer = process_group(t.process);
      inner.clear();
      push(LaneKind::group, 0, process_name(t.process, processes), 1, 0, outer, {})->process =
          t.process;
    }
    const QString key = device_key(t);
    if (kind == LaneKind::device && key != inner) {
      inner = key;
      push(LaneKind::group, 0, device_of(t.name), 1, base, outer, inner)->process = t.process;
    } else if (kind != LaneKind::device) {
      inner.clear();
    }
    if (kind == LaneKind::counter && has_idle_lane && !idle_added) {
      push(LaneKind::idle, 0, QStringLiteral("device idle"), 1, 0, {}, {});
      idle_added = true;
    }
    push(kind, t.id, process_prefix(t, processes) + display_text(t.name),
         kind == LaneKind::counter ? 1 : rows_of(t.id), base + (kind == LaneKind::device ? 1 : 0),
         outer, inner);
    const bool device_ends =
        kind == LaneKind::device && (i + 1 == order.size() || device_key(*order[i + 1]) != inner);
    if (device_ends && idle_with_device && has_idle_lane && !idle_added) {
      push(LaneKind::idle, 0, QStringLiteral("device idle"), 1, base + 1, outer, inner);
      idle_added = true;
    }
  }
  if (has_idle_lane && !idle_added)
    push(LaneKind::idle, 0, QStringLiteral("device idle"), 1, 0, {}, {});

  // Headers name what they fold.
  for (Entry& h : all) {
    if (h.lane.kind != LaneKind::group) continue;
    int members = 0;
    std::vector<std::uint32_t> devices, threads;
    for (const Entry& e : all) {
      if (e.lane.kind == LaneKind::group || (e.outer != h.lane.group && e.inner != h.lane.group))
        continue;
      ++members;
      if (e.lane.kind == LaneKind::device) devices.push_back(e.lane.track);
      if (e.lane.kind == LaneKind::thread) threads.push_back(e.lane.track);
    }
    h.lane.name = h.lane.title;
    h.lane.collapsed = groups.collapsed.count(h.lane.group) > 0;
    if (h.lane.collapsed) h.lane.folded_tracks = devices.empty() ? threads : devices;
    h.lane.title =
        (h.lane.collapsed ? QStringLiteral("▸ ") : QStringLiteral("▾ ")) + h.lane.title +
        (h.lane.collapsed ? QStringLiteral(" (%1 lanes folded)").arg(members) : QString());
  }

  // Folded groups hide their lanes (not their own header); pinned ones go to the top band.
  lanes_.clear();
  std::vector<Lane> unpinned;
  for (Entry& e : all) {
    const bool header = e.lane.kind == LaneKind::group;
    const auto hides = [&](const QString& g) {
      return !g.isEmpty() && groups.collapsed.count(g) && !(header && e.lane.group == g);
    };
    if (hides(e.outer) || hides(e.inner)) continue;
    e.lane.pinned = (!e.outer.isEmpty() && groups.pinned.count(e.outer)) ||
                    (!e.inner.isEmpty() && groups.pinned.count(e.inner));
    (e.lane.pinned ? lanes_ : unpinned).push_back(std::move(e.lane));
  }
  const std::size_t pinned = lanes_.size();
  lanes_.insert(lanes_.end(), std::make_move_iterator(unpinned.begin()),
                std::make_move_iterator(unpinned.end()));
  double y = kLaneGap;
  pinned_height_ = 0;
  for (std::size_t i = 0; i < lanes_.size(); ++i) {
    Lane& l = lanes_[i];
    l.y = y;
    l.height = l.kind == LaneKind::counter
                   ? (is_bytes_counter(l.title) ? kMemoryHeight : kCounterHeight)
               : l.kind == LaneKind::steps ? kRowHeight + 4
                                           : l.rows * kRowHeight;
    y += l.height + kLaneGap;
    if (i + 1 == pinned) pinned_height_ = y - kLaneGap / 2;
  }
}

double LaneLayout::height() const {
  return lanes_.empty() ? 0 : lanes_.back().y + lanes_.back().height + kLaneGap;
}

const Lane* LaneLayout::lane_at(double y) const {
  for (const Lane& l : lanes_)
    if (y >= l.y && y < l.y + l.height) return &l;
  return nullptr;
}

const Lane* LaneLayout::group_lane(const QString& key) const {
  for (const Lane& l : lanes_)
    if (l.kind == LaneKind::group && l.group == key) return &l;
  return nullptr;
}

}  // namespace ts::gui
