// GCC 12 warns about the deliberately undefined registers in its own AVX-512 intrinsics
// (GCC PR 105593, fixed in GCC 13); the pragmas must precede the first intrinsics include.
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ < 13
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
#include "engine/backend/cpu/cpu_half.hpp"

#include "engine/core/dtype.hpp"

#if defined(__AVX512F__) || defined(__F16C__)
#include <immintrin.h>
#endif

namespace ts::cpu {

void halves_to_floats(const std::uint16_t* src, float* dst, std::int64_t n) {
  std::int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(src + i)));
    if (_mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q) == 0) {
      _mm512_storeu_ps(dst + i, f);
    } else {  // hardware quietens signalling NaNs; the scalar function keeps the payload
      for (int j = 0; j < 16; ++j) dst[i + j] = half_to_float(src[i + j]);
    }
  }
#endif
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_cvtph_ps(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) == 0) {
      _mm256_storeu_ps(dst + i, f);
    } else {
      for (int j = 0; j < 8; ++j) dst[i + j] = half_to_float(src[i + j]);
    }
  }
#endif
  for (; i < n; ++i) dst[i] = half_to_float(src[i]);
}

void floats_to_halves(const float* src, std::uint16_t* dst, std::int64_t n) {
  std::int64_t i = 0;
#if defined(__AVX512F__)
  for (; i + 16 <= n; i += 16) {
    const __m512 f = _mm512_loadu_ps(src + i);
    if (_mm512_cmp_ps_mask(f, f, _CMP_UNORD_Q) == 0) {
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                          _mm512_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else {  // hardware keeps NaN payload bits; the scalar function makes a canonical NaN
      for (int j = 0; j < 16; ++j) dst[i + j] = float_to_half(src[i + j]);
    }
  }
#endif
#if defined(__F16C__)
  for (; i + 8 <= n; i += 8) {
    const __m256 f = _mm256_loadu_ps(src + i);
    if (_mm256_movemask_ps(_mm256_cmp_ps(f, f, _CMP_UNORD_Q)) == 0) {
      _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + i),
                       _mm256_cvtps_ph(f, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    } else {
      for (int j = 0; j < 8; ++j) dst[i + j] = float_to_half(src[i + j]);
    }
  }
#endif
  for (; i < n; ++i) dst[i] = float_to_half(src[i]);
}

}  // namespace ts::cpu
