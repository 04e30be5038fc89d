#include "engine/backend/opencl/cl_queue_trace.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "trainscope/trace.hpp"

namespace ts::ocl {

namespace {

constexpr std::int64_t kClampReportNs = 1000;

bool complete(cl_event event) {
  cl_int status = CL_QUEUED;
  if (clGetEventInfo(event, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof(status), &status, nullptr) !=
      CL_SUCCESS)
    return true;  // unreadable: harvest (and skip) it rather than hold it forever
  return status == CL_COMPLETE || status < 0;
}

ts::trace::Category category_of(CommandCategory c) {
  switch (c) {
    case CommandCategory::h2d:
      return ts::trace::Category::h2d;
    case CommandCategory::d2h:
      return ts::trace::Category::d2h;
    case CommandCategory::kernel:
      break;
  }
  return ts::trace::Category::kernel;
}

}  // namespace

QueueTrace::QueueTrace(cl_command_queue queue, DeviceClock* clock, std::string_view track_name,
                       DeviceMemoryCounter* memory)
    : queue_(queue),
      clock_(clock),
      memory_(memory),
      calibrates_(clock != nullptr && clock->queue() == queue),
      track_name_(track_name) {
  if (clock_ != nullptr)
    track_ = ts::trace::register_track(track_name, ts::trace::TrackKind::device_queue);
}

QueueTrace::~QueueTrace() {
  drop_all();
}

void QueueTrace::release(const Record& r) {
  if (r.first != nullptr && r.first != r.last) clReleaseEvent(r.first);
  if (r.last != nullptr) clReleaseEvent(r.last);
}

void QueueTrace::drop_all() {
  for (const Record& r : pending_) release(r);
  pending_.clear();
}

std::uint32_t QueueTrace::name_id(std::string_view name) {
  const auto it = names_.find(name);
  if (it != names_.end()) return it->second;
  return names_.emplace(std::string(name), ts::trace::intern(name)).first->second;
}

CommandToken QueueTrace::begin() {
  // A session without device events is no session here: commands get no event.
  if (!ts::trace::device_event_session()) {
    if (in_session_) {
      in_session_ = false;
      drop_all();
      if (clock_ != nullptr) clock_->end_session();
    }
    return {};
  }
  if (!in_session_) {
    in_session_ = true;
    drop_all();
    last_start_ = last_end_ = std::numeric_limits<std::int64_t>::min();
    clamped_ = clamped_reported_ = 0;
    if (clock_ != nullptr) clock_->ensure_session();
    if (memory_ != nullptr) memory_->sample();
  }
  // A step outside the sample (SessionOptions::device_event_every): host zones only. The session
  // goes on: the clock's calibration, and commands of a sampled step still awaiting harvest.
  if (!ts::trace::device_events()) return {};
  return {ts::trace::next_correlation_id(), 0, ts::trace::current_step()};
}

void QueueTrace::add(const CommandInfo& info, cl_event first, cl_event last,
                     const CommandToken& token) {
  if (last == nullptr) last = first;
  if (first == nullptr) first = last;
  const Record r{.first = first,
                 .last = last,
                 .name = 0,
                 .category = info.category,
                 .bytes = info.bytes,
                 .work_items = info.work_items,
                 .step = token.step,
                 .correlation = token.correlation,
                 .submit_ns = token.submit_ns};
  // Not recorded: no session at enqueue time (or it ended since), or no clock to convert with.
  if (token.correlation == 0 || clock_ == nullptr || last == nullptr || !ts::trace::recording()) {
    release(r);
    return;
  }
  pending_.push_back(r);
  pending_.back().name = name_id(info.name);
  if (pending_.size() > kMaxPending) {
    {
      TS_ZONE("wait for trace backlog", sync);
      clWaitForEvents(1, &pending_.front().last);
    }
    harvest(false);
  } else if (pending_.size() % kHarvestBatch == 0) {
    harvest(false);
  }
}

std::int64_t QueueTrace::observe() noexcept {
  return ts::trace::recording() ? ts::trace::now_ns() : 0;
}

void QueueTrace::harvest(bool drained, std::int64_t observed_ns) {
  if (!ts::trace::recording()) {
    if (!pending_.empty()) drop_all();
    return;
  }
  if (pending_.empty()) {
    if (drained && calibrates_ && in_session_) clock_->refresh(true);
    report_clamped();
    return;
  }
  std::size_t n = pending_.size();
  if (!drained) {
    n = 0;
    while (n < pending_.size() && complete(pending_[n].last)) ++n;
    if (n == 0) return;
  }
  // Taken after the status checks (or the wait): every command counted in n had ended by now.
  const std::int64_t observed = drained && observed_ns != 0 ? observed_ns : ts::trace::now_ns();
  if (calibrates_) clock_->refresh(drained);
  const ts::trace::ClockFit fit = clock_->fit();
  for (std::size_t i = 0; i < n; ++i) {
    emit(pending_[i], fit, observed);
    release(pending_[i]);
  }
  pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(n));
  if (drained) report_clamped();
}

void QueueTrace::report_clamped() {
  if (clamped_ == clamped_reported_) return;
  clamped_reported_ = clamped_;
  ts::trace::set_meta("clock.clamped_events." + track_name_, std::to_string(clamped_));
}

void QueueTrace::emit(const Record& r, const ts::trace::ClockFit& fit, std::int64_t observed_ns) {
  cl_ulong start = 0, end = 0;
  if (clGetEventProfilingInfo(r.first, CL_PROFILING_COMMAND_START, sizeof(start), &start,
                              nullptr) != CL_SUCCESS ||
      clGetEventProfilingInfo(r.last, CL_PROFILING_COMMAND_END, sizeof(end), &end, nullptr) !=
          CL_SUCCESS)
    return;  // failed command: nothing ran
  const std::int64_t fitted_start = fit.to_host(static_cast<std::int64_t>(start));
  const std::int64_t fitted_end = fit.to_host(static_cast<std::int64_t>(end));
  // The fit is good to its pairs' uncertainty (microseconds on PoCL); these bounds are hard:
  // a command starts after it was enqueued and ends before the host saw it complete ...
  std::int64_t s = std::min(std::max(fitted_start, r.submit_ns), observed_ns);
  std::int64_t e = std::max(std::min(fitted_end, observed_ns), s);
  // ... and, on an in-order queue, starts after the previous command ended (and strictly
  // after it started: the store keys events by (start, track)). This one wins: commands seen
  // complete together may pile up at observed_ns, a nanosecond apart.
  if (last_start_ != std::numeric_limits<std::int64_t>::min())
    s = std::max({s, last_end_, last_start_ + 1});
  e = std::max(e, s);
  if (s - fitted_start > kClampReportNs || fitted_end - e > kClampReportNs) ++clamped_;
  last_start_ = s;
  last_end_ = e;
  ts::trace::device_event(track_, category_of(r.category), r.name, s, e, r.bytes, r.work_items,
                          r.step, r.correlation);
}

}  // namespace ts::ocl
