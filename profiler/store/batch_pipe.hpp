// Items handed from one producing thread to one consuming thread in batches, at most two batches
// waiting: the export reads events on one thread while it writes them as JSON on another; an
// import merges rows on one thread while SQLite stores them on another. Either side can stop the
// other: the producer by fail() (its exception reaches the consumer's next()), the consumer by
// cancel() (the producer's next push() throws BatchPipeCancelled). BatchProducer runs the
// producing side on a thread of its own. The batch a consumer's next() replaces goes back to
// the producer to be filled again: a pipe of millions of items allocates a handful of batches
// (at most six), not one each time (each a large block the allocator would get fresh from the
// system, fault in and zero, and hand back).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

namespace ts::store {

struct BatchPipeCancelled {};

template <class T>
class BatchPipe {
 public:
  explicit BatchPipe(std::size_t batch = 8192) : batch_(batch) { filling_.reserve(batch_); }

  // How many batches were allocated: a handful however many items pass.
  std::size_t batches_made() const {
    const std::lock_guard lock(m_);
    return made_;
  }

  // Producer: adds an item (handed over with its batch when the batch is full).
  void push(const T& item) {
    filling_.push_back(item);
    if (filling_.size() == batch_) hand_over();
  }
  // Producer: hands over what is left; no more items follow.
  void close() {
    hand_over();
    const std::lock_guard lock(m_);
    closed_ = true;
    cv_.notify_all();
  }
  // Producer: ends with an error, rethrown by the consumer's next() once the batches before it
  // were taken.
  void fail(std::exception_ptr error) {
    const std::lock_guard lock(m_);
    error_ = std::move(error);
    closed_ = true;
    cv_.notify_all();
  }

  // Consumer: the next batch into `out` (what `out` held is handed back for reuse); false once
  // the producer closed and every batch was taken. Rethrows the producer's failure.
  bool next(std::vector<T>& out) {
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return !ready_.empty() || closed_; });
    if (ready_.empty()) {
      if (error_) std::rethrow_exception(error_);
      return false;
    }
    if (out.capacity() >= batch_ && spare_.size() < 2) {
      out.clear();
      spare_.push_back(std::move(out));
    }
    out = std::move(ready_.front());
    ready_.pop_front();
    cv_.notify_all();
    return true;
  }
  // Consumer: takes nothing more; the producer stops at its next hand-over.
  void cancel() {
    const std::lock_guard lock(m_);
    cancelled_ = true;
    cv_.notify_all();
  }

 private:
  void hand_over() {
    if (filling_.empty()) return;
    std::unique_lock lock(m_);
    cv_.wait(lock, [&] { return ready_.size() < 2 || cancelled_; });
    if (cancelled_) throw BatchPipeCancelled{};
    ready_.push_back(std::move(filling_));
    cv_.notify_all();
    filling_ = {};
    if (!spare_.empty()) {
      filling_ = std::move(spare_.back());
      spare_.pop_back();
      return;
    }
    ++made_;
    lock.unlock();
    filling_.reserve(batch_);
  }

  const std::size_t batch_;
  std::vector<T> filling_;  // the producer's own
  mutable std::mutex m_;
  std::size_t made_ = 1;  // the first, made by the constructor
  std::condition_variable cv_;
  std::deque<std::vector<T>> ready_;
  std::vector<std::vector<T>> spare_;  // emptied batches the consumer handed back
  bool closed_ = false, cancelled_ = false;
  std::exception_ptr error_;
};

// produce(pipe) run on a thread of its own, pushing items; the calling thread takes them with
// next(). What produce throws reaches next() once the batches before it were taken. Destroyed
// before the end, it cancels the producer and waits for it.
template <class T>
class BatchProducer {
 public:
  template <class Produce>
  explicit BatchProducer(Produce produce, std::size_t batch = 8192)
      : pipe_(batch), thread_([this, produce = std::move(produce)]() mutable {
          try {
            produce(pipe_);
            pipe_.close();
          } catch (const BatchPipeCancelled&) {
          } catch (...) {
            pipe_.fail(std::current_exception());
          }
        }) {}
  ~BatchProducer() {
    pipe_.cancel();
    join();
  }
  BatchProducer(const BatchProducer&) = delete;
  BatchProducer& operator=(const BatchProducer&) = delete;

  // The next batch; false once produce returned and every batch was taken.
  bool next(std::vector<T>& out) { return pipe_.next(out); }
  std::size_t batches_made() const { return pipe_.batches_made(); }
  // Waits for produce to return (after next() answered false: what produce left is then seen).
  void join() {
    if (thread_.joinable()) thread_.join();
  }

 private:
  BatchPipe<T> pipe_;
  std::thread thread_;  // after pipe_: started once the pipe is made
};

}  // namespace ts::store
