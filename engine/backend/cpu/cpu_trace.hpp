// The CPU backend's device timeline. Its ops run synchronously on the calling thread (helped by
// its pool), and each is recorded as a device event on the track "CPU compute" — category
// kernel, uploads h2d and downloads d2h with their bytes — so that traces of both backends have
// the same shape and the analysis needs no special case. While nothing records, an op pays one
// relaxed load and a branch (plus the name's static guard); a session without device events
// (SessionOptions::device_events) records none here either, and a session sampling them
// (SessionOptions::device_event_every) only on its sampled steps.
#pragma once

#include <cstdint>

#include "trainscope/trace.hpp"

namespace ts::cpu {

// Records [construction, destruction) as one device event, timed with now_ns() only while a
// session records.
class OpTrace {
 public:
  OpTrace(std::uint32_t track, std::uint32_t name_id, ts::trace::Category category,
          std::int64_t work_size, std::uint64_t bytes) noexcept {
    if (!ts::trace::device_events()) return;
    track_ = track;
    name_ = name_id;
    category_ = category;
    work_ = work_size > 0 ? static_cast<std::uint64_t>(work_size) : 0;
    bytes_ = bytes;
    start_ = ts::trace::now_ns();
  }
  ~OpTrace() {
    if (track_ != 0)
      ts::trace::device_event(track_, category_, name_, start_, ts::trace::now_ns(), bytes_, work_);
  }
  OpTrace(const OpTrace&) = delete;
  OpTrace& operator=(const OpTrace&) = delete;

 private:
  std::uint32_t track_ = 0;
  std::uint32_t name_ = 0;
  ts::trace::Category category_ = ts::trace::Category::kernel;
  std::uint64_t work_ = 0, bytes_ = 0;
  std::int64_t start_ = 0;
};

}  // namespace ts::cpu

// TS_CPU_OP(track, "relu", kernel, elements, bytes): the rest of the scope is one device event
// named "relu"; the name is interned once per call site.
#define TS_CPU_OP(track, name, cat, work, bytes)                                        \
  static const std::uint32_t TS_UNIQUE_(ts_cpu_op_name_) = ::ts::trace::intern(name);   \
  const ::ts::cpu::OpTrace TS_UNIQUE_(ts_cpu_op_)((track), TS_UNIQUE_(ts_cpu_op_name_), \
                                                  ::ts::trace::Category::cat, (work), (bytes))
