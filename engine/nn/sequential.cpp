#include "engine/nn/sequential.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <iomanip>
#include <sstream>
#include <stdexcept>
#include <trainscope/trace.hpp>

#include "engine/nn/parameter_free_layers.hpp"
#include "engine/nn/progress.hpp"
#include "trainscope/meta_keys.hpp"

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
  reduce_begin();
  for (std::size_t l = layers_.size() - 1; l-- > 0;) {
    dy = layers_[l]->backward(dy, l > 0);
    reduce_layer_done(l);
  }
  reduce_finish();
  loss_.totals(totals_);
  enqueue_update(scale);
}

void Sequential::enqueue_empty_step() {
  backend_->fill(totals_, 0.0f);
  backend_->fill(params_.gradients(), 0.0f);
  reduce_begin();
  reduce_finish();
  enqueue_update(options_.precision == Precision::Mixed ? loss_scale_.scale() : 1.0f);
}

void Sequential::enqueue_update(float loss_scale) {
  if (options_.precision != Precision::Mixed) {
    TS_ZONE("optimizer", optimizer);
    optimizer_->apply(params_.master(), params_.gradients());
    return;
  }
  // Unscale the gradients and learn whether they are finite before deciding to apply them. With
  // data parallelism this follows the allreduce: a non-finite gradient on any rank makes the
  // sum non-finite on every rank, so all skip the step together and keep one loss scale.
  backend_->scale_and_check_finite(params_.gradients(), 1.0f / loss_scale,
                                   totals_.view(2, Shape{1}));
}

// On the CPU backend the allreduce works on the gradient buffer itself; on a device, on a host
// copy: downloaded after backward (bucketed: a layer's range as soon as its backward was
// enqueued, which waits for it) and uploaded again once summed.
void Sequential::reduce_begin() {
  if (!reducer_) return;
  const std::int64_t n = params_.count();
  reduce_host_ = backend_->host_data(params_.gradients());
  if (reduce_host_ == nullptr) {
    host_grads_.resize(static_cast<std::size_t>(n));
    reduce_host_ = host_grads_.data();
  }
  downloaded_from_ = n;
  reducer_->begin(reduce_host_, static_cast<std::size_t>(n), share_,
                  1.0f / static_cast<float>(comm_->size()));
}

void Sequential::reduce_layer_done(std::size_t layer) {
  if (!reducer_ || !reducer_->per_layer()) return;
  const std::int64_t from = params_.layer_offset(layer);
  if (!host_grads_.empty() && from < downloaded_from_) {
    copy_gradients(from, downloaded_from_, true);
    downloaded_from_ = from;
  }
  reducer_->ready(static_cast<std::size_t>(from));
}

void Sequential::reduce_finish() {
  if (!reducer_) return;
  if (!host_grads_.empty() && downloaded_from_ > 0) copy_gradients(0, downloaded_from_, true);
  downloaded_from_ = 0;
  reducer_->finish();
  if (!host_grads_.empty()) copy_gradients(0, params_.count(), false);
}

void Sequential::copy_gradients(std::int64_t from, std::int64_t to, bool to_host) {
  if (to <= from) return;
  // The download would wait for backward anyway: waiting first keeps that out of the copy's time.
  if (to_host) backend_->finish();
  const auto t0 = std::chrono::steady_clock::now();
  const Tensor range = params_.gradients().view(static_cast<std::size_t>(from), Shape{to - from});
  if (to_host)
    backend_->download(range, reduce_host_ + from);
  else
    backend_->upload(range, reduce_host_ + from);
  copy_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void Sequential::broadcast_parameters(dist::Communicator& comm) {
  std::vector<float> master = params_.read_master();
  comm.broadcast(master.data(), master.size() * sizeof(float), 0);
  params_.write_master(master);
}

std::uint64_t Sequential::parameter_checksum() const {
  const std::vector<float> master = params_.read_master();
  std::uint64_t h = 0xcbf29ce484222325ull;
  const auto* bytes = reinterpret_cast<const unsigned char*>(master.data());
  for (std::size_t i = 0; i < master.size() * sizeof(float); ++i) {
    h ^= bytes[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

void Sequential::verify_replicas(dist::Communicator& comm) const {
  const std::vector<std::string> all = comm.allgather(std::to_string(parameter_checksum()));
  std::string differ;
  for (std::size_t r = 1; r < all.size(); ++r)
    if (all[r] != all[0]) {
      if (!differ.empty()) differ += ", ";
      differ += std::to_string(r);
    }
  if (!differ.empty())
    throw dist::AgreedError("data-parallel training ended with different weights on rank(s) " +
                            differ +
                            " than on rank 0 (parameter checksums differ): the ranks' "
                            "gradient averages diverged");
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
  if (options.data_parallel.comm != nullptr && options.data_parallel.comm->size() > 1)
    throw std::invalid_argument(
        "data-parallel training takes its batches from an input pipeline sharded over the ranks");
  if (options.batch_size < 1) throw std::invalid_argument("batch size must be at least 1");
  Batcher batcher(data, options.batch_size, options.shuffle, options.seed);
  BatchFeed feed;
  feed.batches_per_epoch = batcher.batches_per_epoch();
  feed.start_epoch = [&](int epoch) { batcher.start_epoch(epoch); };
  feed.next = [&](HostBatch& b) {
    TS_ZONE("batch", input_batch);  // the trainer copies the batch's samples itself
    return batcher.next(b);
  };
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
  feed.step_samples = [&](std::int64_t step) { return input.step_samples(step); };
  feed.exact_step_samples = !input.options().skip_bad;
  const dist::Communicator* comm = options.data_parallel.comm;
  const int ranks = comm != nullptr ? comm->size() : 1;
  if (input.options().shard_count != ranks ||
      (ranks > 1 && input.options().shard_index != comm->rank()))
    throw std::invalid_argument(
        "the input pipeline is shard " + std::to_string(input.options().shard_index) + " of " +
        std::to_string(input.options().shard_count) + " but this is rank " +
        std::to_string(comm != nullptr ? comm->rank() : 0) + " of " + std::to_string(ranks));
  return fit_loop(feed, options);
}

namespace {
// Taking the next batch. The feed records its own input work and waits inside this zone (an
// input pipeline's "wait for batch", the batcher's copy); what is left of the zone is the
// hand-over of a batch that was ready, never input wait.
bool next_batch(const std::function<bool(HostBatch&)>& next, HostBatch& batch) {
  TS_ZONE("take batch", input_handoff);
  return next(batch);
}
}  // namespace

namespace {

// Ends data parallelism's per-fit state however fit_loop ends.
template <class Fn>
struct OnExit {
  Fn fn;
  ~OnExit() { fn(); }
};
template <class Fn>
OnExit(Fn) -> OnExit<Fn>;

// Data parallelism: how often the ranks agree on whether to stop (one small allreduce).
constexpr std::int64_t kStopCheckEvery = 8;

}  // namespace

FitResult Sequential::fit_loop(const BatchFeed& feed, const FitOptions& options) {
  if (options.epochs < 1) throw std::invalid_argument("epochs must be at least 1");
  FitResult result;
  dist::Communicator* const comm = options.data_parallel.comm;
  const bool parallel = comm != nullptr && comm->size() > 1;
  if (parallel) {
    if (!feed.step_samples)
      throw std::invalid_argument("data-parallel training needs the step sizes of its shards");
    broadcast_parameters(*comm);  // same seed, same weights: this makes sure of it
    comm_ = comm;
    reducer_ = std::make_unique<dist::GradientReducer>(*comm, options.data_parallel.allreduce,
                                                       options.data_parallel.bucket_bytes);
    copy_seconds_ = 0;
    result.world_size = comm->size();
  }
  const OnExit reset_parallel{[this] {
    reducer_.reset();
    comm_ = nullptr;
    share_ = 1.0f;
    host_grads_.clear();
  }};
  std::unique_ptr<ProgressLine> progress;
  if (options.progress)
    progress = std::make_unique<ProgressLine>(*options.progress, options.progress_is_terminal);
  const auto local_stop = [&] {
    return options.stop && options.stop->load(std::memory_order_relaxed);
  };
  // Every rank must take every step: the ranks stop together, at a step they agree on.
  const auto stop_requested = [&](std::int64_t step) {
    if (!parallel) return local_stop();
    if (step % kStopCheckEvery != 0) return false;
    double flag = local_stop() ? 1.0 : 0.0;
    comm->allreduce(&flag, 1);
    return flag > 0;
  };
  // This rank's weight in the step's gradient average: its samples over the mean per rank.
  const auto set_share = [&](std::int64_t local, std::int64_t step) {
    if (!parallel) return;
    double total = static_cast<double>(feed.step_samples(step));
    if (!feed.exact_step_samples) {
      total = static_cast<double>(local);
      comm->allreduce(&total, 1);
    }
    share_ =
        total > 0 ? static_cast<float>(static_cast<double>(local) * comm->size() / total) : 0.0f;
  };
  // The next batch into `batch`; false when the feed ran out early, which ends the epoch. With
  // data parallelism every rank takes every step: a rank whose shard has no (more) samples for a
  // step takes it empty (size 0) instead.
  const auto fetch = [&](HostBatch& batch) {
    if (next_batch(feed.next, batch)) return true;
    batch.size = 0;
    return parallel;
  };
  // An empty batch is trained as an empty step only under data parallelism, where the ranks'
  // allreduce needs every rank's step.
  const auto trainable = [&](std::int64_t size) { return size > 0 || !parallel; };
  const auto fit_start = std::chrono::steady_clock::now();
  std::int64_t total_samples = 0, global_step = 0;
  HostBatch current, upcoming;
  std::string epoch_first_steps;  // the trace's meta fit.epoch_first_steps: "0,313,626"
  // The last kRecentLossSteps steps' summed losses and samples, as a ring.
  std::array<std::pair<double, std::int64_t>, FitResult::kRecentLossSteps> recent{};
  const auto steps_left = [&] {
    return options.max_steps > 0 ? options.max_steps - global_step : INT64_MAX;
  };
  for (int epoch = 0; epoch < options.epochs && !result.stopped_early && steps_left() > 0;
       ++epoch) {
    const auto epoch_start = std::chrono::steady_clock::now();
    if (epoch > 0) epoch_first_steps += ',';
    epoch_first_steps += std::to_string(global_step);
    TS_META(meta_key::kFitEpochFirstSteps, epoch_first_steps);
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
    const std::int64_t epoch_steps = std::min(feed.batches_per_epoch, steps_left());
    while (step < epoch_steps) {
      if (stop_requested(step)) {
        result.stopped_early = true;
        break;
      }
      StepResult r;
      bool got = true;
      {
        TS_STEP(global_step);
        if (feed.prefetch_to_device) {
          if (!staged_next) {
            got = fetch(current);
            staged = got && trainable(current.size) ? stage_batch(current, slot, true) : Staged{};
          }
          if (got) {
            const std::int64_t size = staged.size;
            set_share(size, step);
            if (trainable(size)) {
              wait_staged(staged);
              enqueue_train(slot, size);
            } else {
              enqueue_empty_step();
            }
            staged_next = step + 1 < epoch_steps && fetch(upcoming);
            if (staged_next)
              staged = trainable(upcoming.size) ? stage_batch(upcoming, 1 - slot, true) : Staged{};
            r = finish_train(size);
            std::swap(current, upcoming);
            slot = 1 - slot;
          }
        } else {
          got = fetch(current);
          if (got) {
            set_share(current.size, step);
            if (trainable(current.size)) {
              r = train_step(current);
            } else {
              enqueue_empty_step();
              r = finish_train(0);
            }
          }
        }
      }
      if (!got) break;  // the producer ran out early (a batch of only skipped samples)
      recent[static_cast<std::size_t>(global_step % FitResult::kRecentLossSteps)] = {r.loss_sum,
                                                                                     r.samples};
      ++global_step;
      loss_sum += r.loss_sum;
      correct += r.correct;
      samples += r.samples;
      ++step;
      if (progress) {
        TS_ZONE("progress", other);  // printing can cost real time on a slow terminal
        progress->update(step, samples ? loss_sum / samples : 0.0,
                         samples ? correct / samples : 0.0);
      }
    }
    if (parallel) {  // the epoch's figures are the job's: every rank's samples
      double totals[3] = {loss_sum, correct, static_cast<double>(samples)};
      comm->allreduce(totals, 3);
      loss_sum = totals[0];
      correct = totals[1];
      samples = static_cast<std::int64_t>(totals[2]);
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
  double recent_loss = 0;
  std::int64_t recent_samples = 0;
  for (const auto& [loss, n] : recent) {
    recent_loss += loss;
    recent_samples += n;
  }
  result.recent_loss = recent_samples > 0 ? recent_loss / static_cast<double>(recent_samples) : 0;
  result.skipped_steps = loss_scale_.skipped_steps();
  result.final_loss_scale = options_.precision == Precision::Mixed ? loss_scale_.scale() : 1.0f;
  if (parallel) {
    result.reduce = reducer_->stats();
    result.gradient_copy_seconds = copy_seconds_;
  }
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
