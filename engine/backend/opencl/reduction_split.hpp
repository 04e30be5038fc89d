// How far to split a reduction's long dimension so that a GPU has enough independent work.
//
// A convolution's weight gradient is a GEMM whose inner dimension k is batch x height x width
// (21 632 for the cnn's first layer at batch 32) while its output m x n is a few hundred
// elements; its bias gradient sums as many rows into a few dozen columns. Computed one output
// per work item, either leaves all but a few of a GPU's compute units idle for the whole loop
// (on an H100, the first layer's weight gradient took 1.7 ms of a 3.8 ms step). Splitting the
// long dimension into slices, each reduced into its own partial result, then summing the slices
// (reduce.cl sum_slices) gives the device outputs x slices independent pieces of work.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace ts::ocl {

struct ReductionSplit {
  std::uint64_t work_per_compute_unit;  // independent outputs wanted per compute unit
  std::uint64_t min_slice_length;       // no slice reduces fewer elements than this
  std::uint64_t max_slices;
};

// GEMM: work items of CLBlast's kernels (an output each, before its own tiling).
inline constexpr ReductionSplit kGemmSplit{1024, 512, 64};
// bias_grad: work-groups of 16 columns x 16 row lanes.
inline constexpr ReductionSplit kColumnSumSplit{4, 256, 256};

// The number of slices (1: no split) for `outputs` results each reducing `length` elements.
inline std::uint64_t reduction_slices(const ReductionSplit& split, std::uint64_t outputs,
                                      std::uint64_t length, std::size_t compute_units) {
  if (outputs == 0) return 1;
  const std::uint64_t wanted =
      split.work_per_compute_unit * std::max<std::size_t>(1, compute_units);
  const std::uint64_t for_the_device = (wanted + outputs - 1) / outputs;
  return std::clamp<std::uint64_t>(
      std::min({for_the_device, length / split.min_slice_length, split.max_slices}), 1,
      split.max_slices);
}

}  // namespace ts::ocl
