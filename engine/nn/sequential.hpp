// A Keras-like Sequential model: add layers, compile with an optimizer and a precision policy,
// then train_step / fit / evaluate on in-memory datasets.
#pragma once

#include <atomic>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

#include "engine/data/batcher.hpp"
#include "engine/data/dataset.hpp"
#include "engine/data/pipeline/pipeline.hpp"
#include "engine/dist/communicator.hpp"
#include "engine/dist/gradient_reducer.hpp"
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
  double loss_sum = 0;  // summed over the batch's samples
  double correct = 0;   // samples whose argmax matched the label
  std::int64_t samples = 0;
  bool applied = true;  // false when mixed precision skipped the update (inf/NaN gradients)
};

struct EpochStats {
  double loss = 0, accuracy = 0, seconds = 0;
  std::int64_t samples = 0;
};

// Data parallelism (engine/dist): every rank runs fit() with the same model, seed and options on
// its shard of the data (PipelineOptions::shard_index/shard_count). fit() first copies rank 0's
// weights to every rank; each step averages the gradients over the ranks (weighted by each rank's
// share of the step's samples) before the optimizer, so the weights stay identical; epoch
// figures are the job's. Only fit(Pipeline&) trains in parallel.
struct DataParallel {
  dist::Communicator* comm = nullptr;  // null, or a job of one rank: a single process
  dist::AllreduceMode allreduce = dist::AllreduceMode::blocking;
  std::size_t bucket_bytes = dist::GradientReducer::kDefaultBucketBytes;
};

struct FitOptions {
  int epochs = 1;
  std::int64_t batch_size = 32;
  bool shuffle = true;
  std::uint64_t seed = 1;             // shuffling
  std::ostream* progress = nullptr;   // Keras-style progress output; null = silent
  bool progress_is_terminal = false;  // update one line in place instead of one per epoch
  // Checked before every step: when it becomes true, fit() returns after the current step
  // (Ctrl-C, early stopping). The pipeline's threads are stopped by its owner.
  // With data parallelism the ranks agree on it every few steps and stop together.
  const std::atomic<bool>* stop = nullptr;
  // Ends the fit after this many training steps over all epochs (0: every epoch's steps), as a
  // step budget does: not an early stop.
  std::int64_t max_steps = 0;
  DataParallel data_parallel;
};

struct FitResult {
  std::vector<EpochStats> epochs;
  double samples_per_s = 0;  // over the whole fit
  std::int64_t skipped_steps = 0;
  float final_loss_scale = 1.0f;
  std::int64_t steps = 0;      // training steps run (over all epochs)
  bool stopped_early = false;  // FitOptions::stop ended the run
  // The mean loss per sample over the last kRecentLossSteps steps (fewer in a shorter run): where
  // training stands at its end, comparable between runs of the same steps and any batch size.
  double recent_loss = 0;
  static constexpr int kRecentLossSteps = 32;
  int world_size = 1;        // ranks that trained together
  dist::ReduceStats reduce;  // the gradient allreduce, when world_size > 1
  // Host time spent copying gradients between the device and host memory for the allreduce,
  // after the device finished backward (zero on the CPU backend, which reduces its gradient
  // buffer in place).
  double gradient_copy_seconds = 0;
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

  // Trains on an in-memory dataset (batches gathered on this thread, shuffled per epoch with
  // options.seed): the in-memory upper bound of the input pipeline.
  FitResult fit(const Dataset& data, const FitOptions& options);
  // Trains on batches from an input pipeline (its batch size and shuffling apply; options'
  // batch_size, shuffle and seed are ignored). With input.options().prefetch_to_device, the
  // next batch is copied to the device on the backend's copy queue while the current step
  // computes (two input buffers, used in turn).
  FitResult fit(Pipeline& input, const FitOptions& options);
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
  // Data parallelism: copies rank 0's weights to every rank (collective).
  void broadcast_parameters(dist::Communicator& comm);
  // FNV-1a hash of the f32 master weights.
  std::uint64_t parameter_checksum() const;
  // Collective: throws dist::AgreedError naming the ranks whose weights differ from rank 0's.
  void verify_replicas(dist::Communicator& comm) const;

  // Keras-like table of layers, output shapes and parameter counts.
  std::string summary() const;

 private:
  void ensure_capacity(std::int64_t batch);
  // Checks a host batch against the model (sizes, label range).
  void check_batch(const HostBatch& batch) const;
  // Copies a host batch into input buffer `slot` (0 or 1): images [size, input...] (converted to
  // f16 under mixed precision) and labels [size]. With async, on the backend's copy queue; the
  // returned tickets must be waited for (wait_staged) before compute reads the slot.
  struct Staged {
    std::int64_t size = 0;
    UploadTicket images, labels;
  };
  Staged stage_batch(const HostBatch& batch, int slot, bool async);
  void wait_staged(const Staged& staged);
  // Enqueues forward, backward, the gradient allreduce (data parallelism) and (fp32) the
  // optimizer for the batch staged in `slot`.
  void enqueue_train(int slot, std::int64_t size);
  // Data parallelism, a rank with no sample in this step: zero gradients into the allreduce, then
  // the same update as every other rank.
  void enqueue_empty_step();
  // After the gradients are final: the optimizer (fp32) or unscaling and the finite check (mixed).
  void enqueue_update(float loss_scale);
  // The gradient allreduce around backward (no-ops without data parallelism).
  void reduce_begin();
  void reduce_layer_done(std::size_t layer);
  void reduce_finish();
  void copy_gradients(std::int64_t from, std::int64_t to, bool to_host);
  // Waits for the step's totals and, under mixed precision, applies the update if finite.
  StepResult finish_train(std::int64_t size);
  Tensor input_view(int slot, std::int64_t size) const;
  // What the fit loop needs from a batch producer (a Batcher or a Pipeline).
  struct BatchFeed {
    std::int64_t batches_per_epoch = 0;
    std::function<void(int epoch)> start_epoch;
    std::function<bool(HostBatch&)> next;
    bool prefetch_to_device = false;
    // Data parallelism: the samples of a step of the epoch over all ranks, and whether that is
    // exact (with skip_bad it is not: the ranks then add up their batch sizes every step).
    std::function<std::int64_t(std::int64_t step)> step_samples;
    bool exact_step_samples = true;
  };
  FitResult fit_loop(const BatchFeed& feed, const FitOptions& options);
  Tensor labels_view(int slot, std::int64_t size) const;
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
  Tensor input_buf_[2], labels_buf_[2];  // two slots: the step's batch and the next one's
  Tensor totals_;                        // [4] F32: loss sum, correct, non-finite flag
  std::vector<std::uint16_t> half_staging_;

  // Data parallelism, while fit() runs with several ranks.
  dist::Communicator* comm_ = nullptr;
  std::unique_ptr<dist::GradientReducer> reducer_;
  float share_ = 1.0f;                // this rank's weight in the step's average
  float* reduce_host_ = nullptr;      // the gradients in host memory
  std::vector<float> host_grads_;     // their host copy, for a device backend
  std::int64_t downloaded_from_ = 0;  // host_grads_[downloaded_from_, count) hold this step's
  double copy_seconds_ = 0;
};

}  // namespace ts
