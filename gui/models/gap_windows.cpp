#include "gui/models/gap_windows.hpp"

#include <QtConcurrent/QtConcurrentRun>

#include "profiler/analysis/window_gaps.hpp"

namespace ts::gui {

// The reader the loads share; one load runs at a time, so one thread uses it at a time.
struct GapWindows::Loader {
  std::string path;
  std::shared_ptr<const store::Snapshot> snapshot;
  analysis::AnalysisOptions options;
  std::optional<store::Reader> reader;

  Result load(std::int64_t t0, std::int64_t t1) {
    Result r;
    r.t0 = t0;
    r.t1 = t1;
    try {
      if (!reader) reader.emplace(path, snapshot);
      r.gaps = std::make_shared<const GapRow>(
          make_gap_row(analysis::idle_gaps_in(*reader, {t0, t1}, options)));
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }
};

GapWindows::GapWindows(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
                       analysis::AnalysisOptions options, QObject* parent)
    : QObject(parent), loader_(std::make_shared<Loader>()) {
  loader_->path = std::move(path);
  loader_->snapshot = std::move(snapshot);
  loader_->options = std::move(options);
  pool_.setMaxThreadCount(1);
  connect(&watcher_, &QFutureWatcher<Result>::finished, this, &GapWindows::finished);
}

GapWindows::~GapWindows() {
  waiting_.reset();
  watcher_.waitForFinished();
}

std::shared_ptr<const GapRow> GapWindows::find(std::int64_t t0, std::int64_t t1) const {
  if (current_ && current_t0_ <= t0 && t1 <= current_t1_) return current_;
  return nullptr;
}

void GapWindows::request(std::int64_t t0, std::int64_t t1) {
  if (find(t0, t1)) return;
  if (watcher_.isRunning()) {
    if (!(loading_t0_ <= t0 && t1 <= loading_t1_)) waiting_ = {t0, t1};
    return;
  }
  start(t0, t1);
}

void GapWindows::start(std::int64_t t0, std::int64_t t1) {
  loading_t0_ = t0;
  loading_t1_ = t1;
  ++started_;
  std::shared_ptr<Loader> loader = loader_;
  watcher_.setFuture(QtConcurrent::run(&pool_, [loader, t0, t1] { return loader->load(t0, t1); }));
}

void GapWindows::finished() {
  if (handled_ == started_ || watcher_.isRunning()) return;
  handled_ = started_;
  Result r = watcher_.result();  // a shared row: a cheap copy
  if (!r.error.isEmpty()) {
    waiting_.reset();
    emit failed(r.error);
    return;
  }
  current_ = std::move(r.gaps);
  current_t0_ = r.t0;
  current_t1_ = r.t1;
  if (waiting_) {
    const auto [t0, t1] = *waiting_;
    waiting_.reset();
    request(t0, t1);
  }
  emit loaded();
}

void GapWindows::wait() {
  do {
    watcher_.waitForFinished();
    finished();
  } while (watcher_.isRunning() || handled_ != started_);
}

}  // namespace ts::gui
