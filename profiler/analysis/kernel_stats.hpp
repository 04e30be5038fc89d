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
    if (label != last_label_ || last_ == nullptr) {
      last_ = &by_label_[label];
      last_label_ = label;
    }
    Acc& a = *last_;
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
  // unordered_map keeps element addresses stable across inserts, so last_ stays valid.
  std::unordered_map<std::uint32_t, Acc> by_label_;
  std::uint32_t last_label_ = 0;
  Acc* last_ = nullptr;
};

}  // namespace ts::analysis
