// A SampleSource for pipeline tests: sample i is [h, w, 1] with value(i, p) at pixel p, label
// i % classes. It can fail on chosen indices, cost a chosen time per sample, and counts loads.
#pragma once

#include <atomic>
#include <chrono>
#include <set>
#include <string>
#include <thread>

#include "engine/data/pipeline/sample_source.hpp"

namespace ts::test {

class FakeSource final : public SampleSource {
 public:
  FakeSource(std::int64_t count, std::int64_t side = 4, int classes = 10)
      : count_(count), side_(side), classes_(classes) {}

  static float value(std::int64_t index, std::int64_t pixel) {
    return static_cast<float>((index * 31 + pixel * 7) % 1000) / 1000.0f;
  }

  std::int64_t count() const override { return count_; }
  SampleShape shape() const override { return {side_, side_, 1, classes_}; }
  std::int32_t label(std::int64_t index) const override {
    return static_cast<std::int32_t>(index % classes_);
  }
  void load(std::int64_t index, SourceScratch&, float* out) const override {
    loads_.fetch_add(1);
    if (cost_.count() > 0) std::this_thread::sleep_for(cost_);
    if (bad_.count(index)) throw DatasetError("file '" + describe(index) + "' is corrupt");
    for (std::int64_t p = 0; p < side_ * side_; ++p) out[p] = value(index, p);
  }
  bool in_memory() const override { return false; }
  std::string describe(std::int64_t index) const override {
    return "fake/" + std::to_string(index) + ".png";
  }
  std::string description() const override {
    return "fake source " + std::to_string(count_) + " " + std::to_string(side_);
  }

  std::set<std::int64_t> bad_;
  std::chrono::microseconds cost_{0};
  mutable std::atomic<std::int64_t> loads_{0};

 private:
  std::int64_t count_, side_;
  int classes_;
};

}  // namespace ts::test
