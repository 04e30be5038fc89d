#include "engine/nn/sequential.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>

#include "engine/nn/progress.hpp"
#include "engine/nn/shape_layers.hpp"

namespace ts {

namespace {
constexpr std::size_t kTotals = 4;  // loss sum, correct count, non-finite flag, spare
}

Sequential::Sequential(Shape input) : input_(std::move(input)) {}

Sequential& Sequential::add(std::unique_ptr<Layer> layer) {
  if (backend_) throw std::logic_error("layers cannot be added after compile()");
  const Shape& in = outputs_.empty() ? input_ : outputs_.back();
  outputs_.push_back(layer->build(in));
  layers_.push_back(std::move(layer));
  classes_ = outputs_.back().rank() == 1 ? outputs_.back()[0] : 0;
  return *this;
}

void Sequential::compile(Backend& backend, std::unique_ptr<Optimizer> optimizer,
                         const CompileOptions& options) {
  if (layers_.empty() || layers_.back()->type() != "Softmax")
    throw std::invalid_argument(
        "the model must end in a Softmax layer to train with categorical cross-entropy");
  if (outputs_.back().rank() != 1)
    throw std::invalid_argument("the model's output must be [classes] per sample");
  backend_ = &backend;
  options_ = options;
  optimizer_ = std::move(optimizer);

  std::vector<std::vector<ParamSpec>> specs;
  for (const auto& layer : layers_) specs.push_back(layer->params());
  const DType storage = options.precision == Precision::Mixed ? DType::F16 : DType::F32;
  params_.build(backend, specs, storage, options.seed);
  for (std::size_t l = 0; l < layers_.size(); ++l)
    if (!specs[l].empty())
      layers_[l]->bind_params(params_.compute_views(l), params_.gradient_views(l));
  optimizer_->allocate(backend, std::max<std::int64_t>(params_.count(), 1));
  totals_ = backend.alloc(Shape{static_cast<std::int64_t>(kTotals)}, DType::F32);
  capacity_ = 0;
}

void Sequential::ensure_capacity(std::int64_t batch) {
  if (!backend_) throw std::logic_error("compile() the model before training it");
  if (batch <= capacity_) return;
  LayerContext ctx{backend_, options_.precision == Precision::Mixed ? DType::F16 : DType::F32,
                   batch};
  for (auto& layer : layers_) layer->allocate(ctx);
  loss_.allocate(ctx, classes_);
  input_buf_ = alloc_batch(ctx, input_, ctx.storage);
  labels_buf_ = alloc_batch(ctx, Shape{}, DType::I32);
  capacity_ = batch;
}

void Sequential::check_dataset(const Dataset& data) const {
  const Shape sample{data.height, data.width, data.channels};
  if (sample.numel() != input_.numel())
    throw std::invalid_argument("the dataset's samples are " + sample.str() +
                                " but the model expects " + input_.str());
  if (data.classes > classes_)
    throw std::invalid_argument("the dataset has " + std::to_string(data.classes) +
                                " classes but the model outputs " + std::to_string(classes_));
}

Tensor Sequential::upload_batch(const HostBatch& batch) {
  if (batch.size <= 0) throw std::invalid_argument("empty batch");
  if (static_cast<std::int64_t>(batch.images.size()) < batch.size * input_.numel() ||
      static_cast<std::int64_t>(batch.labels.size()) < batch.size)
    throw std::invalid_argument("batch holds fewer values than its size says");
  for (std::int64_t i = 0; i < batch.size; ++i)
    if (batch.labels[static_cast<std::size_t>(i)] < 0 ||
        batch.labels[static_cast<std::size_t>(i)] >= classes_)
      throw std::invalid_argument("label " + std::to_string(batch.labels[static_cast<std::size_t>(i)]) +
                                  " is outside the model's " + std::to_string(classes_) +
                                  " classes");
  ensure_capacity(batch.size);
  Tensor x = batch_view(input_buf_, batch.size, input_);
  if (x.dtype == DType::F16) {  // mixed precision: half the bytes cross the bus
    half_staging_.resize(static_cast<std::size_t>(x.numel()));
    for (std::size_t i = 0; i < half_staging_.size(); ++i)
      half_staging_[i] = float_to_half(batch.images[i]);
    backend_->upload(x, half_staging_.data());
  } else {
    backend_->upload(x, batch.images.data());
  }
  backend_->upload(labels_buf_.view(0, Shape{batch.size}), batch.labels.data());
  return x;
}

Tensor Sequential::forward_logits(const Tensor& x, bool training) {
  Tensor h = x;
  for (std::size_t l = 0; l + 1 < layers_.size(); ++l) h = layers_[l]->forward(h, training);
  return h;
}

StepResult Sequential::read_totals(std::int64_t samples, bool check_finite) {
  float host[kTotals] = {0, 0, 0, 0};
  if (!check_finite) backend_->fill(totals_.view(2, Shape{1}), 0.0f);
  backend_->download(totals_, host);
  StepResult r;
  r.loss_sum = host[0];
  r.correct = host[1];
  r.samples = samples;
  r.applied = host[2] == 0.0f;
  return r;
}

StepResult Sequential::train_step(const HostBatch& batch) {
  const Tensor x = upload_batch(batch);
  const Tensor labels = labels_buf_.view(0, Shape{batch.size});
  loss_.forward(forward_logits(x, true), labels);

  const bool mixed = options_.precision == Precision::Mixed;
  const float scale = mixed ? loss_scale_.scale() : 1.0f;
  Tensor dy = loss_.backward(scale);
  for (std::size_t l = layers_.size() - 1; l-- > 0;) dy = layers_[l]->backward(dy, l > 0);

  loss_.totals(totals_);
  if (!mixed) {
    optimizer_->apply(params_.master(), params_.gradients());
    return read_totals(batch.size, false);
  }
  // Unscale the gradients and learn whether they are finite before deciding to apply them.
  backend_->scale_and_check_finite(params_.gradients(), 1.0f / scale, totals_.view(2, Shape{1}));
  StepResult r = read_totals(batch.size, true);
  r.applied = loss_scale_.update(r.applied);
  if (r.applied) {
    optimizer_->apply(params_.master(), params_.gradients());
    params_.sync_compute();
  }
  return r;
}

StepResult Sequential::test_step(const HostBatch& batch) {
  const Tensor x = upload_batch(batch);
  loss_.forward(forward_logits(x, false), labels_buf_.view(0, Shape{batch.size}));
  loss_.totals(totals_);
  return read_totals(batch.size, false);
}

FitResult Sequential::fit(const Dataset& data, const FitOptions& options) {
  check_dataset(data);
  if (options.epochs < 1) throw std::invalid_argument("epochs must be at least 1");
  if (options.batch_size < 1) throw std::invalid_argument("batch size must be at least 1");
  Batcher batcher(data, options.batch_size, options.shuffle, options.seed);
  HostBatch batch;
  FitResult result;
  std::unique_ptr<ProgressLine> progress;
  if (options.progress)
    progress = std::make_unique<ProgressLine>(*options.progress, options.progress_is_terminal);
  const auto fit_start = std::chrono::steady_clock::now();
  std::int64_t total_samples = 0;
  for (int epoch = 0; epoch < options.epochs; ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    batcher.start_epoch(epoch);
    if (progress) progress->begin_epoch(epoch + 1, options.epochs, batcher.batches_per_epoch());
    double loss_sum = 0, correct = 0;
    std::int64_t samples = 0, step = 0;
    while (batcher.next(batch)) {
      const StepResult r = train_step(batch);
      loss_sum += r.loss_sum;
      correct += r.correct;
      samples += r.samples;
      if (progress) progress->update(++step, loss_sum / samples, correct / samples);
    }
    EpochStats stats;
    stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_start).count();
    stats.samples = samples;
    stats.loss = samples ? loss_sum / samples : 0.0;
    stats.accuracy = samples ? correct / samples : 0.0;
    if (progress) progress->end_epoch(stats.seconds, stats.loss, stats.accuracy);
    result.epochs.push_back(stats);
    total_samples += samples;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_start).count();
  result.samples_per_s = seconds > 0 ? static_cast<double>(total_samples) / seconds : 0.0;
  result.skipped_steps = loss_scale_.skipped_steps();
  result.final_loss_scale = options_.precision == Precision::Mixed ? loss_scale_.scale() : 1.0f;
  return result;
}

EvalResult Sequential::evaluate(const Dataset& data, std::int64_t batch_size) {
  check_dataset(data);
  Batcher batcher(data, batch_size, false, 0);
  batcher.start_epoch(0);
  HostBatch batch;
  EvalResult result;
  double loss_sum = 0, correct = 0;
  while (batcher.next(batch)) {
    const StepResult r = test_step(batch);
    loss_sum += r.loss_sum;
    correct += r.correct;
    result.samples += r.samples;
  }
  if (result.samples) {
    result.loss = loss_sum / result.samples;
    result.accuracy = correct / result.samples;
  }
  return result;
}

std::string Sequential::summary() const {
  std::ostringstream s;
  s << std::left << std::setw(28) << "Layer" << std::setw(18) << "Output shape" << "Params\n";
  std::int64_t total = 0;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    std::int64_t n = 0;
    for (const auto& p : layers_[l]->params()) n += p.shape.numel();
    total += n;
    s << std::setw(28) << layers_[l]->describe() << std::setw(18) << outputs_[l].str() << n
      << "\n";
  }
  s << "Total params: " << total << "\n";
  return s.str();
}

}  // namespace ts
