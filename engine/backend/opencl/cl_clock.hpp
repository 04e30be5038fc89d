// One OpenCL device's profiling clock aligned with the trace's host clock: every timestamp
// in a trace is nanoseconds on the capturing process's monotonic clock, device times included.
//
// A sample is a device time and the host interval it must have happened in; the midpoint is
// the pair fed to ts::trace::ClockAligner, half the width its uncertainty. Two ways to sample:
// - clGetDeviceAndHostTimer (OpenCL >= 2.1) bracketed by ts::trace::now_ns(). Its own host
//   timestamp is on the driver's host clock, not necessarily ours, so it is not used; the
//   device timestamp is trusted only after a marker sample agrees with it.
// - A marker on the calibration queue: its END lies between now_ns() before the enqueue and
//   after the wait; its QUEUED time (taken by the runtime during the enqueue call, in device
//   time) lies between now_ns() before and after the enqueue. The two offset intervals are
//   intersected — much tighter — unless they disagree (a driver with a QUEUED clock of its own).
// PoCL 3.1 has no clGetDeviceAndHostTimer (CL_INVALID_OPERATION), so it uses markers.
#pragma once

#include <cstdint>
#include <string>

#include "engine/backend/opencl/cl_api.hpp"
#include "trainscope/clock_align.hpp"

namespace ts::ocl {

class DeviceClock {
 public:
  // `queue`: an in-order profiling queue on `device` for markers (the compute queue).
  // `name`: the device name used in the trace's meta keys (clock.device.<name>.*).
  DeviceClock(cl_device_id device, cl_command_queue queue, std::string name);

  // The fit for converting device times (an identity before the first calibration).
  const ts::trace::ClockFit& fit() const { return fit_; }
  cl_command_queue queue() const { return queue_; }

  // A queue saw recording start: unless the clock is calibrated for this session already (by
  // the device's other queue), forget the previous session's pairs and calibrate now, then
  // measure the host cost of a device event (cl_event_cost.hpp). Waits for the calibration
  // queue (clFinish) inside `sync` zones.
  void ensure_session();
  // A queue saw recording stop: the next ensure_session() calibrates afresh.
  void end_session() { in_session_ = false; }
  // Calibrates now, in any case (what ensure_session does once per session).
  void start_session();
  // Re-measures when due (250 ms after the session's calibration, doubling up to every 2 s).
  // `queue_idle`: the calibration queue was just waited for, so a marker costs one round trip;
  // otherwise only the timer method can measure without blocking on queued work.
  void refresh(bool queue_idle);

  // The widest host interval among the fit's pairs: the fit is good to about half of it.
  std::int64_t bracket_ns() const { return max_width_; }

  enum class Method { none, timer, marker, marker_queued };
  Method method() const { return method_; }
  static const char* method_name(Method m);

 private:
  struct Sample {
    std::int64_t device = 0;
    std::int64_t host = 0;   // the midpoint of the host interval
    std::int64_t width = 0;  // of the host interval: the pair is good to +- width / 2
  };
  bool timer_sample(Sample& out) const;
  bool marker_sample(Sample& out, bool& queued_agreed) const;
  // The narrowest of `count` samples of the current method; false if none could be taken.
  bool best_sample(int count, Sample& best);
  void add(const Sample& s);

  cl_device_id device_;
  cl_command_queue queue_;
  std::string name_;
  bool timer_available_;  // OpenCL >= 2.1 and not yet refused
  Method method_ = Method::none;
  bool in_session_ = false;
  ts::trace::ClockAligner aligner_;
  ts::trace::ClockFit fit_;
  std::int64_t best_width_ = 0;  // narrowest sample of the session: refreshes far wider are dropped
  std::int64_t max_width_ = 0;   // widest pair in the fit (meta bracket_ns)
  std::int64_t last_ns_ = 0;
  std::int64_t interval_ns_ = 0;
};

}  // namespace ts::ocl
