// Element types and IEEE 754 binary16 <-> binary32 conversion.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace ts {

// f32: 4-byte float. f16: 2-byte IEEE half (storage only on devices without fp16 arithmetic).
// i32: 4-byte signed integer (labels, argmax indices).
enum class DType : std::uint8_t { F32, F16, I32 };

constexpr std::size_t dtype_size(DType t) {
  return t == DType::F16 ? 2 : 4;
}

constexpr std::string_view dtype_name(DType t) {
  switch (t) {
    case DType::F32:
      return "f32";
    case DType::F16:
      return "f16";
    case DType::I32:
      return "i32";
  }
  return "?";
}

// Round-to-nearest-even float -> half, matching OpenCL's vstore_half_rte.
inline std::uint16_t float_to_half(float value) {
  std::uint32_t x;
  std::memcpy(&x, &value, 4);
  const std::uint32_t sign = (x >> 16) & 0x8000u;
  const std::uint32_t abs = x & 0x7fffffffu;
  if (abs >= 0x7f800000u) {  // inf or NaN
    return static_cast<std::uint16_t>(sign | 0x7c00u | (abs > 0x7f800000u ? 0x200u : 0u));
  }
  if (abs >= 0x477ff000u) return static_cast<std::uint16_t>(sign | 0x7c00u);  // overflow -> inf
  if (abs < 0x38800000u) {                                                    // subnormal or zero
    if (abs < 0x33000000u) return static_cast<std::uint16_t>(sign);           // rounds to zero
    const std::uint32_t exponent = abs >> 23;
    const std::uint32_t mantissa = (abs & 0x7fffffu) | 0x800000u;
    const std::uint32_t shift = 126u - exponent;  // 14..24
    std::uint32_t result = mantissa >> shift;
    const std::uint32_t remainder = mantissa & ((1u << shift) - 1u);
    const std::uint32_t halfway = 1u << (shift - 1u);
    if (remainder > halfway || (remainder == halfway && (result & 1u))) ++result;
    return static_cast<std::uint16_t>(sign | result);
  }
  std::uint32_t result = ((abs - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
  const std::uint32_t remainder = abs & 0x1fffu;
  if (remainder > 0x1000u || (remainder == 0x1000u && (result & 1u))) ++result;
  return static_cast<std::uint16_t>(sign | result);
}

inline float half_to_float(std::uint16_t h) {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1fu;
  std::uint32_t mantissa = h & 0x3ffu;
  std::uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      std::uint32_t e = 113;
      while ((mantissa & 0x400u) == 0) {
        mantissa <<= 1;
        --e;
      }
      bits = sign | (e << 23) | ((mantissa & 0x3ffu) << 13);
    }
  } else if (exponent == 31) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  }
  float out;
  std::memcpy(&out, &bits, 4);
  return out;
}

}  // namespace ts
