#include "gui/models/time_mapping.hpp"

#include <algorithm>
#include <cmath>

namespace ts::gui {

TimeMapping::TimeMapping(std::int64_t begin_ns, std::int64_t end_ns, double width_px) {
  set_extent(begin_ns, end_ns);
  width_ = std::max(1.0, width_px);
  show_all();
}

std::int64_t TimeMapping::view_begin() const {
  return origin_ + static_cast<std::int64_t>(std::floor(start_));
}

std::int64_t TimeMapping::view_end() const {
  return origin_ + static_cast<std::int64_t>(std::ceil(start_ + view_span_ns()));
}

bool TimeMapping::shows_all() const {
  return start_ <= 0.5 && view_span_ns() >= extent_ - 0.5;
}

std::int64_t TimeMapping::ns_at(double x) const {
  return origin_ + static_cast<std::int64_t>(std::llround(start_ + x * ns_per_px_));
}

void TimeMapping::set_extent(std::int64_t begin_ns, std::int64_t end_ns) {
  const bool all = shows_all();
  const double view_begin_abs = static_cast<double>(origin_ - begin_ns) + start_;
  origin_ = begin_ns;
  extent_ = std::max(1.0, static_cast<double>(end_ns) - static_cast<double>(begin_ns));
  if (all) {
    show_all();
  } else {
    start_ = view_begin_abs;
    clamp();
  }
}

void TimeMapping::set_width(double width_px) {
  const double span = view_span_ns();
  width_ = std::max(1.0, width_px);
  ns_per_px_ = span / width_;
  clamp();
}

void TimeMapping::show_all() {
  start_ = 0;
  ns_per_px_ = extent_ / width_;
}

void TimeMapping::show(std::int64_t t0, std::int64_t t1) {
  if (t1 < t0) std::swap(t0, t1);
  start_ = static_cast<double>(t0 - origin_);
  ns_per_px_ = static_cast<double>(t1 - t0) / width_;
  if (ns_per_px_ < kMinNsPerPx) {  // too narrow: centre the finest zoom on it
    const double centre = start_ + static_cast<double>(t1 - t0) / 2;
    ns_per_px_ = kMinNsPerPx;
    start_ = centre - view_span_ns() / 2;
  }
  clamp();
}

void TimeMapping::zoom_at(double x, double factor) {
  if (!(factor > 0)) return;
  const double anchor = start_ + x * ns_per_px_;
  ns_per_px_ /= factor;
  ns_per_px_ = std::clamp(ns_per_px_, kMinNsPerPx, extent_ / width_);
  start_ = anchor - x * ns_per_px_;
  clamp();
}

void TimeMapping::pan_px(double dx) {
  start_ -= dx * ns_per_px_;
  clamp();
}

void TimeMapping::clamp() {
  ns_per_px_ = std::clamp(ns_per_px_, kMinNsPerPx, std::max(kMinNsPerPx, extent_ / width_));
  start_ = std::clamp(start_, 0.0, std::max(0.0, extent_ - view_span_ns()));
}

}  // namespace ts::gui
