// Report::per_step: every step's figures, packed. A StepSummary is 208 bytes; packed, a step
// costs the figures that its others do not predict, as varints, plus a two-byte offset (tens of
// bytes), so the analysis of millions of steps holds them in a fraction of the memory.
//
// Each step is coded on its own, so step i is decoded wherever it is read (no block to decode
// first): a varint mask of the figures that differ from their prediction, the step number and
// start as deltas from the first step of its chunk of kChunk steps, the duration, each figure
// of the mask as its difference from the prediction, one byte of flags and, only when it is not
// percent(input_ns, dur_ns), the input share's 8 bytes.
// Reading is safe from any number of threads; changing is not.
//
// It reads like a std::vector<StepSummary> whose elements are values: operator[], front(),
// back() and iterators give a decoded copy (`for (const StepSummary& s : table)` reads each step
// once); a step is changed with set(), or every step with update().
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <span>
#include <string>
#include <vector>

#include "profiler/analysis/step_summary.hpp"

namespace ts::analysis {

class StepTable {
 public:
  static constexpr std::size_t kChunk = 64;

  class Iterator {
   public:
    using iterator_category = std::random_access_iterator_tag;
    using iterator_concept = std::random_access_iterator_tag;
    using value_type = StepSummary;
    using difference_type = std::ptrdiff_t;
    using reference = StepSummary;
    struct Arrow {
      StepSummary step;
      const StepSummary* operator->() const { return &step; }
    };
    using pointer = Arrow;

    Iterator() = default;
    Iterator(const StepTable* table, std::size_t i) : table_(table), i_(i) {}
    StepSummary operator*() const { return (*table_)[i_]; }
    Arrow operator->() const { return {**this}; }
    StepSummary operator[](difference_type n) const { return *(*this + n); }
    std::size_t index() const { return i_; }

    Iterator& operator++() { return ++i_, *this; }
    Iterator operator++(int) { return {table_, i_++}; }
    Iterator& operator--() { return --i_, *this; }
    Iterator operator--(int) { return {table_, i_--}; }
    Iterator& operator+=(difference_type n) { return i_ += static_cast<std::size_t>(n), *this; }
    Iterator& operator-=(difference_type n) { return i_ -= static_cast<std::size_t>(n), *this; }
    friend Iterator operator+(Iterator it, difference_type n) { return it += n; }
    friend Iterator operator+(difference_type n, Iterator it) { return it += n; }
    friend Iterator operator-(Iterator it, difference_type n) { return it -= n; }
    friend difference_type operator-(const Iterator& a, const Iterator& b) {
      return static_cast<difference_type>(a.i_) - static_cast<difference_type>(b.i_);
    }
    friend bool operator==(const Iterator& a, const Iterator& b) { return a.i_ == b.i_; }
    friend auto operator<=>(const Iterator& a, const Iterator& b) { return a.i_ <=> b.i_; }

   private:
    const StepTable* table_ = nullptr;
    std::size_t i_ = 0;
  };
  using value_type = StepSummary;
  using size_type = std::size_t;
  using difference_type = std::ptrdiff_t;
  using reference = StepSummary;
  using const_reference = StepSummary;
  using iterator = Iterator;
  using const_iterator = Iterator;

  StepTable() = default;
  StepTable(std::initializer_list<StepSummary> steps) : StepTable(std::span(steps)) {}
  explicit StepTable(std::span<const StepSummary> steps);
  StepTable(const std::vector<StepSummary>& steps)  // NOLINT: packs a list, as tests build them
      : StepTable(std::span<const StepSummary>(steps)) {}

  std::size_t size() const { return offsets_.size(); }
  bool empty() const { return offsets_.empty(); }
  StepSummary operator[](std::size_t i) const;  // i < size()
  StepSummary at(std::size_t i) const;          // std::out_of_range past the end
  StepSummary front() const { return (*this)[0]; }
  StepSummary back() const { return (*this)[size() - 1]; }
  Iterator begin() const { return {this, 0}; }
  Iterator end() const { return {this, size()}; }

  void push_back(const StepSummary& s);
  void append(const StepTable& later);
  void set(std::size_t i, const StepSummary& s);  // i < size(); packs the table again
  // fn(StepSummary&) on every step, in order, the table packed again once: each page of the old
  // packing is freed as soon as it is read, so the two are never held whole together (fn must
  // not throw: the table would be left without the pages already read).
  template <class Fn>
  void update(Fn&& fn) {
    StepTable out;
    out.reserve(size());
    for (std::size_t c = 0; c < chunks_.size(); ++c) {
      const std::size_t last = std::min(size(), (c + 1) * kChunk);
      for (std::size_t i = c * kChunk; i < last; ++i) {
        StepSummary s = (*this)[i];
        fn(s);
        out.push_back(s);
      }
      if (c + 1 == chunks_.size() || chunks_[c + 1].page != chunks_[c].page)
        pages_[chunks_[c].page] = std::string();
    }
    out.shrink_to_fit();
    *this = std::move(out);
  }
  void reserve(std::size_t steps);
  void clear();
  void shrink_to_fit();
  std::vector<StepSummary> to_vector() const;  // decoded, for the few who need them whole
  std::size_t memory_bytes() const;            // what it holds, capacity included

  friend bool operator==(const StepTable& a, const StepTable& b);

 private:
  // A chunk's bytes lie in one page, from `begin`.
  struct Chunk {
    std::uint32_t page = 0, begin = 0;
    // Its first step's, the base of its deltas and what its rank and epoch are taken to be.
    std::int64_t step = 0, start_ns = 0;
    int rank_index = 0, epoch = 0;
  };
  void encode(const StepSummary& s, const Chunk& c, std::string& out) const;
  void new_page();
  // The most bytes a step's code takes: its mask, number, start and time, every figure (10
  // bytes each at most), the flags and the share's 8 bytes.
  static constexpr std::size_t kMostStepBytes = 10 * 4 + 10 * 22 + 1 + 8;

  // The coded steps in pages of kPageBytes, each allocated once (growing never copies the
  // table, and update() frees the old one a page at a time).
  static constexpr std::size_t kPageBytes = std::size_t{1} << 18;
  std::vector<std::string> pages_;
  std::vector<std::uint16_t> offsets_;  // each step's, from its chunk's begin
  std::vector<Chunk> chunks_;           // one per kChunk steps
};

}  // namespace ts::analysis
