#include "engine/backend/opencl/cl_clock.hpp"

#include <algorithm>

#include "engine/backend/opencl/cl_device.hpp"
#include "engine/backend/opencl/cl_event_cost.hpp"
#include "trainscope/trace.hpp"

namespace ts::ocl {

namespace {

constexpr int kSessionSamples = 8;  // at session start: the narrowest of these becomes the pair
constexpr int kRefreshSamples = 3;
constexpr std::int64_t kFirstRefreshNs = 250'000'000;  // drift shows early: refit soon, ...
constexpr std::int64_t kRefreshNs = 2'000'000'000;     // ... then every 2 s
// A refresh sample much wider than the session's best (a loaded machine) would pull the line
// more than it informs it: skip it and try at the next opportunity.
constexpr std::int64_t kWidthSlackNs = 20'000;

bool profiling(cl_event event, cl_profiling_info what, std::int64_t& out) {
  cl_ulong v = 0;
  if (clGetEventProfilingInfo(event, what, sizeof(v), &v, nullptr) != CL_SUCCESS || v == 0)
    return false;
  out = static_cast<std::int64_t>(v);
  return true;
}

}  // namespace

DeviceClock::DeviceClock(cl_device_id device, cl_command_queue queue, std::string name)
    : device_(device),
      queue_(queue),
      name_(std::move(name)),
      timer_available_(device_version(device) >= 210) {}

const char* DeviceClock::method_name(Method m) {
  switch (m) {
    case Method::timer:
      return "device_and_host_timer";
    case Method::marker:
      return "marker_end";
    case Method::marker_queued:
      return "marker_end_and_queued";
    case Method::none:
      break;
  }
  return "none";
}

bool DeviceClock::timer_sample(Sample& out) const {
  cl_ulong device = 0, host = 0;
  const std::int64_t h0 = ts::trace::now_ns();
  if (clGetDeviceAndHostTimer(device_, &device, &host) != CL_SUCCESS || device == 0) return false;
  const std::int64_t h1 = ts::trace::now_ns();
  out = {static_cast<std::int64_t>(device), h0 + (h1 - h0) / 2, h1 - h0};
  return true;
}

bool DeviceClock::marker_sample(Sample& out, bool& queued_agreed) const {
  cl_event event = nullptr;
  const std::int64_t h0 = ts::trace::now_ns();
  if (clEnqueueMarkerWithWaitList(queue_, 0, nullptr, &event) != CL_SUCCESS) return false;
  const std::int64_t h1 = ts::trace::now_ns();
  const cl_int waited = clWaitForEvents(1, &event);
  const std::int64_t h2 = ts::trace::now_ns();
  std::int64_t end = 0, queued = 0;
  const bool have_end = waited == CL_SUCCESS && profiling(event, CL_PROFILING_COMMAND_END, end);
  const bool have_queued = have_end && profiling(event, CL_PROFILING_COMMAND_QUEUED, queued);
  clReleaseEvent(event);
  if (!have_end) return false;
  // Offsets host - device that the marker allows: END happened in [h0, h2] ...
  std::int64_t lo = h0 - end, hi = h2 - end;
  // ... and QUEUED in [h0, h1], if it is on the same clock (then the intervals overlap).
  queued_agreed = false;
  if (have_queued && queued <= end) {
    const std::int64_t qlo = std::max(lo, h0 - queued), qhi = std::min(hi, h1 - queued);
    if (qlo <= qhi) {
      lo = qlo;
      hi = qhi;
      queued_agreed = true;
    }
  }
  out = {end, end + lo + (hi - lo) / 2, hi - lo};
  return true;
}

bool DeviceClock::best_sample(int count, Sample& best) {
  bool found = false;
  bool best_queued = false;
  for (int i = 0; i < count; ++i) {
    Sample s;
    bool queued = false;
    if (!(method_ == Method::timer ? timer_sample(s) : marker_sample(s, queued))) continue;
    if (!found || s.width < best.width) {
      best = s;
      best_queued = queued;
    }
    found = true;
  }
  if (found && method_ != Method::timer)
    method_ = best_queued ? Method::marker_queued : Method::marker;
  return found;
}

void DeviceClock::add(const Sample& s) {
  aligner_.add(s.device, s.host);
  fit_ = aligner_.fit();
  best_width_ = best_width_ == 0 ? s.width : std::min(best_width_, s.width);
  max_width_ = std::max(max_width_, s.width);
  last_ns_ = ts::trace::now_ns();
  ts::trace::record_clock_alignment(name_, fit_);
  const std::string key = "clock.device." + name_ + ".";
  ts::trace::set_meta(key + "method", method_name(method_));
  ts::trace::set_meta(key + "bracket_ns", std::to_string(max_width_));
}

void DeviceClock::ensure_session() {
  if (in_session_) return;
  start_session();
  // The queue is idle after the calibration: measure what a device event costs here, for the
  // trace's meta and the automatic choice of sampled steps.
  if (method_ != Method::none)
    if (const double cost = measure_event_cost_ns(queue_); cost >= 0)
      ts::trace::set_device_event_cost(cost);
}

void DeviceClock::start_session() {
  in_session_ = true;
  TS_ZONE("calibrate device clock", sync);
  aligner_ = ts::trace::ClockAligner();
  fit_ = {};
  best_width_ = max_width_ = 0;
  interval_ns_ = kFirstRefreshNs;
  method_ = Method::marker;
  if (clFinish(queue_) != CL_SUCCESS) {
    method_ = Method::none;
    return;
  }
  Sample marker;
  bool queued = false;
  if (!marker_sample(marker, queued)) {
    method_ = Method::none;  // device events keep the identity fit; the queue is broken anyway
    return;
  }
  // The timer is used only where it agrees with a marker: their offset intervals must overlap.
  Sample timer;
  if (timer_available_ && timer_sample(timer)) {
    const std::int64_t t_lo = timer.host - timer.width / 2 - timer.device;
    const std::int64_t t_hi = t_lo + timer.width;
    const std::int64_t m_lo = marker.host - marker.width / 2 - marker.device;
    const std::int64_t m_hi = m_lo + marker.width;
    if (std::max(t_lo, m_lo) <= std::min(t_hi, m_hi) + 1)  // +1: the halving rounds down
      method_ = Method::timer;
  }
  if (method_ != Method::timer) timer_available_ = false;  // refused once: not again
  Sample best;
  if (best_sample(kSessionSamples, best)) add(best);
}

void DeviceClock::refresh(bool queue_idle) {
  if (method_ == Method::none) return;
  if (ts::trace::now_ns() - last_ns_ < interval_ns_) return;
  if (method_ != Method::timer && !queue_idle) return;  // a marker would wait for queued work
  TS_ZONE("calibrate device clock", sync);
  Sample s;
  if (!best_sample(kRefreshSamples, s)) return;
  interval_ns_ = std::min(interval_ns_ * 2, kRefreshNs);
  if (s.width > 4 * best_width_ + kWidthSlackNs) {
    last_ns_ = ts::trace::now_ns();
    return;
  }
  add(s);
}

}  // namespace ts::ocl
