// Categorical cross-entropy on softmax outputs, with integer or one-hot labels.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/nn/layer.hpp"

namespace ts {

// Integer class indices [n] from one-hot rows [n, classes]. Throws std::invalid_argument
// naming the row when a row is not exactly one-hot.
std::vector<std::int32_t> labels_from_one_hot(const float* one_hot, std::int64_t n,
                                              std::int64_t classes);

// Device-side buffers and calls of the fused softmax + cross-entropy loss for one model.
class CategoricalCrossentropy {
 public:
  // classes: width of the logits; allocates for up to ctx.max_batch samples.
  void allocate(const LayerContext& ctx, std::int64_t classes);

  // logits [batch, classes], labels [batch] I32 (already on the device).
  // Computes probs, per-sample loss and correctness; returns nothing, see totals().
  void forward(const Tensor& logits, const Tensor& labels);
  // dlogits [batch, classes] = scale/batch * (probs - onehot). Returns a view of its buffer.
  Tensor backward(float scale);
  // Enqueues sums of the last forward's loss and correct flags into out[0], out[1] (F32).
  void totals(const Tensor& out);
  // The last forward's probabilities [batch, classes] F32.
  Tensor probabilities() const { return probs_; }

 private:
  LayerContext ctx_;
  std::int64_t classes_ = 0, batch_ = 0;
  Tensor probs_buf_, loss_buf_, correct_buf_, dlogits_buf_;
  Tensor probs_, loss_, correct_, labels_;
};

}  // namespace ts
