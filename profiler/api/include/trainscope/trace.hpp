// trainscope's instrumentation API: zones, steps, counters, thread names and device events.
//
//   TS_ZONE("forward", host_compute);            // RAII zone: from here to the end of the scope
//   TS_ZONE_ARGS("copy batch", h2d, bytes, step); // a zone carrying bytes and a step number
//   TS_ZONE_VAR(z, "enqueue gemm", launch);       // a named zone, then:
//   TS_ZONE_CORRELATION(z, id);                   //   its correlation id (launch <-> device event)
//   TS_ZONE_BYTES(z, n); TS_ZONE_STEP(z, s);      //   its bytes, its step
//   TS_STEP(n);                                   // scoped step (or TS_STEP_BEGIN/TS_STEP_END)
//   TS_COUNTER("prefetch fill", queue.size());    // one sample of a value time series
//   TS_THREAD_NAME("input worker 1");             // names this thread's track
//   TS_DEVICE_EVENT(queue_track, Category::kernel, name_id, start_ns, end_ns, 0, work, step);
//
// Categories may be written bare (`kernel`) or qualified (`ts::trace::Category::kernel`).
// Zone names must be string literals: their metadata (name, category, file, line) is a
// `static constexpr` object per call site, so a recorded zone costs two timestamps and one
// 32-byte slot in a per-thread ring. While no session records, a zone costs one relaxed atomic
// load and a branch. With TRAINSCOPE_TRACE_DISABLED defined before this header, every TS_ macro
// expands to nothing (its arguments are not evaluated), the uses of a named zone included: set
// a named zone's arguments with the TS_ZONE_* macros, never by calling the variable, so code
// compiles both ways (CMake: -DTRAINSCOPE_WITH_TRACING=OFF).
//
// Sessions are started by ts::trace::start() (trainscope/session.hpp, link trainscope::trace)
// or by setting TRAINSCOPE_TRACE=FILE in the environment of a program linking it.
#pragma once

#include <atomic>
#include <cstdint>
#include <ctime>
#include <string_view>

#include "trainscope/session.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::trace {

// Metadata of one zone call site. Lives in static storage for the life of the program.
struct Site {
  const char* name;
  Category category;
  const char* file;
  std::uint32_t line;
};

// Metadata of one TS_COUNTER call site; samples with the same name share one counter track.
struct CounterSite {
  const char* name;
};

// Step arguments: the step running now (set by TS_STEP_BEGIN), or no step at all.
inline constexpr std::int64_t kCurrentStep = -1;
inline constexpr std::int64_t kNoStep = -2;

// Optional arguments of a zone or device event. Zero bytes / work / correlation mean "none".
struct EventArgs {
  std::uint64_t bytes = 0;
  std::int64_t step = kCurrentStep;
  std::uint64_t correlation = 0;
};

namespace detail {

// The only state the hot path reads: kOff while no session records, else the clock the
// session's timestamps come from.
inline constexpr std::uint32_t kOff = 0;
inline constexpr std::uint32_t kTsc = 1;        // raw rdtsc ticks, converted by the writer
inline constexpr std::uint32_t kMonotonic = 2;  // CLOCK_MONOTONIC nanoseconds
extern std::atomic<std::uint32_t> g_state;
// Whether the session records device events (SessionOptions::device_events).
extern std::atomic<bool> g_device_events;
// Whether the current step is one of the sampled steps that record device events
// (SessionOptions::device_event_every); set by step_begin(), true outside sampling.
extern std::atomic<bool> g_device_step_sampled;

// Lets TS_ macros take a category bare (`kernel`) or qualified, and nothing else.
constexpr Category category_arg(Category c) noexcept {
  return c;
}

inline std::uint32_t state() noexcept {
  return g_state.load(std::memory_order_relaxed);
}

inline std::uint64_t monotonic_ns() noexcept {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<std::uint64_t>(ts.tv_sec) * 1000000000u +
         static_cast<std::uint64_t>(ts.tv_nsec);
}

inline std::uint64_t ticks(std::uint32_t state) noexcept {
#if defined(__x86_64__) || defined(__i386__)
  if (state == kTsc) return __builtin_ia32_rdtsc();
#endif
  (void)state;
  return monotonic_ns();
}

// Out-of-line halves of the recording path (profiler/capture/core).
void end_zone(const Site* site, std::uint64_t start) noexcept;
void end_zone_args(const Site* site, std::uint64_t start, const EventArgs& args) noexcept;
void end_zone_dynamic(std::uint32_t name_id, Category category, std::uint64_t start,
                      const EventArgs& args) noexcept;
void emit_counter(const CounterSite* site, double value) noexcept;
void emit_counter_track(std::uint32_t track, double value) noexcept;
void emit_device(std::uint32_t track, Category category, std::uint32_t name_id,
                 std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes,
                 std::uint64_t work_size, std::int64_t step, std::uint64_t correlation) noexcept;

}  // namespace detail

// True while a session records.
inline bool recording() noexcept {
  return detail::state() != detail::kOff;
}

// True while a session records and wants device events (SessionOptions::device_events), whether
// or not the current step is sampled: a device backend keeps its per-session state (clock
// calibration, commands awaiting harvest) while this holds.
inline bool device_event_session() noexcept {
  return recording() && detail::g_device_events.load(std::memory_order_relaxed);
}

// True while a session records and wants device events for a command enqueued now: the session
// wants them and the current step is sampled (SessionOptions::device_event_every). Device
// backends create what a command's device timestamps need (an OpenCL event) only then; the
// device event carries the step current at enqueue. Read by the enqueueing thread: a command
// another thread enqueues right at a step boundary may follow the neighbouring step's choice.
inline bool device_events() noexcept {
  return device_event_session() && detail::g_device_step_sampled.load(std::memory_order_relaxed);
}

// A device backend's measured host cost of one device event (ns per command: creating, querying
// and releasing its timestamps), at session start. Written as meta capture.device_event_cost_ns;
// SessionOptions::kDeviceEventEveryAuto chooses the sampling from it.
void set_device_event_cost(double ns_per_command) noexcept;

// Nanoseconds on the clock every stored timestamp uses (the host's monotonic clock). Backends
// measure device clock offsets against this (see trainscope/clock_align.hpp).
std::int64_t now_ns() noexcept;

// Interns a string (a kernel name, a dynamic zone name) and returns its id, stable for the life
// of the process. Takes a lock: call it once per name, not per event.
std::uint32_t intern(std::string_view text);

// Returns the id of the track with this name and kind, creating it on first use. Device
// backends register one track per queue ("GPU0 compute"); counters get theirs automatically.
std::uint32_t register_track(std::string_view name, TrackKind kind);

// Names the calling thread's track. Works before, during and between sessions.
void set_thread_name(std::string_view name);

// Sets a key of the trace's meta table (device names, engine configuration, ...). Keys set
// before a session starts are written when it starts.
void set_meta(std::string_view key, std::string_view value);

// A process-wide unique id linking a host zone (e.g. a launch) to the device events it caused.
std::uint64_t next_correlation_id() noexcept;

// Steps: every event that ends between step_begin(n) and step_end(n) carries step n unless it
// names its own step. step_end records the step itself as an event of category `step`.
void step_begin(std::int64_t step) noexcept;
void step_end(std::int64_t step) noexcept;
std::int64_t current_step() noexcept;  // kNoStep outside steps

// A device interval whose timestamps are already on the host clock (nanoseconds). bytes and
// work_size of 0 mean "not applicable". Cheap no-op while no session records.
inline void device_event(std::uint32_t track, Category category, std::uint32_t name_id,
                         std::int64_t start_ns, std::int64_t end_ns, std::uint64_t bytes = 0,
                         std::uint64_t work_size = 0, std::int64_t step = kCurrentStep,
                         std::uint64_t correlation = 0) noexcept {
  if (recording())
    detail::emit_device(track, category, name_id, start_ns, end_ns, bytes, work_size, step,
                        correlation);
}

// One sample of a counter track made by register_track(name, TrackKind::counter).
inline void counter(std::uint32_t track, double value) noexcept {
  if (recording()) detail::emit_counter_track(track, value);
}
inline void counter(const CounterSite* site, double value) noexcept {
  if (recording()) detail::emit_counter(site, value);
}

// RAII zone with static metadata: records [construction, destruction) on this thread's track.
class Zone {
 public:
  explicit Zone(const Site* site) noexcept {
    const std::uint32_t s = detail::state();
    if (s != detail::kOff) {
      site_ = site;
      start_ = detail::ticks(s);
    }
  }
  ~Zone() {
    if (site_ != nullptr) detail::end_zone(site_, start_);
  }
  Zone(const Zone&) = delete;
  Zone& operator=(const Zone&) = delete;

 private:
  const Site* site_ = nullptr;
  std::uint64_t start_ = 0;
};

// A zone that also carries bytes, a step number and/or a correlation id.
class ZoneArgs {
 public:
  explicit ZoneArgs(const Site* site, std::uint64_t bytes = 0, std::int64_t step = kCurrentStep,
                    std::uint64_t correlation = 0) noexcept
      : args_{bytes, step, correlation} {
    const std::uint32_t s = detail::state();
    if (s != detail::kOff) {
      site_ = site;
      start_ = detail::ticks(s);
    }
  }
  ~ZoneArgs() {
    if (site_ != nullptr) detail::end_zone_args(site_, start_, args_);
  }
  ZoneArgs(const ZoneArgs&) = delete;
  ZoneArgs& operator=(const ZoneArgs&) = delete;

  void set_bytes(std::uint64_t bytes) noexcept { args_.bytes = bytes; }
  void set_step(std::int64_t step) noexcept { args_.step = step; }
  void set_correlation(std::uint64_t id) noexcept { args_.correlation = id; }
  bool active() const noexcept { return site_ != nullptr; }

 private:
  const Site* site_ = nullptr;
  std::uint64_t start_ = 0;
  EventArgs args_;
};

// A zone whose name is only known at run time (a layer name): name_id comes from intern().
class DynamicZone {
 public:
  DynamicZone(std::uint32_t name_id, Category category, EventArgs args = {}) noexcept
      : name_id_(name_id), category_(category), args_(args) {
    const std::uint32_t s = detail::state();
    if (s != detail::kOff) {
      active_ = true;
      start_ = detail::ticks(s);
    }
  }
  ~DynamicZone() {
    if (active_) detail::end_zone_dynamic(name_id_, category_, start_, args_);
  }
  DynamicZone(const DynamicZone&) = delete;
  DynamicZone& operator=(const DynamicZone&) = delete;

  void set_bytes(std::uint64_t bytes) noexcept { args_.bytes = bytes; }
  void set_step(std::int64_t step) noexcept { args_.step = step; }
  void set_correlation(std::uint64_t id) noexcept { args_.correlation = id; }

 private:
  std::uint32_t name_id_;
  Category category_;
  bool active_ = false;
  std::uint64_t start_ = 0;
  EventArgs args_;
};

// TS_STEP(n): step_begin(n) now, step_end(n) at scope exit.
class StepScope {
 public:
  explicit StepScope(std::int64_t step) noexcept : step_(step) { step_begin(step); }
  ~StepScope() { step_end(step_); }
  StepScope(const StepScope&) = delete;
  StepScope& operator=(const StepScope&) = delete;

 private:
  std::int64_t step_;
};

}  // namespace ts::trace

#define TS_CONCAT_INNER_(a, b) a##b
#define TS_CONCAT_(a, b) TS_CONCAT_INNER_(a, b)
#define TS_UNIQUE_(prefix) TS_CONCAT_(prefix, __LINE__)
// Accepts `kernel` as well as `ts::trace::Category::kernel`.
#define TS_CATEGORY_(cat)                          \
  ([]() constexpr {                                \
    using enum ::ts::trace::Category;              \
    return ::ts::trace::detail::category_arg(cat); \
  }())
#define TS_SITE_(var, name, cat) \
  static constexpr ::ts::trace::Site var = {name, TS_CATEGORY_(cat), __FILE__, __LINE__}

#if defined(TRAINSCOPE_TRACE_DISABLED)

#define TS_ZONE(name, cat)
#define TS_ZONE_ARGS(name, cat, bytes, step)
#define TS_ZONE_VAR(var, name, cat)
#define TS_ZONE_CORRELATION(var, id) static_cast<void>(0)
#define TS_ZONE_BYTES(var, bytes) static_cast<void>(0)
#define TS_ZONE_STEP(var, step) static_cast<void>(0)
#define TS_ZONE_DYNAMIC(name_id, cat)
#define TS_STEP(n)
#define TS_STEP_BEGIN(n) static_cast<void>(0)
#define TS_STEP_END(n) static_cast<void>(0)
#define TS_COUNTER(name, value) static_cast<void>(0)
#define TS_THREAD_NAME(name) static_cast<void>(0)
#define TS_DEVICE_EVENT(...) static_cast<void>(0)
#define TS_META(key, value) static_cast<void>(0)

#else

#define TS_ZONE(name, cat)                   \
  TS_SITE_(TS_UNIQUE_(ts_site_), name, cat); \
  ::ts::trace::Zone TS_UNIQUE_(ts_zone_)(&TS_UNIQUE_(ts_site_))
#define TS_ZONE_ARGS(name, cat, bytes, step) \
  TS_SITE_(TS_UNIQUE_(ts_site_), name, cat); \
  ::ts::trace::ZoneArgs TS_UNIQUE_(ts_zone_)(&TS_UNIQUE_(ts_site_), (bytes), (step))
#define TS_ZONE_VAR(var, name, cat)          \
  TS_SITE_(TS_UNIQUE_(ts_site_), name, cat); \
  ::ts::trace::ZoneArgs var(&TS_UNIQUE_(ts_site_))
#define TS_ZONE_CORRELATION(var, id) (var).set_correlation(id)
#define TS_ZONE_BYTES(var, bytes) (var).set_bytes(bytes)
#define TS_ZONE_STEP(var, step) (var).set_step(step)
#define TS_ZONE_DYNAMIC(name_id, cat)                            \
  ::ts::trace::DynamicZone TS_UNIQUE_(ts_zone_)((name_id), [&] { \
    using enum ::ts::trace::Category;                            \
    return ::ts::trace::detail::category_arg(cat);               \
  }())
#define TS_STEP(n) ::ts::trace::StepScope TS_UNIQUE_(ts_step_)(n)
#define TS_STEP_BEGIN(n) ::ts::trace::step_begin(n)
#define TS_STEP_END(n) ::ts::trace::step_end(n)
#define TS_COUNTER(name, value)                                          \
  do {                                                                   \
    static constexpr ::ts::trace::CounterSite ts_counter_site_{name};    \
    ::ts::trace::counter(&ts_counter_site_, static_cast<double>(value)); \
  } while (0)
#define TS_THREAD_NAME(name) ::ts::trace::set_thread_name(name)
#define TS_DEVICE_EVENT(...) ::ts::trace::device_event(__VA_ARGS__)
#define TS_META(key, value) ::ts::trace::set_meta((key), (value))

#endif
