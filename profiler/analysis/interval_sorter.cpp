#include "profiler/analysis/interval_sorter.hpp"

#include <algorithm>

namespace ts::analysis {

using trace::Category;

void IntervalSorter::add(TrackRole role, Category category, std::int64_t start, std::int64_t end) {
  auto part = [&](Part p) -> SetBuilder& { return parts_[static_cast<int>(p)]; };
  if (role == TrackRole::device) {
    switch (category) {
      case Category::kernel:
        part(Part::device_compute).add(start, end);
        break;
      case Category::collective:
        part(Part::collective).add(start, end);
        break;
      case Category::h2d:
        part(Part::h2d).add(start, end);
        break;
      case Category::d2h:
        part(Part::d2h).add(start, end);
        break;
      default:
        return;  // markers and anything else on a queue occupy no engine
    }
    device_busy_.add(start, end);
    device_seen_ = device_seen_ || end > start;
    return;
  }
  if (role != TrackRole::trainer) return;
  switch (category) {
    case Category::input_wait:
    case Category::input_read:
    case Category::input_decode:
    case Category::input_map:
    case Category::input_batch:
      part(Part::input_wait).add(start, end);
      break;
    case Category::input_handoff:  // host work on the trainer, though not the model's
      part(Part::input_handoff).add(start, end);
      host_busy_.add(start, end);
      break;
    case Category::launch:
      part(Part::launch).add(start, end);
      host_busy_.add(start, end);
      break;
    case Category::sync:
      part(Part::sync).add(start, end);
      break;
    case Category::host_compute:
    case Category::optimizer:
    case Category::kernel:
      part(Part::host_compute).add(start, end);
      host_busy_.add(start, end);
      break;
    case Category::h2d:
      part(Part::h2d).add(start, end);
      host_busy_.add(start, end);
      break;
    case Category::d2h:
      part(Part::d2h).add(start, end);
      host_busy_.add(start, end);
      break;
    case Category::collective:
      part(Part::collective).add(start, end);
      break;
    case Category::step:
    case Category::other:
      break;
  }
}

PartIntervalsWindow window_of(const PartIntervals& t, Interval window) {
  PartIntervalsWindow w;
  for (int p = 0; p < kPartCount; ++p) w.parts[p] = overlapping(t.parts[p], window);
  w.device_busy = overlapping(t.device_busy, window);
  w.host_busy = overlapping(t.host_busy, window);
  w.input_work = overlapping(t.input_work, window);
  return w;
}

PartIntervalsWindow IntervalSorter::live_window(Interval window) {
  PartIntervalsWindow w;
  for (int p = 0; p < kPartCount; ++p) w.parts[p] = overlapping(parts_[p].live(), window);
  w.device_busy = overlapping(device_busy_.live(), window);
  w.host_busy = overlapping(host_busy_.live(), window);
  w.input_work = overlapping(input_work_.live(), window);
  return w;
}

void IntervalSorter::drop_before(std::int64_t t) {
  for (SetBuilder& s : parts_) s.drop_before(t);
  device_busy_.drop_before(t);
  host_busy_.drop_before(t);
  input_work_.drop_before(t);
}

PartIntervals IntervalSorter::finish() {
  PartIntervals t;
  for (int p = 0; p < kPartCount; ++p) t.parts[p] = parts_[p].finish();
  t.device_busy = device_busy_.finish();
  t.host_busy = host_busy_.finish();
  t.input_work = input_work_.finish();
  return t;
}

}  // namespace ts::analysis
