// Maps trace time (nanoseconds) to x in pixels and back for the timeline's visible window: a
// small value type with zoom around a point, pan by pixels and clamping to the trace's extent.
// Positions are kept relative to the extent's start in double, so nanoseconds stay exact for
// any realistic view however large the absolute clock values are.
#pragma once

#include <cstdint>

namespace ts::gui {

class TimeMapping {
 public:
  // The finest zoom: a nanosecond spans 100 pixels.
  static constexpr double kMinNsPerPx = 0.01;

  TimeMapping() = default;
  // Shows the whole extent [begin_ns, end_ns) across width_px pixels.
  TimeMapping(std::int64_t begin_ns, std::int64_t end_ns, double width_px);

  std::int64_t extent_begin() const { return origin_; }
  std::int64_t extent_end() const { return origin_ + static_cast<std::int64_t>(extent_); }
  double width() const { return width_; }
  double ns_per_px() const { return ns_per_px_; }
  // The visible window, rounded outwards to whole nanoseconds.
  std::int64_t view_begin() const;
  std::int64_t view_end() const;
  double view_span_ns() const { return width_ * ns_per_px_; }
  bool shows_all() const;

  double x_of(std::int64_t ns) const {
    return (static_cast<double>(ns - origin_) - start_) / ns_per_px_;
  }
  double px_of_duration(std::int64_t ns) const { return static_cast<double>(ns) / ns_per_px_; }
  std::int64_t ns_at(double x) const;

  // Changes the extent (a live trace grows), keeping the visible window where it can.
  void set_extent(std::int64_t begin_ns, std::int64_t end_ns);
  // Changes the drawing width, keeping the visible time span.
  void set_width(double width_px);
  void show_all();
  // Shows [t0, t1), clamped to the extent and the finest zoom.
  void show(std::int64_t t0, std::int64_t t1);
  // Zooms by `factor` (> 1 zooms in) keeping the time under pixel x where it is.
  void zoom_at(double x, double factor);
  // Moves the content by dx pixels: a positive dx (dragging right) shows earlier time.
  void pan_px(double dx);

  friend bool operator==(const TimeMapping&, const TimeMapping&) = default;

 private:
  void clamp();

  std::int64_t origin_ = 0;  // the extent's start
  double extent_ = 1;        // the extent's length in ns, at least 1
  double width_ = 1;         // pixels, at least 1
  double start_ = 0;         // the window's start, ns after origin_
  double ns_per_px_ = 1;
};

}  // namespace ts::gui
