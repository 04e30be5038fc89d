#include "profiler/store/overview_feed.hpp"

namespace ts::store {

OverviewFeed::OverviewFeed(const TimeRange& extent, const std::vector<Track>& tracks)
    : extent_(extent), builder_(std::in_place, extent, tracks, out_), pipe_(32768), thread_([this] {
        std::vector<Event> batch;
        for (;;) {
          try {
            if (!pipe_.next(batch)) return;
          } catch (...) {  // wait() could not close the pipe and failed it
            failed_ = true;
            return;
          }
          if (failed_) continue;  // drained, so the writer never waits on a builder that stopped
          try {
            for (const Event& e : batch) builder_->take(e);
          } catch (...) {
            failed_ = true;
          }
        }
      }) {}

OverviewFeed::~OverviewFeed() {
  wait();
}

void OverviewFeed::wait() noexcept {
  if (waited_) return;
  waited_ = true;
  try {
    pipe_.close();
  } catch (...) {
    failed_ = true;
    pipe_.fail(std::current_exception());  // closes the pipe: the thread ends
  }
  if (thread_.joinable()) thread_.join();
}

std::optional<Overview> OverviewFeed::finish(const Reader& reader) {
  wait();
  const TimeRange range = reader.time_range();
  if (failed_ || range.start_ns != extent_.start_ns || range.end_ns != extent_.end_ns)
    return std::nullopt;
  out_.counters = read_counters(reader);
  builder_->publish(
      out_, [&](std::uint32_t id) -> const Label& { return reader.label(id); }, true);
  builder_.reset();
  used_ = true;
  return std::move(out_);
}

}  // namespace ts::store
