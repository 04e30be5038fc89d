#include "engine/nn/loss.hpp"

#include <stdexcept>
#include <string>

namespace ts {

std::vector<std::int32_t> labels_from_one_hot(const float* one_hot, std::int64_t n,
                                              std::int64_t classes) {
  std::vector<std::int32_t> labels(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    int hot = -1;
    for (std::int64_t c = 0; c < classes; ++c) {
      const float v = one_hot[i * classes + c];
      if (v == 1.0f && hot < 0) {
        hot = static_cast<int>(c);
      } else if (v != 0.0f) {
        hot = -2;
        break;
      }
    }
    if (hot < 0)
      throw std::invalid_argument("label row " + std::to_string(i) +
                                  " is not one-hot (exactly one 1, the rest 0)");
    labels[static_cast<std::size_t>(i)] = hot;
  }
  return labels;
}

void CategoricalCrossentropy::allocate(const LayerContext& ctx, std::int64_t classes) {
  ctx_ = ctx;
  classes_ = classes;
  probs_buf_ = alloc_batch(ctx, Shape{classes}, DType::F32);
  loss_buf_ = alloc_batch(ctx, Shape{}, DType::F32);
  correct_buf_ = alloc_batch(ctx, Shape{}, DType::F32);
  dlogits_buf_ = alloc_batch(ctx, Shape{classes}, ctx.storage);
}

void CategoricalCrossentropy::forward(const Tensor& logits, const Tensor& labels) {
  batch_ = logits.shape[0];
  probs_ = batch_view(probs_buf_, batch_, Shape{classes_});
  loss_ = loss_buf_.view(0, Shape{batch_});
  correct_ = correct_buf_.view(0, Shape{batch_});
  labels_ = labels;
  ctx_.backend->softmax_xent(logits, labels, probs_, loss_, correct_);
}

Tensor CategoricalCrossentropy::backward(float scale) {
  Tensor dlogits = batch_view(dlogits_buf_, batch_, Shape{classes_});
  ctx_.backend->softmax_xent_backward(probs_, labels_, scale / static_cast<float>(batch_), dlogits);
  return dlogits;
}

void CategoricalCrossentropy::totals(const Tensor& out) {
  ctx_.backend->sum(loss_, out.view(0, Shape{1}));
  ctx_.backend->sum(correct_, out.view(1, Shape{1}));
}

}  // namespace ts
