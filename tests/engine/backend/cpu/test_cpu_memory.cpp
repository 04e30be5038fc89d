// CPU backend: identity, allocation, upload/download, copy/fill, f16 conversion, tensor checks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "engine/backend/cpu/cpu_buffer.hpp"
#include "tests/engine/backend/cpu/cpu_test_util.hpp"

namespace ts {
namespace {

using test::cpu;
using test::make;
using test::read;

TEST(CpuIdentity, NamesEigenAndThreads) {
  EXPECT_EQ(cpu().kind(), "cpu");
  EXPECT_NE(cpu().device_name().find("Eigen 3."), std::string::npos) << cpu().device_name();
  EXPECT_FALSE(cpu().native_fp16());
  EXPECT_EQ(make_cpu_backend(1)->device_name().find("(1 thread)") != std::string::npos, true)
      << make_cpu_backend(1)->device_name();
}

TEST(CpuMemory, AllocIs64ByteAlignedAndSized) {
  for (DType dtype : {DType::F32, DType::F16, DType::I32}) {
    const Tensor t = cpu().alloc(Shape{7, 13, 5}, dtype);
    ASSERT_TRUE(t.defined());
    EXPECT_EQ(t.offset, 0u);
    EXPECT_EQ(t.buffer->bytes(), 7u * 13 * 5 * dtype_size(dtype));
    const auto* buffer = dynamic_cast<const cpu::CpuBuffer*>(t.buffer.get());
    ASSERT_NE(buffer, nullptr);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(buffer->data()) % 64, 0u);
  }
  const Tensor empty = cpu().alloc(Shape{0, 4}, DType::F32);
  EXPECT_EQ(empty.bytes(), 0u);
  cpu().fill(empty, 1.0f);  // no-op, no crash
  EXPECT_THROW(cpu().alloc(Shape{-1, 4}, DType::F32), std::invalid_argument);
}

TEST(CpuMemory, UploadDownloadRoundTripOnViews) {
  const std::vector<float> v = test::random_values(91, 1);
  for (DType dtype : {DType::F32, DType::F16}) {
    const Tensor t = make(cpu(), Shape{7, 13}, dtype, v);
    const std::vector<float> back = read(cpu(), t);
    for (std::size_t i = 0; i < v.size(); ++i)
      EXPECT_EQ(back[i], dtype == DType::F32 ? v[i] : half_to_float(float_to_half(v[i])));
    EXPECT_TRUE(test::guards_intact(cpu(), t));
  }
  const Tensor labels = test::make_i32(cpu(), Shape{4}, {3, -1, 7, 2147483647});
  EXPECT_EQ(test::read_i32(cpu(), labels), (std::vector<std::int32_t>{3, -1, 7, 2147483647}));
  EXPECT_TRUE(test::guards_intact(cpu(), labels));
}

TEST(CpuMemory, CopyConvertsBetweenDtypes) {
  const std::vector<float> v = test::random_values(7 * 13 * 5, 2, -100.0f, 100.0f);
  const Tensor f32 = make(cpu(), Shape{7, 13, 5}, DType::F32, v);
  const Tensor f16 = make(cpu(), Shape{7, 13, 5}, DType::F16);
  cpu().copy(f32, f16);
  std::vector<float> got = read(cpu(), f16);
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(got[i], half_to_float(float_to_half(v[i])));
  const Tensor back = make(cpu(), Shape{455}, DType::F32);
  cpu().copy(f16, back);
  EXPECT_EQ(read(cpu(), back), got);
  const Tensor same = make(cpu(), Shape{455}, DType::F32);
  cpu().copy(f32, same);
  EXPECT_EQ(read(cpu(), same), v);
  // Beyond the contract: I32 <-> F32 by value (truncating towards zero).
  const Tensor ints = make(cpu(), Shape{3}, DType::I32);
  cpu().copy(make(cpu(), Shape{3}, DType::F32, {2.7f, -2.7f, 5.0f}), ints);
  EXPECT_EQ(test::read_i32(cpu(), ints), (std::vector<std::int32_t>{2, -2, 5}));
  for (const Tensor& t : {f16, back, same, ints}) EXPECT_TRUE(test::guards_intact(cpu(), t));
  EXPECT_THROW(cpu().copy(f32, make(cpu(), Shape{454}, DType::F32)), std::invalid_argument);
}

TEST(CpuMemory, FillRoundsOrTruncates) {
  const Tensor f32 = make(cpu(), Shape{5, 3}, DType::F32);
  const Tensor f16 = make(cpu(), Shape{5, 3}, DType::F16);
  const Tensor i32 = make(cpu(), Shape{5, 3}, DType::I32);
  cpu().fill(f32, 0.1f);
  cpu().fill(f16, 0.1f);
  cpu().fill(i32, -3.9f);
  for (float x : read(cpu(), f32)) EXPECT_EQ(x, 0.1f);
  for (float x : read(cpu(), f16)) EXPECT_EQ(x, half_to_float(float_to_half(0.1f)));
  for (std::int32_t x : test::read_i32(cpu(), i32)) EXPECT_EQ(x, -3);
  for (const Tensor& t : {f32, f16, i32}) EXPECT_TRUE(test::guards_intact(cpu(), t));
}

// The vectorised conversions must equal the scalar functions bit for bit, NaNs included.
TEST(CpuHalf, EveryHalfWidensExactly) {
  std::vector<std::uint16_t> halves(65536);
  for (std::uint32_t i = 0; i < 65536; ++i) halves[i] = static_cast<std::uint16_t>(i);
  const Tensor h = cpu().alloc(Shape{65536}, DType::F16);
  cpu().upload(h, halves.data());
  const Tensor f = cpu().alloc(Shape{65536}, DType::F32);
  cpu().copy(h, f);
  std::vector<std::uint32_t> bits(65536);
  cpu().download(f, bits.data());
  for (std::uint32_t i = 0; i < 65536; ++i) {
    const float want = half_to_float(static_cast<std::uint16_t>(i));
    std::uint32_t want_bits;
    std::memcpy(&want_bits, &want, 4);
    ASSERT_EQ(bits[i], want_bits) << "half 0x" << std::hex << i;
  }
}

TEST(CpuHalf, FloatsNarrowExactly) {
  // A stride through all 2^32 bit patterns (NaN payloads, subnormals, overflow) plus ties.
  std::vector<std::uint32_t> bits;
  for (std::uint64_t b = 0; b < (1ull << 32); b += 4093)
    bits.push_back(static_cast<std::uint32_t>(b));
  for (std::uint32_t h = 0; h < 0x7c00; h += 7) {  // exact halfway points between halves
    const float lo = half_to_float(static_cast<std::uint16_t>(h));
    std::uint32_t lb;
    std::memcpy(&lb, &lo, 4);
    bits.push_back(lb + (h < 0x400 ? 0 : 0x1000u));
  }
  for (std::uint32_t b : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0x7fffe000u, 0xffa00001u,
                          0x477ff000u, 0x477fefffu, 0x33000000u, 0x33000001u, 0x38800000u})
    bits.push_back(b);
  const auto n = static_cast<std::int64_t>(bits.size());
  const Tensor f = cpu().alloc(Shape{n}, DType::F32);
  cpu().upload(f, bits.data());
  const Tensor h = cpu().alloc(Shape{n}, DType::F16);
  cpu().copy(f, h);
  std::vector<std::uint16_t> got(bits.size());
  cpu().download(h, got.data());
  for (std::size_t i = 0; i < bits.size(); ++i) {
    float x;
    std::memcpy(&x, &bits[i], 4);
    ASSERT_EQ(got[i], float_to_half(x)) << "float bits 0x" << std::hex << bits[i];
  }
}

class ForeignBuffer : public Buffer {
 public:
  ForeignBuffer() : Buffer(64) {}
};

TEST(CpuChecks, RejectsForeignUndefinedAndOutOfRangeTensors) {
  const Tensor good = cpu().alloc(Shape{4}, DType::F32);
  Tensor foreign = good;
  foreign.buffer = std::make_shared<ForeignBuffer>();
  EXPECT_THROW(cpu().fill(foreign, 0.0f), std::invalid_argument);
  const Tensor other = make_cpu_backend(1)->alloc(Shape{4}, DType::F32);
  EXPECT_THROW(cpu().relu(other, good), std::invalid_argument);
  EXPECT_THROW(cpu().relu(Tensor{}, good), std::invalid_argument);
  Tensor past_end = good;
  past_end.offset = 1;  // [1, 5) of a 4-element buffer
  EXPECT_THROW(cpu().relu(good, past_end), std::invalid_argument);
  EXPECT_THROW(cpu().relu(good, cpu().alloc(Shape{4}, DType::I32)), std::invalid_argument);
  EXPECT_THROW(cpu().adam_update(good, good, good, good, {}, 0), std::invalid_argument);
  EXPECT_THROW(
      cpu().gemm(false, false, 2, 2, 2, 1.0f, good, good, 0.0f, cpu().alloc(Shape{3}, DType::F32)),
      std::invalid_argument);
  // The message names the op.
  try {
    cpu().relu(good, past_end);
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("relu"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace ts
