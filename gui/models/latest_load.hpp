// Loads of a time range on a thread of their own, one at a time, through one Reader of the trace
// opened by the first load: a range asked for while one loads waits, and only the latest waiting
// one is kept. The owner (WindowCache, GapWindows) says what a load computes from the reader and
// takes each result on its own thread, with the range that waited.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "profiler/store/reader.hpp"

namespace ts::gui {

using TimeRange = std::pair<std::int64_t, std::int64_t>;

// A load's result: what it computed over [t0, t1), or the error that stopped it.
template <class T>
struct RangeLoad {
  T value{};
  std::int64_t t0 = 0, t1 = 0;
  QString error;
};

template <class T>
class LatestLoad {
 public:
  using Result = RangeLoad<T>;
  // compute(reader, t0, t1): on the load thread. done(result, waiting): on `owner`'s thread, the
  // range asked for meanwhile (if any) for the owner to request again.
  using Compute = std::function<T(const store::Reader& reader, std::int64_t t0, std::int64_t t1)>;
  using Done = std::function<void(Result&& result, std::optional<TimeRange> waiting)>;

  // snapshot: what the reader reads in place of `path` (store::Reader), or null.
  LatestLoad(QObject* owner, std::string path, std::shared_ptr<const store::Snapshot> snapshot,
             Compute compute, Done done)
      : source_(std::make_shared<Source>()), done_(std::move(done)) {
    source_->path = std::move(path);
    source_->snapshot = std::move(snapshot);
    source_->compute = std::move(compute);
    pool_.setMaxThreadCount(1);  // loads never queue behind the analysis
    QObject::connect(&watcher_, &QFutureWatcher<Result>::finished, owner, [this] { finished(); });
  }
  ~LatestLoad() {
    waiting_.reset();
    watcher_.waitForFinished();
  }
  LatestLoad(const LatestLoad&) = delete;
  LatestLoad& operator=(const LatestLoad&) = delete;

  // Loads [t0, t1) now, or once the running load ends unless that one covers it.
  void request(std::int64_t t0, std::int64_t t1) {
    if (watcher_.isRunning()) {
      if (!(loading_.first <= t0 && t1 <= loading_.second)) waiting_ = TimeRange{t0, t1};
      return;
    }
    loading_ = {t0, t1};
    ++started_;
    std::shared_ptr<Source> source = source_;
    watcher_.setFuture(
        QtConcurrent::run(&pool_, [source, t0, t1] { return source->load(t0, t1); }));
  }
  bool running() const { return watcher_.isRunning(); }
  int started() const { return started_; }
  // Blocks until no load runs or waits, handing each result over (tests, screenshots).
  void wait() {
    do {
      watcher_.waitForFinished();
      finished();
    } while (watcher_.isRunning() || handled_ != started_);
  }

 private:
  // The reader the loads share; one load runs at a time, so one thread uses it at a time.
  struct Source {
    std::string path;
    std::shared_ptr<const store::Snapshot> snapshot;
    Compute compute;
    std::optional<store::Reader> reader;

    Result load(std::int64_t t0, std::int64_t t1) {
      Result r;
      r.t0 = t0;
      r.t1 = t1;
      try {
        if (!reader) reader.emplace(path, snapshot);
        r.value = compute(*reader, t0, t1);
      } catch (const std::exception& e) {
        r.error = QString::fromStdString(e.what());
      }
      return r;
    }
  };

  // Takes a result once, even when wait() took it before the queued signal arrived.
  void finished() {
    if (handled_ == started_ || watcher_.isRunning()) return;
    handled_ = started_;
    std::optional<TimeRange> waiting = std::exchange(waiting_, std::nullopt);
    done_(watcher_.result(), waiting);
  }

  std::shared_ptr<Source> source_;
  Done done_;
  QThreadPool pool_;
  QFutureWatcher<Result> watcher_;
  TimeRange loading_{0, 0};
  int started_ = 0, handled_ = 0;  // loads started and results taken
  std::optional<TimeRange> waiting_;
};

}  // namespace ts::gui
