// Loads of a time range on a thread of their own, one at a time: a range asked for while one
// loads waits, and only the latest waiting one is kept. The owner (WindowCache, GapWindows) says
// what a load computes and takes each result on its own thread, with the range that waited.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QThreadPool>
#include <QtConcurrent/QtConcurrentRun>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace ts::gui {

using TimeRange = std::pair<std::int64_t, std::int64_t>;

template <class Result>
class LatestLoad {
 public:
  // load(t0, t1): on the load thread. done(result, waiting): on `owner`'s thread, the range asked
  // for meanwhile (if any) for the owner to request again.
  using Load = std::function<Result(std::int64_t t0, std::int64_t t1)>;
  using Done = std::function<void(Result&& result, std::optional<TimeRange> waiting)>;

  LatestLoad(QObject* owner, Load load, Done done)
      : load_(std::move(load)), done_(std::move(done)) {
    pool_.setMaxThreadCount(1);  // loads never queue behind the analysis
    QObject::connect(&watcher_, &QFutureWatcher<Result>::finished, owner, [this] { finished(); });
  }
  // load: loader->load(t0, t1), the loader shared with the loads still running.
  template <class Loader>
  LatestLoad(QObject* owner, std::shared_ptr<Loader> loader, Done done)
      : LatestLoad(
            owner, [loader](std::int64_t t0, std::int64_t t1) { return loader->load(t0, t1); },
            std::move(done)) {}
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
    watcher_.setFuture(QtConcurrent::run(&pool_, [this, t0, t1] { return load_(t0, t1); }));
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
  // Takes a result once, even when wait() took it before the queued signal arrived.
  void finished() {
    if (handled_ == started_ || watcher_.isRunning()) return;
    handled_ = started_;
    std::optional<TimeRange> waiting = std::exchange(waiting_, std::nullopt);
    done_(watcher_.result(), waiting);
  }

  Load load_;
  Done done_;
  QThreadPool pool_;
  QFutureWatcher<Result> watcher_;
  TimeRange loading_{0, 0};
  int started_ = 0, handled_ = 0;  // loads started and results taken
  std::optional<TimeRange> waiting_;
};

}  // namespace ts::gui
