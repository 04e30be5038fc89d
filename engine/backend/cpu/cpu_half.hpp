// Bulk f16 <-> f32 conversion for the CPU backend. Results are bit-identical to the scalar
// ts::half_to_float / ts::float_to_half (engine/core/dtype.hpp); AVX-512 or F16C instructions
// are used when the build targets them, with NaN lanes (whose payload handling differs in
// hardware) redone by the scalar functions.
#pragma once

#include <cstdint>

namespace ts::cpu {

// dst[i] = half_to_float(src[i]) for i in [0, n).
void halves_to_floats(const std::uint16_t* src, float* dst, std::int64_t n);
// dst[i] = float_to_half(src[i]) for i in [0, n) (round to nearest even).
void floats_to_halves(const float* src, std::uint16_t* dst, std::int64_t n);

}  // namespace ts::cpu
