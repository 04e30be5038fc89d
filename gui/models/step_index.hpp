// The trace's steps as the viewer asks for them, left in the file: read once on opening, in time
// order, keeping their count, their extent and every kSampleEvery-th step, so that how many steps
// a view spans, the steps around it and a step by its number are each a short read of step_span
// (a range of its primary key or of its index by number), not a search of every step held (a
// 100 M-event trace has 2.2 M steps, 71 MB as a list).
//
// A damaged file whose b-tree returns steps out of order, or one twice, is the exception: its
// steps are held, sorted (Reader::steps()), and every answer comes from them.
//
// Uses the reader it was made with: the GUI thread's (TraceSession::reader()).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <utility>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

// The opening's other uses of the one pass over the steps (the whole step row, the initial
// view): add() each step in time order; restart() when the file returned them out of order and
// they come again from the start, sorted, and fewer when some were repeated.
class StepConsumer {
 public:
  virtual ~StepConsumer() = default;
  virtual void add(const store::Step& s) = 0;
  virtual void restart(std::size_t count) = 0;  // count: how many steps come
};

class StepIndex {
 public:
  static constexpr std::size_t kSampleEvery = 256;

  StepIndex() = default;
  // Reads every step of `reader`'s trace once, handing each to `also` too. `reader` must outlive
  // this index.
  StepIndex(const store::Reader& reader, StepConsumer& also);

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  // The steps' time extent: the first start to the last end; nullopt without steps.
  std::optional<std::pair<std::int64_t, std::int64_t>> extent() const { return extent_; }
  // How many steps start before t, and in [t0, t1).
  std::size_t starting_before(std::int64_t t) const;
  std::size_t starting_in(std::int64_t t0, std::int64_t t1) const;
  // The step at `index` in time order (index < size()).
  store::Step at(std::size_t index) const;
  // The last step starting before t0 (it may reach into [t0, t1)) and every step starting in
  // [t0, t1), in time order.
  std::vector<store::Step> from_before(std::int64_t t0, std::int64_t t1) const;
  // The first step (in time order) numbered `number`.
  std::optional<store::Step> numbered(std::int64_t number) const;
  // The steps from `before` ahead of the first numbered `number` (the middle step when none is,
  // or `number` is not given) to `after` behind it, in time order, and where that step is among
  // them; no steps without steps.
  struct Around {
    std::vector<store::Step> steps;
    std::size_t centre = 0;
  };
  Around around(std::optional<std::int64_t> number, std::size_t before, std::size_t after) const;
  // Calls fn with each step numbered first..last (time order; any order from a damaged file).
  void each_numbered(std::int64_t first, std::int64_t last,
                     const std::function<void(const store::Step&)>& fn) const;

 private:
  const store::Reader* reader_ = nullptr;
  std::size_t size_ = 0;
  std::optional<std::pair<std::int64_t, std::int64_t>> extent_;
  std::vector<store::Step> samples_;  // step i * kSampleEvery
  std::vector<store::Step> held_;     // a damaged file's steps, sorted
  bool holds_ = false;
};

}  // namespace ts::gui
