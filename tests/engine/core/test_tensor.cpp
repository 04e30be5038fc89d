#include <gtest/gtest.h>

#include "engine/core/tensor.hpp"

namespace ts {
namespace {

TEST(Shape, NumelInnerAndString) {
  Shape s{32, 28, 28, 1};
  EXPECT_EQ(s.numel(), 32 * 28 * 28);
  EXPECT_EQ(s.inner(), 28 * 28);
  EXPECT_EQ(s.str(), "[32,28,28,1]");
  EXPECT_EQ(Shape{}.numel(), 1);
}

TEST(Tensor, ViewAndReshapeKeepBufferAndCheckBounds) {
  Tensor t;
  t.shape = Shape{4, 6};
  t.buffer = std::make_shared<Buffer>(24 * 4);
  Tensor v = t.view(6, Shape{2, 6});
  EXPECT_EQ(v.offset, 6u);
  EXPECT_EQ(v.byte_offset(), 24u);
  EXPECT_EQ(v.buffer, t.buffer);
  EXPECT_THROW(t.view(20, Shape{6}), std::out_of_range);
  EXPECT_EQ(t.reshaped(Shape{24}).shape, Shape{24});
  EXPECT_THROW(t.reshaped(Shape{5, 5}), std::invalid_argument);
}

}  // namespace
}  // namespace ts
