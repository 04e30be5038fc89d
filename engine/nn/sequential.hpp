// A Keras-like Sequential model: add layers, compile with an optimizer and a precision policy,
// then train_step / fit / evaluate on in-memory datasets.
#pragma once

#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/batcher.hpp"
#include "engine/data/dataset.hpp"
#include "engine/nn/layer.hpp"
#include "engine/nn/loss.hpp"
#include "engine/nn/loss_scale.hpp"
#include "engine/nn/optimizer.hpp"
#include "engine/nn/parameters.hpp"

namespace ts {

enum class Precision { FP32, Mixed };

struct CompileOptions {
  Precision precision = Precision::FP32;
  std::uint64_t seed = 1;  // weight initialisation
};

struct StepResult {
  double loss_sum = 0;     // summed over the batch's samples
  double correct = 0;      // samples whose argmax matched the label
  std::int64_t samples = 0;
  bool applied = true;     // false when mixed precision skipped the update (inf/NaN gradients)
};

struct EpochStats {
  double loss = 0, accuracy = 0, seconds = 0;
  std::int64_t samples = 0;
};

struct FitOptions {
  int epochs = 1;
  std::int64_t batch_size = 32;
  bool shuffle = true;
  std::uint64_t seed = 1;                  // shuffling
  std::ostream* progress = nullptr;        // Keras-style progress output; null = silent
  bool progress_is_terminal = false;       // update one line in place instead of one per epoch
};

struct FitResult {
  std::vector<EpochStats> epochs;
  double samples_per_s = 0;  // over the whole fit
  std::int64_t skipped_steps = 0;
  float final_loss_scale = 1.0f;
};

struct EvalResult {
  double loss = 0, accuracy = 0;
  std::int64_t samples = 0;
};

class Sequential {
 public:
  // input: per-sample input shape, e.g. [28, 28, 1].
  explicit Sequential(Shape input);
  Sequential(const Sequential&) = delete;
  Sequential& operator=(const Sequential&) = delete;

  // Appends a layer; throws std::invalid_argument when it does not fit the previous output.
  Sequential& add(std::unique_ptr<Layer> layer);

  // Binds the model to a backend: allocates and initialises parameters and optimizer state.
  // The model must end in a Softmax layer (trained fused with categorical cross-entropy).
  void compile(Backend& backend, std::unique_ptr<Optimizer> optimizer,
               const CompileOptions& options);

  // One training step on a host batch: images [size, input...], labels [size] in [0, classes).
  StepResult train_step(const HostBatch& batch);
  // Forward + loss without updating: the same sums as train_step.
  StepResult test_step(const HostBatch& batch);

  FitResult fit(const Dataset& data, const FitOptions& options);
  EvalResult evaluate(const Dataset& data, std::int64_t batch_size = 256);

  // Throws std::invalid_argument when the dataset's sample shape or classes don't fit.
  void check_dataset(const Dataset& data) const;

  const Shape& input_shape() const { return input_; }
  std::int64_t classes() const { return classes_; }
  ParameterStore& parameters() { return params_; }
  const std::vector<std::unique_ptr<Layer>>& layers() const { return layers_; }
  Precision precision() const { return options_.precision; }
  const DynamicLossScale& loss_scale() const { return loss_scale_; }
  Backend& backend() const { return *backend_; }
  // Keras-like table of layers, output shapes and parameter counts.
  std::string summary() const;

 private:
  void ensure_capacity(std::int64_t batch);
  // Uploads a host batch; returns the input view [size, input...].
  Tensor upload_batch(const HostBatch& batch);
  // Runs the layers before the final Softmax: x -> logits.
  Tensor forward_logits(const Tensor& x, bool training);
  StepResult read_totals(std::int64_t samples, bool check_finite);

  Shape input_;
  std::vector<std::unique_ptr<Layer>> layers_;
  std::vector<Shape> outputs_;  // per-sample output shape of each layer
  std::int64_t classes_ = 0;

  Backend* backend_ = nullptr;
  CompileOptions options_;
  std::unique_ptr<Optimizer> optimizer_;
  ParameterStore params_;
  CategoricalCrossentropy loss_;
  DynamicLossScale loss_scale_;
  std::int64_t capacity_ = 0;
  Tensor input_buf_, labels_buf_, totals_;  // totals_ [4] F32: loss sum, correct, non-finite flag
  std::vector<std::uint16_t> half_staging_;
};

}  // namespace ts
