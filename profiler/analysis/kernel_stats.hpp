// Kernel statistics (profiler/analysis/README.md): per kernel name, over every `kernel` event of
// the trace on a device queue — count, total, mean, min, max and share of the summed kernel time.
// Events are accumulated per label id while scanning (no string work per event) and merged by name
// at the end, since several labels may share a name.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "profiler/analysis/intervals.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::analysis {

class KernelTable {
 public:
  void add(std::uint32_t label, std::int64_t dur_ns) {
    Acc& a = acc(label);
    if (a.count == 0 || dur_ns < a.min) a.min = dur_ns;
    if (a.count == 0 || dur_ns > a.max) a.max = dur_ns;
    ++a.count;
    a.total = sat_add(a.total, dur_ns);
  }
  // Adds another table's figures (a parallel pass: each thread fills its own).
  void merge(const KernelTable& other);
  // The table by name, largest total first (ties by name, so the order is deterministic).
  std::vector<KernelStat> finish(const std::function<std::string_view(std::uint32_t)>& name) const;

 private:
  struct Acc {
    std::int64_t count = 0, total = 0, min = 0, max = 0;
  };
  // Label ids are handed out from 1 up: the small ones (every real trace's) index an array, a
  // lookup a kernel without hashing; larger ones (a hostile file's) go to a map.
  static constexpr std::uint32_t kDenseLabels = 1u << 16;
  Acc& acc(std::uint32_t label) {
    if (label >= kDenseLabels) return sparse_[label];
    if (label >= dense_.size()) dense_.resize(std::size_t{label} + 1);
    return dense_[label];
  }
  // Calls fn(label, acc) for every label with a kernel.
  template <class Fn>
  void each(Fn&& fn) const {
    for (std::uint32_t label = 0; label < dense_.size(); ++label)
      if (dense_[label].count > 0) fn(label, dense_[label]);
    for (const auto& [label, a] : sparse_)
      if (a.count > 0) fn(label, a);
  }
  std::vector<Acc> dense_;
  std::unordered_map<std::uint32_t, Acc> sparse_;
};

}  // namespace ts::analysis
