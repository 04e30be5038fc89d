#include "engine/nn/parameters.hpp"

#include <cmath>

namespace ts {

std::vector<float> initial_values(const ParamSpec& spec, Rng& rng) {
  std::vector<float> values(static_cast<std::size_t>(spec.shape.numel()), 0.0f);
  float limit = 0.0f;
  if (spec.init == Init::GlorotUniform)
    limit = std::sqrt(6.0f / static_cast<float>(spec.fan_in + spec.fan_out));
  else if (spec.init == Init::HeUniform)
    limit = std::sqrt(6.0f / static_cast<float>(spec.fan_in));
  if (limit > 0.0f)
    for (auto& v : values) v = rng.uniform(-limit, limit);
  return values;
}

void ParameterStore::build(Backend& backend, const std::vector<std::vector<ParamSpec>>& specs,
                           DType compute, std::uint64_t seed) {
  backend_ = &backend;
  slots_.clear();
  layer_offsets_.clear();
  count_ = 0;
  for (const auto& layer : specs) {
    layer_offsets_.push_back(count_);
    auto& slots = slots_.emplace_back();
    for (const auto& spec : layer) {
      slots.push_back({count_, spec.shape, spec.f16_copy});
      count_ += spec.shape.numel();
    }
  }
  const std::int64_t n = count_ > 0 ? count_ : 1;  // keep tensors valid for parameter-free models
  master_ = backend.alloc(Shape{n}, DType::F32);
  grads_ = backend.alloc(Shape{n}, DType::F32);
  compute_ = compute == DType::F32 ? master_ : backend.alloc(Shape{n}, compute);
  backend.fill(grads_, 0.0f);

  Rng rng(seed);
  std::vector<float> host(static_cast<std::size_t>(n), 0.0f);
  for (std::size_t l = 0; l < specs.size(); ++l)
    for (std::size_t p = 0; p < specs[l].size(); ++p) {
      const auto values = initial_values(specs[l][p], rng);
      std::copy(values.begin(), values.end(), host.begin() + slots_[l][p].offset);
    }
  write_master(host);
}

std::vector<Tensor> ParameterStore::compute_views(std::size_t layer) const {
  std::vector<Tensor> views;
  for (const auto& s : slots_.at(layer))
    views.push_back((s.f16_copy ? compute_ : master_).view(s.offset, s.shape));
  return views;
}

std::vector<Tensor> ParameterStore::gradient_views(std::size_t layer) const {
  std::vector<Tensor> views;
  for (const auto& s : slots_.at(layer)) views.push_back(grads_.view(s.offset, s.shape));
  return views;
}

void ParameterStore::sync_compute() {
  if (compute_.buffer != master_.buffer) backend_->copy(master_, compute_);
}

std::vector<float> ParameterStore::read_master() const {
  std::vector<float> out(static_cast<std::size_t>(master_.numel()));
  backend_->download(master_, out.data());
  out.resize(static_cast<std::size_t>(count_));
  return out;
}

void ParameterStore::write_master(const std::vector<float>& values) {
  std::vector<float> padded = values;
  padded.resize(static_cast<std::size_t>(master_.numel()), 0.0f);
  backend_->upload(master_, padded.data());
  sync_compute();
}

std::vector<float> ParameterStore::read_gradients() const {
  std::vector<float> out(static_cast<std::size_t>(grads_.numel()));
  backend_->download(grads_, out.data());
  out.resize(static_cast<std::size_t>(count_));
  return out;
}

}  // namespace ts
