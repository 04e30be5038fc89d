#include "engine/nn/sequential.hpp"

#include <chrono>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <trainscope/trace.hpp>

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
  for (int slot = 0; slot < 2; ++slot) {
    input_buf_[slot] = alloc_batch(ctx, input_, ctx.storage);
    labels_buf_[slot] = alloc_batch(ctx, Shape{}, DType::I32);
  }
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

void Sequential::check_batch(const HostBatch& batch) const {
  if (batch.size <= 0) throw std::invalid_argument("empty batch");
  if (static_cast<std::int64_t>(batch.images.size()) < batch.size * input_.numel() ||
      static_cast<std::int64_t>(batch.labels.size()) < batch.size)
    throw std::invalid_argument("batch holds fewer values than its size says");
  for (std::int64_t i = 0; i < batch.size; ++i) {
    const std::int32_t label = batch.labels[static_cast<std::size_t>(i)];
    if (label < 0 || label >= classes_)
      throw std::invalid_argument("label " + std::to_string(label) + " is outside the model's " +
                                  std::to_string(classes_) + " classes");
  }
}

Tensor Sequential::input_view(int slot, std::int64_t size) const {
  return batch_view(input_buf_[slot], size, input_);
}

Tensor Sequential::labels_view(int slot, std::int64_t size) const {
  return labels_buf_[slot].view(0, Shape{size});
}

Sequential::Staged Sequential::stage_batch(const HostBatch& batch, int slot, bool async) {
  check_batch(batch);
  ensure_capacity(batch.size);
  const Tensor x = input_view(slot, batch.size);
  const Tensor labels = labels_view(slot, batch.size);
  const void* images = batch.images.data();
  if (x.dtype == DType::F16) {  // mixed precision: half the bytes cross the bus
    TS_ZONE("convert batch to f16", host_compute);
    half_staging_.resize(static_cast<std::size_t>(x.numel()));
    for (std::size_t i = 0; i < half_staging_.size(); ++i)
      half_staging_[i] = float_to_half(batch.images[i]);
    images = half_staging_.data();
  }
  Staged staged;
  staged.size = batch.size;
  if (async) {
    staged.images = backend_->upload_async(x, images);
    staged.labels = backend_->upload_async(labels, batch.labels.data());
  } else {
    backend_->upload(x, images);
    backend_->upload(labels, batch.labels.data());
  }
  return staged;
}

void Sequential::wait_staged(const Staged& staged) {
  backend_->wait_upload(staged.images);
  backend_->wait_upload(staged.labels);
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

void Sequential::enqueue_train(int slot, std::int64_t size) {
  loss_.forward(forward_logits(input_view(slot, size), true), labels_view(slot, size));
  const bool mixed = options_.precision == Precision::Mixed;
  const float scale = mixed ? loss_scale_.scale() : 1.0f;
  Tensor dy = loss_.backward(scale);
  for (std::size_t l = layers_.size() - 1; l-- > 0;) dy = layers_[l]->backward(dy, l > 0);
  loss_.totals(totals_);
  if (!mixed) {
    TS_ZONE("optimizer", optimizer);
    optimizer_->apply(params_.master(), params_.gradients());
    return;
  }
  // Unscale the gradients and learn whether they are finite before deciding to apply them.
  backend_->scale_and_check_finite(params_.gradients(), 1.0f / scale, totals_.view(2, Shape{1}));
}

StepResult Sequential::finish_train(std::int64_t size) {
  if (options_.precision != Precision::Mixed) return read_totals(size, false);
  StepResult r = read_totals(size, true);
  r.applied = loss_scale_.update(r.applied);
  if (r.applied) {
    TS_ZONE("optimizer", optimizer);
    optimizer_->apply(params_.master(), params_.gradients());
    params_.sync_compute();
  }
  return r;
}

StepResult Sequential::train_step(const HostBatch& batch) {
  const Staged staged = stage_batch(batch, 0, false);
  enqueue_train(0, staged.size);
  return finish_train(staged.size);
}

StepResult Sequential::test_step(const HostBatch& batch) {
  const Staged staged = stage_batch(batch, 0, false);
  loss_.forward(forward_logits(input_view(0, staged.size), false), labels_view(0, staged.size));
  loss_.totals(totals_);
  return read_totals(batch.size, false);
}

FitResult Sequential::fit(const Dataset& data, const FitOptions& options) {
  check_dataset(data);
  if (options.batch_size < 1) throw std::invalid_argument("batch size must be at least 1");
  Batcher batcher(data, options.batch_size, options.shuffle, options.seed);
  BatchFeed feed;
  feed.batches_per_epoch = batcher.batches_per_epoch();
  feed.start_epoch = [&](int epoch) { batcher.start_epoch(epoch); };
  feed.next = [&](HostBatch& b) { return batcher.next(b); };
  return fit_loop(feed, options);
}

FitResult Sequential::fit(Pipeline& input, const FitOptions& options) {
  const SampleShape shape = input.shape();
  Dataset probe;  // shape only, for check_dataset's messages
  probe.height = shape.height;
  probe.width = shape.width;
  probe.channels = shape.channels;
  probe.classes = shape.classes;
  check_dataset(probe);
  BatchFeed feed;
  feed.batches_per_epoch = input.batches_per_epoch();
  feed.start_epoch = [&](int epoch) { input.start_epoch(epoch); };
  feed.next = [&](HostBatch& b) { return input.next(b); };
  feed.prefetch_to_device = input.options().prefetch_to_device;
  return fit_loop(feed, options);
}

namespace {
bool next_batch(const std::function<bool(HostBatch&)>& next, HostBatch& batch) {
  TS_ZONE("wait for batch", input_wait);
  return next(batch);
}
}  // namespace

FitResult Sequential::fit_loop(const BatchFeed& feed, const FitOptions& options) {
  if (options.epochs < 1) throw std::invalid_argument("epochs must be at least 1");
  FitResult result;
  std::unique_ptr<ProgressLine> progress;
  if (options.progress)
    progress = std::make_unique<ProgressLine>(*options.progress, options.progress_is_terminal);
  const auto stop_requested = [&] {
    return options.stop && options.stop->load(std::memory_order_relaxed);
  };
  const auto fit_start = std::chrono::steady_clock::now();
  std::int64_t total_samples = 0, global_step = 0;
  HostBatch current, upcoming;
  std::string epoch_first_steps;  // the trace's meta fit.epoch_first_steps: "0,313,626"
  for (int epoch = 0; epoch < options.epochs && !result.stopped_early; ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    if (epoch > 0) epoch_first_steps += ',';
    epoch_first_steps += std::to_string(global_step);
    TS_META("fit.epoch_first_steps", epoch_first_steps);
    feed.start_epoch(epoch);
    if (progress) progress->begin_epoch(epoch + 1, options.epochs, feed.batches_per_epoch);
    double loss_sum = 0, correct = 0;
    std::int64_t samples = 0, step = 0;
    // With prefetch to device, batch k+1 is fetched and its copy enqueued on the copy queue
    // while step k's kernels run; the two input slots alternate. A step's span includes waiting
    // for its input (the next batch's, with prefetch to device).
    int slot = 0;
    bool staged_next = false;  // `staged` holds this step's batch, already on its way
    Staged staged;
    while (step < feed.batches_per_epoch) {
      if (stop_requested()) {
        result.stopped_early = true;
        break;
      }
      StepResult r;
      bool got = true;
      {
        TS_STEP(global_step);
        if (feed.prefetch_to_device) {
          if (!staged_next) {
            got = next_batch(feed.next, current);
            if (got) staged = stage_batch(current, slot, true);
          }
          if (got) {
            const std::int64_t size = staged.size;
            wait_staged(staged);
            enqueue_train(slot, size);
            staged_next = step + 1 < feed.batches_per_epoch && next_batch(feed.next, upcoming);
            if (staged_next) staged = stage_batch(upcoming, 1 - slot, true);
            r = finish_train(size);
            std::swap(current, upcoming);
            slot = 1 - slot;
          }
        } else {
          got = next_batch(feed.next, current);
          if (got) r = train_step(current);
        }
      }
      if (!got) break;  // the producer ran out early (a batch of only skipped samples)
      ++global_step;
      loss_sum += r.loss_sum;
      correct += r.correct;
      samples += r.samples;
      ++step;
      if (progress) {
        TS_ZONE("progress", other);  // printing can cost real time on a slow terminal
        progress->update(step, loss_sum / samples, correct / samples);
      }
    }
    EpochStats stats;
    stats.seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - epoch_start).count();
    stats.samples = samples;
    stats.loss = samples ? loss_sum / samples : 0.0;
    stats.accuracy = samples ? correct / samples : 0.0;
    if (progress) progress->end_epoch(stats.seconds, stats.loss, stats.accuracy);
    if (samples > 0) result.epochs.push_back(stats);
    total_samples += samples;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - fit_start).count();
  result.samples_per_s = seconds > 0 ? static_cast<double>(total_samples) / seconds : 0.0;
  result.steps = global_step;
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
  s << std::left << std::setw(28) << "Layer" << std::setw(18) << "Output shape"
    << "Params\n";
  std::int64_t total = 0;
  for (std::size_t l = 0; l < layers_.size(); ++l) {
    std::int64_t n = 0;
    for (const auto& p : layers_[l]->params()) n += p.shape.numel();
    total += n;
    s << std::setw(28) << layers_[l]->describe() << std::setw(18) << outputs_[l].str() << n << "\n";
  }
  s << "Total params: " << total << "\n";
  return s.str();
}

}  // namespace ts
