// The lanes of the timeline, top to bottom: steps, host threads (the trainer first, then input
// workers, then the rest), device queues, the device-idle lane, counters. A trace of several
// processes (ranks) lists each process's lanes together, in rank order, under a group header
// lane that collapses them (each title also prefixed with its rank). A lane is as tall as its
// deepest nesting; y positions are in content coordinates (before vertical scrolling).
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <set>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

enum class LaneKind { steps, group, thread, device, idle, counter };

struct Lane {
  LaneKind kind = LaneKind::thread;
  std::uint32_t track = 0;              // thread, device and counter lanes
  std::int64_t process = store::kNull;  // group lanes: the process they head
  QString title;
  int rows = 1;
  double y = 0, height = 0;
};

class LaneLayout {
 public:
  static constexpr double kRowHeight = 18;
  static constexpr double kLaneGap = 7;
  static constexpr double kCounterHeight = 36;

  // rows_of(track) gives how many nesting rows a track has (at least one lane row is kept).
  // collapsed: the processes whose lanes are folded under their group header.
  template <class RowsOf>
  void build(const std::vector<store::Track>& tracks, const std::vector<store::Process>& processes,
             bool has_idle_lane, RowsOf&& rows_of, const std::set<std::int64_t>& collapsed = {}) {
    lanes_.clear();
    add(LaneKind::steps, 0, QStringLiteral("steps"), 1);
    const bool groups = processes.size() >= 2;
    std::optional<std::int64_t> group;
    const auto ordered_tracks = ordered(tracks, processes);
    for (const store::Track* t : ordered_tracks) {
      const LaneKind kind = t->kind == trace::TrackKind::device_queue ? LaneKind::device
                            : t->kind == trace::TrackKind::counter    ? LaneKind::counter
                                                                      : LaneKind::thread;
      if (groups && (!group || *group != t->process)) {
        group = t->process;
        add_group(*group, processes, ordered_tracks, collapsed.count(*group) > 0);
      }
      if (groups && collapsed.count(t->process)) continue;
      if (kind == LaneKind::counter && has_idle_lane && !idle_added_) add_idle();
      add(kind, t->id, process_prefix(*t, processes) + QString::fromStdString(t->name),
          kind == LaneKind::counter ? 1 : rows_of(t->id));
    }
    if (has_idle_lane && !idle_added_) add_idle();
    idle_added_ = false;
  }

  const std::vector<Lane>& lanes() const { return lanes_; }
  double height() const;
  // The lane at content y, or null.
  const Lane* lane_at(double y) const;
  // The vertical span of the device lanes and the idle lane (for idle shading); empty if none.
  std::pair<double, double> device_span() const;

 private:
  static std::vector<const store::Track*> ordered(const std::vector<store::Track>& tracks,
                                                  const std::vector<store::Process>& processes);
  // "r1 · " for a track of rank 1 in a trace of several processes, else "".
  static QString process_prefix(const store::Track& t,
                                const std::vector<store::Process>& processes);
  void add(LaneKind kind, std::uint32_t track, QString title, int rows);
  void add_idle();
  void add_group(std::int64_t process, const std::vector<store::Process>& processes,
                 const std::vector<const store::Track*>& tracks, bool collapsed);

  std::vector<Lane> lanes_;
  bool idle_added_ = false;
};

}  // namespace ts::gui
