#include "profiler/import/common/parallel_files.hpp"

#include <algorithm>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace ts::import {

namespace {

// The state the workers and the consuming thread share, under one mutex.
class InOrderRun {
 public:
  InOrderRun(std::size_t count, std::size_t window, const std::function<void(std::size_t)>& produce)
      : count_(count),
        window_(std::max<std::size_t>(window, 1)),
        produce_(produce),
        done_(count, 0),
        errors_(count) {}

  // A worker: claims the next file while the window has room, produces it, says so.
  void work() {
    for (;;) {
      std::size_t k = 0;
      {
        std::unique_lock lock(mutex_);
        changed_.wait(
            lock, [&] { return stop_ || claimed_ == count_ || claimed_ < consumed_ + window_; });
        if (stop_ || claimed_ == count_) return;
        k = claimed_++;
      }
      std::exception_ptr error;
      try {
        produce_(k);
      } catch (...) {
        error = std::current_exception();
      }
      {
        std::lock_guard lock(mutex_);
        done_[k] = 1;
        errors_[k] = error;
        if (error) stop_ = true;  // files after k are not needed: the run fails at k or before
      }
      changed_.notify_all();
    }
  }

  // Waits until file k is produced; false when the run stopped on an error first.
  bool wait_for(std::size_t k) {
    std::unique_lock lock(mutex_);
    changed_.wait(lock, [&] { return stop_ || done_[k] != 0; });
    return !stop_;
  }

  void consumed(std::size_t k) {
    {
      std::lock_guard lock(mutex_);
      consumed_ = k + 1;
    }
    changed_.notify_all();
  }

  void fail(std::size_t k, std::exception_ptr error) {
    std::lock_guard lock(mutex_);
    errors_[k] = std::move(error);
    stop_ = true;
  }

  void stop() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
  }

  // After the workers are joined: the error of the first file in order that failed.
  std::exception_ptr first_error() const {
    for (const std::exception_ptr& e : errors_)
      if (e) return e;
    return nullptr;
  }

 private:
  const std::size_t count_, window_;
  const std::function<void(std::size_t)>& produce_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::size_t claimed_ = 0;   // files handed to workers (always claimed in file order)
  std::size_t consumed_ = 0;  // files consumed
  bool stop_ = false;
  std::vector<unsigned char> done_;
  std::vector<std::exception_ptr> errors_;
};

// Stops and joins the workers however the consuming loop ends.
class Workers {
 public:
  explicit Workers(InOrderRun& run) : run_(run) {}
  ~Workers() { join(); }
  Workers(const Workers&) = delete;
  Workers& operator=(const Workers&) = delete;

  void start(std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) threads_.emplace_back([this] { run_.work(); });
  }
  void join() {
    run_.stop();
    for (std::thread& t : threads_)
      if (t.joinable()) t.join();
  }

 private:
  InOrderRun& run_;
  std::vector<std::thread> threads_;
};

}  // namespace

void produce_and_consume_in_order(std::size_t count, const InOrderOptions& options,
                                  const std::function<void(std::size_t)>& produce,
                                  const std::function<void(std::size_t)>& consume) {
  if (options.workers == 0 || count < 2) {
    for (std::size_t k = 0; k < count; ++k) {
      produce(k);
      consume(k);
    }
    return;
  }
  InOrderRun run(count, options.window, produce);
  {
    Workers workers(run);
    workers.start(std::min(options.workers, count));
    for (std::size_t k = 0; k < count; ++k) {
      if (!run.wait_for(k)) break;
      try {
        consume(k);
      } catch (...) {
        run.fail(k, std::current_exception());
        break;
      }
      run.consumed(k);
    }
  }  // joined: every claimed file is produced and no worker touches `run` any more
  if (const std::exception_ptr error = run.first_error()) std::rethrow_exception(error);
}

}  // namespace ts::import
