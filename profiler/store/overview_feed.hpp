// The overview of a trace's events built while they are written in key order (an import's
// events appended into the trace's pages, page_event_table.hpp), on a thread of its own: what
// build_overview() makes from the finished trace, without reading 50 M events back through SQLite.
// It needs the trace's time range before the first event (the range sets the overview's
// resolution): the writer's caller knows it from the rows it is about to write. When the finished
// trace's range is another (an event moved past an end, events written some other way) or the
// builder failed, finish() answers nothing and the overview is built from the file as before.
#pragma once

#include <atomic>
#include <optional>
#include <thread>
#include <vector>

#include "profiler/store/batch_pipe.hpp"
#include "profiler/store/overview_builder.hpp"
#include "profiler/store/rows.hpp"

namespace ts::store {

class OverviewFeed {
 public:
  // extent: the time range the trace will have; tracks: its tracks (id and kind are read).
  OverviewFeed(const TimeRange& extent, const std::vector<Track>& tracks);
  ~OverviewFeed();
  OverviewFeed(const OverviewFeed&) = delete;
  OverviewFeed& operator=(const OverviewFeed&) = delete;

  // The next event, as stored, in key order.
  void take(const EventRow& r) {
    Event e;
    e.start_ns = r.start_ns;
    e.dur_ns = r.dur_ns;
    e.track = r.track;
    e.label = r.label;
    e.step = r.step;
    e.bytes = r.bytes;
    pipe_.push(e);
  }
  // The overview of the events taken, with `reader`'s counters and label names: the finished
  // trace's, when its time range is the extent given; nothing otherwise.
  std::optional<Overview> finish(const Reader& reader);
  // Whether finish() answered the overview.
  bool used() const { return used_; }

 private:
  void wait() noexcept;

  TimeRange extent_;
  Overview out_;
  std::optional<OverviewBuilder> builder_;  // dropped once published: its runs are in out_
  BatchPipe<Event> pipe_;
  std::atomic<bool> failed_ = false;  // the builder threw: the overview is built from the file
  bool waited_ = false;
  bool used_ = false;
  std::thread thread_;  // last: started once the rest is made
};

}  // namespace ts::store
