#include "engine/dist/gradient_reducer.hpp"

#include <algorithm>
#include <chrono>
#include <stdexcept>
#include <trainscope/trace.hpp>

namespace ts::dist {

namespace {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

// Adds the time from construction to destruction to `total`.
class Exposed {
 public:
  explicit Exposed(std::int64_t& total) : total_(total), start_(steady_ns()) {}
  ~Exposed() { total_ += steady_ns() - start_; }
  Exposed(const Exposed&) = delete;
  Exposed& operator=(const Exposed&) = delete;

 private:
  std::int64_t& total_;
  std::int64_t start_;
};

void scale(float* data, std::size_t n, float factor) {
  if (factor == 1.0f) return;
  for (std::size_t i = 0; i < n; ++i) data[i] *= factor;
}

}  // namespace

AllreduceMode parse_allreduce_mode(const std::string& text) {
  if (text == "blocking") return AllreduceMode::blocking;
  if (text == "bucketed") return AllreduceMode::bucketed;
  throw std::invalid_argument("--allreduce must be blocking or bucketed, not '" + text + "'");
}

const char* mode_name(AllreduceMode mode) {
  return mode == AllreduceMode::blocking ? "blocking" : "bucketed";
}

GradientReducer::GradientReducer(Communicator& comm, AllreduceMode mode, std::size_t bucket_bytes)
    : comm_(comm),
      mode_(mode),
      bucket_floats_(std::max<std::size_t>(1, bucket_bytes / sizeof(float))) {}

void GradientReducer::begin(float* data, std::size_t n, float pre_scale, float post_scale) {
  data_ = data;
  n_ = n;
  unstarted_end_ = n;
  pre_scale_ = pre_scale;
  post_scale_ = post_scale;
}

void GradientReducer::start(std::size_t from, std::size_t to) {
  const std::size_t count = to - from;
  TS_ZONE_ARGS("allreduce gradient bucket", collective, count * sizeof(float),
               ts::trace::kCurrentStep);
  scale(data_ + from, count, pre_scale_);
  comm_.start_allreduce(data_ + from, count);
  ++stats_.buckets;
  stats_.bytes += static_cast<std::int64_t>(count * sizeof(float));
}

void GradientReducer::ready(std::size_t from) {
  if (mode_ != AllreduceMode::bucketed || data_ == nullptr) return;
  const Exposed timed(stats_.exposed_ns);
  from = std::min(from, n_);
  if (from < unstarted_end_ && unstarted_end_ - from >= bucket_floats_) {
    start(from, unstarted_end_);
    unstarted_end_ = from;
  }
  if (unstarted_end_ < n_) {
    TS_ZONE("allreduce progress", collective);
    comm_.progress();
  }
}

void GradientReducer::finish() {
  if (data_ == nullptr) return;
  const Exposed timed(stats_.exposed_ns);
  if (mode_ == AllreduceMode::blocking) {
    TS_ZONE_ARGS("allreduce gradients", collective, n_ * sizeof(float), ts::trace::kCurrentStep);
    scale(data_, n_, pre_scale_);
    comm_.allreduce(data_, n_, post_scale_);
    ++stats_.buckets;
    stats_.bytes += static_cast<std::int64_t>(n_ * sizeof(float));
  } else {
    if (unstarted_end_ > 0) start(0, unstarted_end_);
    {
      TS_ZONE("allreduce wait", collective);
      comm_.wait_all();
    }
    scale(data_, n_, post_scale_);
  }
  ++stats_.steps;
  data_ = nullptr;
}

}  // namespace ts::dist
