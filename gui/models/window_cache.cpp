#include "gui/models/window_cache.hpp"

namespace ts::gui {

WindowCache::WindowCache(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
                         QObject* parent)
    : QObject(parent),
      loads_(
          this, std::move(path), std::move(snapshot),
          [](const store::Reader& reader, std::int64_t t0, std::int64_t t1) {
            return load_window(reader, t0, t1, kMaxEvents);
          },
          [this](Loads::Result&& r, std::optional<TimeRange> waiting) {
            finished(std::move(r), waiting);
          }) {}

WindowCache::~WindowCache() = default;

const EventWindow* WindowCache::find(std::int64_t t0, std::int64_t t1) const {
  if (current_ && current_->covers(t0, t1)) return current_.get();
  if (previous_ && previous_->covers(t0, t1)) return previous_.get();
  return nullptr;
}

void WindowCache::request(std::int64_t t0, std::int64_t t1) {
  if (find(t0, t1)) return;
  if (refused_ && t0 <= refused_->first && refused_->second <= t1) return;
  loads_.request(t0, t1);
}

void WindowCache::finished(Loads::Result&& r, std::optional<TimeRange> waiting) {
  if (!r.error.isEmpty()) {
    emit failed(r.error);
    return;
  }
  if (r.value) {
    previous_ = std::move(current_);
    current_ = std::make_shared<const EventWindow>(std::move(*r.value));
  } else {
    refused_ = std::pair{r.t0, r.t1};
  }
  if (waiting) request(waiting->first, waiting->second);
  emit loaded();
}

std::uint64_t WindowCache::cached_events() const {
  return (current_ ? current_->events : 0) + (previous_ ? previous_->events : 0);
}

}  // namespace ts::gui
