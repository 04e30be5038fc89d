// The lanes of the timeline, top to bottom: steps, host threads (the trainer first, then input
// workers, then the rest), device queues, the device-idle lane, counters. Lanes come in groups
// that fold under a header lane and can be pinned:
//   - a process (rank), in a trace of several: its lanes together, in rank order (each title
//     prefixed with its rank);
//   - a device: its queues (a device's queues are named "<device> <queue>", "GPU n stream m"),
//     with the device-idle lane when the trace has a single device.
// A folded group shows only its header ("▸ name (n lanes folded)"), in whose row the top row of
// its device queues is drawn (of its threads, without one): a folded rank still shows when its
// device worked. A pinned group is laid out
// in a band at the top of the lanes that does not scroll (Perfetto's pinned tracks): its lanes'
// y are below pinned_height(), every other lane's at or past it. A lane is as tall as its
// deepest nesting; y positions are in content coordinates (before vertical scrolling).
#pragma once

#include <QString>
#include <cstdint>
#include <functional>
#include <optional>
#include <set>
#include <utility>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

enum class LaneKind { steps, group, thread, device, idle, counter };

struct Lane {
  LaneKind kind = LaneKind::thread;
  std::uint32_t track = 0;              // thread, device and counter lanes
  std::int64_t process = store::kNull;  // group lanes: the process they head or belong to
  // Group lanes: the key of the group they head (LaneLayout::process_group, device_group);
  // other lanes: the innermost group holding them ("" none).
  QString group;
  QString name;            // group lanes: what they group (the process's or the device's name)
  int level = 0;           // group headers above it (its name is indented by as many steps)
  bool pinned = false;     // in the band at the top that does not scroll
  bool collapsed = false;  // group lanes: folded
  // Folded group lanes: the tracks drawn in the header's row (its device queues, else its
  // threads).
  std::vector<std::uint32_t> folded_tracks;
  QString title;
  int rows = 1;
  double y = 0, height = 0;
};

// Which groups the user folded and which they pinned, by key, and which processes (ranks) the
// rank filter leaves out (their lanes are not laid out at all).
struct LaneGroupState {
  std::set<QString> collapsed;
  std::set<QString> pinned;
  std::set<std::int64_t> hidden_processes;
};

// How a trace opens: above kFoldRanksAbove ranks every rank's group folded (256 ranks' lanes
// would bury the one that matters; Nsight's and Perfetto's process groups start folded too).
inline constexpr std::size_t kFoldRanksAbove = 4;
LaneGroupState initial_lane_groups(const std::vector<store::Process>& processes);

// A rank filter as typed: "0-3, 7, 12" (ranks and ranges, commas or spaces between), "" for
// every rank. nullopt: not such a list.
std::optional<std::set<std::int64_t>> parse_rank_filter(const QString& text);
// The processes a rank filter leaves out: those whose rank is not in `ranks` (a process without
// a rank stays), none when `ranks` is empty.
std::set<std::int64_t> processes_left_out(const std::vector<store::Process>& processes,
                                          const std::set<std::int64_t>& ranks);

class LaneLayout {
 public:
  static constexpr double kRowHeight = 18;
  static constexpr double kLaneGap = 7;
  static constexpr double kCounterHeight = 36;
  // A counter of bytes (memory) is taller: its scale and the device's memory are labelled in it.
  static constexpr double kMemoryHeight = 54;

  // The key of a process's group, and of a device's (devices of different processes differ).
  static QString process_group(std::int64_t process);
  static QString device_group(std::int64_t process, const QString& device);
  // The device a device queue belongs to, by its name: "GPU 0" for "GPU 0 stream 7", else the
  // name less its last word ("synthetic GPU" for "synthetic GPU compute"), else the name.
  static QString device_of(const std::string& queue_name);

  // rows_of(track) gives how many nesting rows a track has (at least one lane row is kept).
  void build(const std::vector<store::Track>& tracks, const std::vector<store::Process>& processes,
             bool has_idle_lane, const std::function<int(std::uint32_t)>& rows_of,
             const LaneGroupState& groups = {});

  const std::vector<Lane>& lanes() const { return lanes_; }
  double height() const;
  // The height of the band of pinned lanes at the top (0: nothing pinned).
  double pinned_height() const { return pinned_height_; }
  // The content y shown at `y` below the top of the lanes' area, scrolled by `scroll_y`: the
  // pinned band does not scroll, what lies below it does.
  double content_y(double y, double scroll_y) const {
    return y < pinned_height_ ? y : y + scroll_y;
  }
  // Where content y of `lane` is shown below the top of the lanes' area.
  double view_y(const Lane& lane, double content_y, double scroll_y) const {
    return lane.pinned ? content_y : content_y - scroll_y;
  }
  // The lane at content y, or null.
  const Lane* lane_at(double y) const;
  // The header lane of group `key`, or null when it is not laid out.
  const Lane* group_lane(const QString& key) const;

 private:
  std::vector<Lane> lanes_;
  double pinned_height_ = 0;
};

}  // namespace ts::gui
