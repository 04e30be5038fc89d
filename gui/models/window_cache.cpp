#include "gui/models/window_cache.hpp"

#include <QtConcurrent/QtConcurrentRun>

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
    : QObject(parent), loader_(std::make_shared<Loader>()) {
  loader_->path = std::move(path);
  loader_->snapshot = std::move(snapshot);
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<Result>::finished, this, &WindowCache::finished);
}

WindowCache::~WindowCache() {
  waiting_.reset();
  watcher_.waitForFinished();
}

const EventWindow* WindowCache::find(std::int64_t t0, std::int64_t t1) const {
  if (current_ && current_->covers(t0, t1)) return current_.get();
  if (previous_ && previous_->covers(t0, t1)) return previous_.get();
  return nullptr;
}

void WindowCache::request(std::int64_t t0, std::int64_t t1) {
  if (find(t0, t1)) return;
  if (refused_ && t0 <= refused_->first && refused_->second <= t1) return;
  if (watcher_.isRunning()) {
    if (!(loading_t0_ <= t0 && t1 <= loading_t1_)) waiting_ = {t0, t1};
    return;
  }
  start(t0, t1);
}

void WindowCache::start(std::int64_t t0, std::int64_t t1) {
  loading_t0_ = t0;
  loading_t1_ = t1;
  ++started_;
  std::shared_ptr<Loader> loader = loader_;
  watcher_.setFuture(QtConcurrent::run(&pool_, [loader, t0, t1] { return loader->load(t0, t1); }));
}

void WindowCache::finished() {
  if (handled_ == started_ || watcher_.isRunning()) return;
  handled_ = started_;
  Result r = watcher_.result();
  if (!r.error.isEmpty()) {
    waiting_.reset();
    emit failed(r.error);
    return;
  }
  if (r.window) {
    previous_ = std::move(current_);
    current_ = std::make_shared<const EventWindow>(std::move(*r.window));
  } else {
    refused_ = std::pair{r.t0, r.t1};
  }
  if (waiting_) {
    const auto [t0, t1] = *waiting_;
    waiting_.reset();
    request(t0, t1);
  }
  emit loaded();
}

void WindowCache::wait() {
  // Takes the result now, even of a load that finished before this call; the queued finished
  // signal then finds nothing new. A waiting request starts meanwhile: loop until none is left.
  do {
    watcher_.waitForFinished();
    finished();
  } while (watcher_.isRunning() || handled_ != started_);
}

std::uint64_t WindowCache::cached_events() const {
  return (current_ ? current_->events : 0) + (previous_ ? previous_->events : 0);
}

}  // namespace ts::gui
