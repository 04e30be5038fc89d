// One contiguous buffer for every trainable parameter of a model and one for their gradients
// (llm.c style), so the optimizer updates everything with one kernel.
#pragma once

#include <cstdint>
#include <vector>

#include "engine/backend/backend.hpp"
#include "engine/core/rng.hpp"
#include "engine/nn/layer.hpp"

namespace ts {

class ParameterStore {
 public:
  // specs[l] lists layer l's parameters. compute: F32, or F16 for a half-precision copy of the
  // weights that forward/backward read (mixed precision). Weights are initialised from seed.
  void build(Backend& backend, const std::vector<std::vector<ParamSpec>>& specs, DType compute,
             std::uint64_t seed);

  std::int64_t count() const { return count_; }
  const Tensor& master() const { return master_; }    // [count] F32, what the optimizer updates
  const Tensor& gradients() const { return grads_; }  // [count] F32
  const Tensor& compute() const { return compute_; }  // [count] F32 (== master) or F16 copy
  // The element of master/gradients where layer l's parameters start (the layers after it hold
  // everything from there to the end): the running total for a layer without parameters.
  std::int64_t layer_offset(std::size_t layer) const { return layer_offsets_.at(layer); }

  // Views of layer l's parameters in spec order: the F16 copy for specs with f16_copy under
  // mixed precision, the F32 master otherwise.
  std::vector<Tensor> compute_views(std::size_t layer) const;
  std::vector<Tensor> gradient_views(std::size_t layer) const;

  // After the optimizer changed master: refresh the F16 copy (no-op for F32).
  void sync_compute();

  std::vector<float> read_master() const;               // [count]
  void write_master(const std::vector<float>& values);  // [count]; refreshes the F16 copy
  std::vector<float> read_gradients() const;            // [count]

 private:
  struct Slot {
    std::int64_t offset;
    Shape shape;
    bool f16_copy;
  };
  Backend* backend_ = nullptr;
  std::int64_t count_ = 0;
  std::vector<std::vector<Slot>> slots_;
  std::vector<std::int64_t> layer_offsets_;
  Tensor master_, grads_, compute_;
};

// Host-side initial values for one parameter: Glorot/He uniform limits from fan in/out.
// Returns spec.shape.numel() values.
std::vector<float> initial_values(const ParamSpec& spec, Rng& rng);

}  // namespace ts
