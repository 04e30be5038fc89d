// Dynamic loss scaling for mixed precision (TensorFlow's LossScaleOptimizer policy): start at
// 2^15; a step whose gradients hold inf/NaN is skipped and the scale halved; after
// growth_interval finite steps in a row the scale doubles.
#pragma once

#include <cstdint>

namespace ts {

class DynamicLossScale {
 public:
  explicit DynamicLossScale(float initial = 32768.0f, std::int64_t growth_interval = 2000)
      : scale_(initial), growth_interval_(growth_interval) {}

  float scale() const { return scale_; }
  std::int64_t skipped_steps() const { return skipped_; }

  // Records one step's outcome; returns true when its update should be applied.
  bool update(bool gradients_finite) {
    if (!gradients_finite) {
      ++skipped_;
      good_steps_ = 0;
      if (scale_ > 1.0f) scale_ *= 0.5f;
      return false;
    }
    if (++good_steps_ >= growth_interval_) {
      good_steps_ = 0;
      if (scale_ < 16777216.0f) scale_ *= 2.0f;
    }
    return true;
  }

 private:
  float scale_;
  std::int64_t growth_interval_, good_steps_ = 0, skipped_ = 0;
};

}  // namespace ts
