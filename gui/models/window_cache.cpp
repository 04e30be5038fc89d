#include "gui/models/window_cache.hpp"

namespace ts::gui {

// The reader the loads share; one load runs at a time, so one thread uses it at a time.
struct WindowCache::Loader {
  std::string path;
  std::shared_ptr<const store::Snapshot> snapshot;
  std::optional<store::Reader> reader;

  Result load(std::int64_t t0, std::int64_t t1) {
    Result r;
    r.t0 = t0;
    r.t1 = t1;
    try {
      if (!reader) reader.emplace(path, snapshot);
      r.window = load_window(*reader, t0, t1, kMaxEvents);
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }
};

WindowCache::WindowCache(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
                         QObject* parent)
    : QObject(parent),
      loader_(std::make_shared<Loader>()),
      loads_(this, loader_, [this](Result&& r, std::optional<TimeRange> waiting) {
        finished(std::move(r), waiting);
      }) {
  loader_->path = std::move(path);
  loader_->snapshot = std::move(snapshot);
}

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

void WindowCache::finished(Result&& r, std::optional<TimeRange> waiting) {
  if (!r.error.isEmpty()) {
    emit failed(r.error);
    return;
  }
  if (r.window) {
    previous_ = std::move(current_);
    current_ = std::make_shared<const EventWindow>(std::move(*r.window));
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
