// Every OpenCL backend operation against the CPU backend: random data, odd sizes, F32 and F16
// storage, views at non-zero offsets, and nothing written outside the tensors.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/backend/factory.hpp"
#include "engine/backend/opencl/opencl_backend.hpp"
#include "engine/backend/opencl/reduction_split.hpp"
#include "tests/engine/backend/opencl/opencl_test_util.hpp"

namespace ts::test {
namespace {

constexpr DType kStorage[] = {DType::F32, DType::F16};

class OpenClOps : public ::testing::Test {
 protected:
  void SetUp() override { TS_REQUIRE_OPENCL(); }
  Backend& cpu() { return cpu_backend(); }
  Backend& ocl() { return *opencl_backend(); }
};

TEST_F(OpenClOps, UploadDownloadRoundTripAtOffsets) {
  for (DType t : {DType::F32, DType::F16, DType::I32}) {
    const auto values = random_values(1003, 1, -100.0f, 100.0f);
    Mirrored m = mirror(Shape{17, 59}, t, values, 11, 7);
    expect_equal(m, "upload/download");
  }
}

TEST_F(OpenClOps, CopyConvertsBetweenAllTypes) {
  const DType types[] = {DType::F32, DType::F16, DType::I32};
  std::vector<float> values = random_values(517, 2, -300.0f, 300.0f);
  values[0] = 65504.0f;  // largest half
  values[1] = -0.0f;
  values[2] = 2.5f;
  values[3] = -2.5f;
  for (DType from : types) {
    for (DType to : types) {
      SCOPED_TRACE(dtype_label(from) + " -> " + dtype_label(to));
      Mirrored src = mirror(Shape{517}, from, values, 4);
      Mirrored dst = mirror_empty(Shape{11, 47}, to, 9);
      cpu().copy(src.cpu, dst.cpu);
      ocl().copy(src.ocl, dst.ocl);
      expect_equal(dst, "copy");
    }
  }
}

TEST_F(OpenClOps, FillRoundsAndTruncates) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (DType t : {DType::F32, DType::F16, DType::I32}) {
    for (float value : {0.0f, 1.37f, -2.9f, 1e-8f, 3e9f, -3e9f, nan}) {
      SCOPED_TRACE(dtype_label(t) + " " + std::to_string(value));
      Mirrored m = mirror_empty(Shape{3, 67}, t, 5);
      cpu().fill(m.cpu, value);
      ocl().fill(m.ocl, value);
      expect_equal(m, "fill");
    }
  }
}

TEST_F(OpenClOps, BiasAdd) {
  for (DType t : kStorage) {
    Mirrored y = mirror(Shape{37, 13}, t, random_values(37 * 13, 3));
    Mirrored bias = mirror(Shape{13}, DType::F32, random_values(13, 4), 7);
    cpu().bias_add(y.cpu, bias.cpu);
    ocl().bias_add(y.ocl, bias.ocl);
    expect_equal(y, "bias_add");
  }
}

TEST_F(OpenClOps, BiasGradOverwritesOrAccumulates) {
  for (DType t : kStorage) {
    for (bool accumulate : {false, true}) {
      // 3001 x 19: the rows split among work-groups (the first check of the large one below).
      for (auto [rows, cols] :
           {std::pair{301, 19}, std::pair{5, 1}, std::pair{1, 40}, std::pair{3001, 19}}) {
        SCOPED_TRACE(std::to_string(rows) + "x" + std::to_string(cols));
        Mirrored dy = mirror(Shape{rows, cols}, t, random_values(rows * cols, 5));
        Mirrored grad = mirror(Shape{cols}, DType::F32, random_values(cols, 6), 2);
        cpu().bias_grad(dy.cpu, grad.cpu, accumulate);
        ocl().bias_grad(dy.ocl, grad.ocl, accumulate);
        // Sums of `rows` terms in another order: tolerance grows with rows.
        const double tol = 1e-5 * (1.0 + rows / 100.0);
        expect_close(grad, tol, tol, "bias_grad");
      }
    }
  }
}

TEST_F(OpenClOps, BiasGradOfALargeConvolutionOutput) {
  // A conv layer's bias gradient: [batch*26*26, 32]. Its rows, and those of 3001 x 19 above, are
  // split among work-groups whose partial sums are then added.
  const std::size_t units = static_cast<std::size_t>(list_opencl_devices().at(0).compute_units);
  EXPECT_GT(ocl::reduction_slices(ocl::kColumnSumSplit, 2, 8 * 26 * 26, units), 1u);
  EXPECT_GT(ocl::reduction_slices(ocl::kColumnSumSplit, 2, 3001, units), 1u);
  Mirrored dy = mirror(Shape{8 * 26 * 26, 32}, DType::F32, random_values(8 * 26 * 26 * 32, 7));
  Mirrored grad = mirror_empty(Shape{32}, DType::F32);
  cpu().bias_grad(dy.cpu, grad.cpu, false);
  ocl().bias_grad(dy.ocl, grad.ocl, false);
  expect_close(grad, 1e-4, 1e-4, "bias_grad large");
}

TEST_F(OpenClOps, ReluAndBackwardIncludingAliasing) {
  for (DType t : kStorage) {
    auto values = random_values(1001, 8);
    values[5] = std::numeric_limits<float>::quiet_NaN();
    values[6] = -0.0f;
    Mirrored x = mirror(Shape{7, 11, 13}, t, values);
    Mirrored y = mirror_empty(Shape{1001}, t, 1);
    cpu().relu(x.cpu, y.cpu);
    ocl().relu(x.ocl, y.ocl);
    expect_equal(y, "relu");
    cpu().relu(x.cpu, x.cpu);  // in place
    ocl().relu(x.ocl, x.ocl);
    expect_equal(x, "relu in place");

    Mirrored dy = mirror(Shape{1001}, t, random_values(1001, 9));
    Mirrored dx = mirror_empty(Shape{1001}, t, 2);
    cpu().relu_backward(y.cpu, dy.cpu, dx.cpu);
    ocl().relu_backward(y.ocl, dy.ocl, dx.ocl);
    expect_equal(dx, "relu_backward");
    cpu().relu_backward(y.cpu, dy.cpu, dy.cpu);  // dx aliases dy
    ocl().relu_backward(y.ocl, dy.ocl, dy.ocl);
    expect_equal(dy, "relu_backward in place");
  }
}

TEST_F(OpenClOps, ReluBackwardMixesStorageTypes) {
  Mirrored y = mirror(Shape{257}, DType::F16, random_values(257, 10));
  Mirrored dy = mirror(Shape{257}, DType::F32, random_values(257, 11));
  Mirrored dx = mirror_empty(Shape{257}, DType::F16);
  cpu().relu_backward(y.cpu, dy.cpu, dx.cpu);
  ocl().relu_backward(y.ocl, dy.ocl, dx.ocl);
  expect_equal(dx, "relu_backward f16/f32/f16");
}

TEST_F(OpenClOps, SoftmaxCrossEntropyAndGradient) {
  for (DType t : kStorage) {
    for (auto [n, classes] : {std::pair{37, 10}, std::pair{5, 1}, std::pair{3, 101}}) {
      SCOPED_TRACE(std::to_string(n) + "x" + std::to_string(classes));
      Mirrored logits = mirror(Shape{n, classes}, t, random_values(n * classes, 12, -8.0f, 8.0f));
      auto label_values = random_labels(n, classes, 13);
      label_values[1] = -1.0f;  // invalid labels give probability 0 and correct 0
      if (n > 2) label_values[2] = static_cast<float>(classes);
      Mirrored labels = mirror(Shape{n}, DType::I32, label_values);
      Mirrored probs = mirror_empty(Shape{n, classes}, DType::F32);
      Mirrored loss = mirror_empty(Shape{n}, DType::F32, 1);
      Mirrored correct = mirror_empty(Shape{n}, DType::F32, 2);
      cpu().softmax_xent(logits.cpu, labels.cpu, probs.cpu, loss.cpu, correct.cpu);
      ocl().softmax_xent(logits.ocl, labels.ocl, probs.ocl, loss.ocl, correct.ocl);
      expect_close(probs, 1e-5, 1e-7, "softmax_xent probs");
      expect_close(loss, 1e-5, 1e-6, "softmax_xent loss");
      expect_equal(correct, "softmax_xent correct");

      label_values[1] = 0.0f;  // the gradient needs valid labels
      if (n > 2) label_values[2] = 0.0f;
      Mirrored valid = mirror(Shape{n}, DType::I32, label_values);
      Mirrored dlogits = mirror_empty(Shape{n, classes}, t, 4);
      cpu().softmax_xent_backward(probs.cpu, valid.cpu, 1.0f / 37.0f, dlogits.cpu);
      ocl().softmax_xent_backward(probs.ocl, valid.ocl, 1.0f / 37.0f, dlogits.ocl);
      expect_close(dlogits, storage_rtol(t, 1e-5), 1e-7, "softmax_xent_backward");
    }
  }
}

TEST_F(OpenClOps, Softmax) {
  for (DType t : kStorage) {
    Mirrored x = mirror(Shape{23, 17}, t, random_values(23 * 17, 14, -5.0f, 5.0f));
    Mirrored y = mirror_empty(Shape{23, 17}, DType::F32);
    cpu().softmax(x.cpu, y.cpu);
    ocl().softmax(x.ocl, y.ocl);
    expect_close(y, 1e-5, 1e-7, "softmax");
  }
}

struct ConvCase {
  Conv2DGeometry g;
  const char* name;
};

TEST_F(OpenClOps, Im2colAndCol2im) {
  const ConvCase cases[] = {
      {{3, 7, 9, 5, 3, 3, 1, 0}, "3x3 stride 1"},
      {{2, 8, 7, 3, 3, 2, 2, 1}, "3x2 stride 2 pad 1"},
      {{1, 5, 5, 1, 5, 5, 1, 2}, "5x5 pad 2"},
      {{2, 6, 6, 4, 1, 1, 1, 0}, "1x1"},
  };
  for (const auto& c : cases) {
    for (DType t : kStorage) {
      SCOPED_TRACE(std::string(c.name) + " " + dtype_label(t));
      const Conv2DGeometry& g = c.g;
      const Shape image{g.batch, g.in_h, g.in_w, g.in_c};
      Mirrored x = mirror(image, t, random_values(static_cast<std::size_t>(image.numel()), 15));
      Mirrored cols = mirror_empty(Shape{g.col_rows(), g.col_cols()}, t, 6);
      cpu().im2col(g, x.cpu, cols.cpu);
      ocl().im2col(g, x.ocl, cols.ocl);
      expect_equal(cols, "im2col");

      const auto n_cols = static_cast<std::size_t>(g.col_rows() * g.col_cols());
      Mirrored dcols = mirror(Shape{g.col_rows(), g.col_cols()}, t, random_values(n_cols, 16));
      Mirrored dx = mirror_empty(image, t, 3);
      cpu().col2im(g, dcols.cpu, dx.cpu);
      ocl().col2im(g, dcols.ocl, dx.ocl);
      expect_close(dx, storage_rtol(t, 1e-6), 1e-6, "col2im");
    }
  }
}

TEST_F(OpenClOps, MaxPoolAndBackward) {
  const Pool2DGeometry cases[] = {{2, 7, 9, 5, 2}, {3, 6, 6, 3, 3}, {1, 4, 4, 1, 1}};
  for (const auto& g : cases) {
    for (DType t : kStorage) {
      SCOPED_TRACE("pool " + std::to_string(g.pool) + " " + dtype_label(t));
      const Shape in{g.batch, g.in_h, g.in_w, g.channels};
      const Shape out{g.batch, g.out_h(), g.out_w(), g.channels};
      // Values on a coarse grid so windows contain ties: the first maximum must win.
      auto values = random_values(static_cast<std::size_t>(in.numel()), 17, -4.0f, 4.0f);
      for (auto& v : values) v = std::round(v);
      Mirrored x = mirror(in, t, values);
      Mirrored y = mirror_empty(out, t, 2);
      Mirrored argmax = mirror_empty(out, DType::I32, 4);
      cpu().maxpool(g, x.cpu, y.cpu, argmax.cpu);
      ocl().maxpool(g, x.ocl, y.ocl, argmax.ocl);
      expect_equal(y, "maxpool");
      expect_equal(argmax, "maxpool argmax");

      Mirrored dy = mirror(out, t, random_values(static_cast<std::size_t>(out.numel()), 18));
      Mirrored dx = mirror(in, t, random_values(static_cast<std::size_t>(in.numel()), 19), 1);
      cpu().maxpool_backward(g, dy.cpu, argmax.cpu, dx.cpu);
      ocl().maxpool_backward(g, dy.ocl, argmax.ocl, dx.ocl);
      expect_equal(dx, "maxpool_backward");
    }
  }
}

TEST_F(OpenClOps, DropoutMasksMatchTheCpuExactly) {
  for (DType t : kStorage) {
    for (float rate : {0.0f, 0.3f, 0.5f, 0.9f}) {
      SCOPED_TRACE("rate " + std::to_string(rate));
      Mirrored x = mirror(Shape{1001}, t, random_values(1001, 20));
      Mirrored mask = mirror_empty(Shape{1001}, DType::F32, 3);
      Mirrored y = mirror_empty(Shape{1001}, t, 1);
      cpu().dropout(x.cpu, rate, 1234u, mask.cpu, y.cpu);
      ocl().dropout(x.ocl, rate, 1234u, mask.ocl, y.ocl);
      expect_equal(mask, "dropout mask");
      expect_equal(y, "dropout");
      cpu().dropout(x.cpu, rate, 99u, mask.cpu, x.cpu);  // in place, another seed
      ocl().dropout(x.ocl, rate, 99u, mask.ocl, x.ocl);
      expect_equal(mask, "dropout mask in place");
      expect_equal(x, "dropout in place");

      Mirrored dy = mirror(Shape{1001}, t, random_values(1001, 21));
      Mirrored dx = mirror_empty(Shape{1001}, t, 2);
      cpu().dropout_backward(dy.cpu, mask.cpu, dx.cpu);
      ocl().dropout_backward(dy.ocl, mask.ocl, dx.ocl);
      expect_equal(dx, "dropout_backward");
    }
  }
}

TEST_F(OpenClOps, Sum) {
  for (DType t : kStorage) {
    for (std::int64_t n : {1, 7, 255, 256, 257, 100003}) {
      SCOPED_TRACE(n);
      Mirrored x = mirror(Shape{n}, t, random_values(static_cast<std::size_t>(n), 22));
      Mirrored out = mirror_empty(Shape{2}, DType::F32, 3);
      cpu().sum(x.cpu, out.cpu);
      ocl().sum(x.ocl, out.ocl);
      // out[1] is not part of the result: compare element 0 only.
      const float expected = read(cpu(), out.cpu)[0];
      const float actual = read(ocl(), out.ocl)[0];
      EXPECT_NEAR(actual, expected, 1e-5 * static_cast<double>(n) + 1e-6);
    }
  }
}

TEST_F(OpenClOps, ScaleAndCheckFinite) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (int poison = 0; poison < 4; ++poison) {
    SCOPED_TRACE(poison);
    auto values = random_values(3001, 23, -100.0f, 100.0f);
    if (poison == 1) values[2999] = inf;
    if (poison == 2) values[17] = nan;
    if (poison == 3) values[1500] = 3e38f;  // overflows once scaled
    Mirrored x = mirror(Shape{3001}, DType::F32, values);
    Mirrored flag = mirror(Shape{1}, DType::F32, {0.5f}, 1);
    cpu().scale_and_check_finite(x.cpu, 16.0f, flag.cpu);
    ocl().scale_and_check_finite(x.ocl, 16.0f, flag.ocl);
    expect_equal(x, "scaled values");
    expect_equal(flag, "finite flag");
    EXPECT_EQ(read(ocl(), flag.ocl)[0], poison == 0 ? 0.0f : 1.0f);
  }
}

TEST_F(OpenClOps, EmptyTensorsAreNoOps) {
  Mirrored x = mirror_empty(Shape{0}, DType::F32);
  Mirrored y = mirror_empty(Shape{0}, DType::F32);
  EXPECT_NO_THROW(ocl().relu(x.ocl, y.ocl));
  EXPECT_NO_THROW(ocl().fill(x.ocl, 1.0f));
  EXPECT_NO_THROW(ocl().copy(x.ocl, y.ocl));
  Mirrored out = mirror(Shape{1}, DType::F32, {5.0f});
  ocl().sum(x.ocl, out.ocl);
  EXPECT_EQ(read(ocl(), out.ocl)[0], 0.0f);
  ocl().finish();
}

TEST_F(OpenClOps, RejectsTensorsOfAnotherBackend) {
  Tensor host = cpu().alloc(Shape{4}, DType::F32);
  Tensor dev = ocl().alloc(Shape{4}, DType::F32);
  EXPECT_THROW(ocl().relu(host, dev), BackendError);
}

}  // namespace
}  // namespace ts::test
