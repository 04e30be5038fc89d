#include "tests/engine/backend/opencl/opencl_test_util.hpp"

#include <cmath>
#include <cstring>
#include <memory>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/backend/opencl/opencl_backend.hpp"

namespace ts::test {

namespace {

constexpr float kSentinel = -777.0f;  // exact in f16, f32 and i32

std::vector<std::uint8_t> to_bytes(const std::vector<float>& values, DType dtype) {
  std::vector<std::uint8_t> bytes(values.size() * dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&bytes[i * 4], &values[i], 4);
    } else if (dtype == DType::F16) {
      const std::uint16_t h = float_to_half(values[i]);
      std::memcpy(&bytes[i * 2], &h, 2);
    } else {
      const auto v = static_cast<std::int32_t>(values[i]);
      std::memcpy(&bytes[i * 4], &v, 4);
    }
  }
  return bytes;
}

std::vector<float> from_bytes(const std::vector<std::uint8_t>& bytes, DType dtype) {
  std::vector<float> values(bytes.size() / dtype_size(dtype));
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (dtype == DType::F32) {
      std::memcpy(&values[i], &bytes[i * 4], 4);
    } else if (dtype == DType::F16) {
      std::uint16_t h;
      std::memcpy(&h, &bytes[i * 2], 2);
      values[i] = half_to_float(h);
    } else {
      std::int32_t v;
      std::memcpy(&v, &bytes[i * 4], 4);
      values[i] = static_cast<float>(v);
    }
  }
  return values;
}

bool same(float a, float b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, 4) == 0;
}

void expect_guards(const Mirrored& t, const std::string& what) {
  for (Backend* backend : {&cpu_backend(), opencl_backend()}) {
    const Tensor& base = backend == &cpu_backend() ? t.cpu_base : t.ocl_base;
    const std::vector<float> all = read(*backend, base);
    const std::size_t begin = t.cpu.offset, end = begin + static_cast<std::size_t>(t.cpu.numel());
    for (std::size_t i = 0; i < all.size(); ++i) {
      if (i >= begin && i < end) continue;
      if (all[i] != kSentinel) {
        ADD_FAILURE() << what << ": " << backend->kind() << " wrote outside the tensor at element "
                      << i << " of its buffer (" << all[i] << ")";
        return;
      }
    }
  }
}

}  // namespace

Backend* opencl_backend() {
  static const std::unique_ptr<Backend> backend = []() -> std::unique_ptr<Backend> {
    if (list_opencl_devices().empty()) return nullptr;
    return make_opencl_backend(0);
  }();
  return backend.get();
}

Backend& cpu_backend() {
  static const std::unique_ptr<Backend> backend = make_cpu_backend(2);
  return *backend;
}

Mirrored mirror(const Shape& shape, DType dtype, const std::vector<float>& values,
                std::size_t offset, std::size_t guard_after) {
  const auto n = static_cast<std::size_t>(shape.numel());
  std::vector<float> all(offset + n + guard_after, kSentinel);
  for (std::size_t i = 0; i < n && i < values.size(); ++i) all[offset + i] = values[i];
  const std::vector<std::uint8_t> bytes = to_bytes(all, dtype);
  Mirrored m;
  const Shape base_shape{static_cast<std::int64_t>(all.size())};
  m.cpu_base = cpu_backend().alloc(base_shape, dtype);
  m.ocl_base = opencl_backend()->alloc(base_shape, dtype);
  cpu_backend().upload(m.cpu_base, bytes.data());
  opencl_backend()->upload(m.ocl_base, bytes.data());
  m.cpu = m.cpu_base.view(offset, shape);
  m.ocl = m.ocl_base.view(offset, shape);
  return m;
}

Mirrored mirror_empty(const Shape& shape, DType dtype, std::size_t offset,
                      std::size_t guard_after) {
  return mirror(shape, dtype,
                std::vector<float>(static_cast<std::size_t>(shape.numel()), kSentinel), offset,
                guard_after);
}

std::vector<float> read(Backend& backend, const Tensor& t) {
  std::vector<std::uint8_t> bytes(t.bytes());
  backend.download(t, bytes.data());
  return from_bytes(bytes, t.dtype);
}

std::vector<float> random_values(std::size_t n, std::uint64_t seed, float lo, float hi) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = rng.uniform(lo, hi);
  return v;
}

std::vector<float> random_labels(std::size_t n, int classes, std::uint64_t seed) {
  Rng rng(seed);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(rng.below(static_cast<std::uint64_t>(classes)));
  return v;
}

void expect_close(const Mirrored& t, double rtol, double atol, const std::string& what) {
  const std::vector<float> expected = read(cpu_backend(), t.cpu);
  const std::vector<float> actual = read(*opencl_backend(), t.ocl);
  ASSERT_EQ(expected.size(), actual.size());
  int failures = 0;
  for (std::size_t i = 0; i < expected.size() && failures < 5; ++i) {
    if (same(expected[i], actual[i])) continue;
    const double tol = atol + rtol * std::fabs(expected[i]);
    if (!(std::fabs(double{expected[i]} - actual[i]) <= tol)) {
      ADD_FAILURE() << what << " [" << dtype_label(t.cpu.dtype) << "] element " << i << ": cpu "
                    << expected[i] << ", opencl " << actual[i] << " (tolerance " << tol << ")";
      ++failures;
    }
  }
  expect_guards(t, what);
}

void expect_equal(const Mirrored& t, const std::string& what) {
  const std::vector<float> expected = read(cpu_backend(), t.cpu);
  const std::vector<float> actual = read(*opencl_backend(), t.ocl);
  ASSERT_EQ(expected.size(), actual.size());
  int failures = 0;
  for (std::size_t i = 0; i < expected.size() && failures < 5; ++i) {
    if (!same(expected[i], actual[i])) {
      ADD_FAILURE() << what << " [" << dtype_label(t.cpu.dtype) << "] element " << i << ": cpu "
                    << expected[i] << ", opencl " << actual[i];
      ++failures;
    }
  }
  expect_guards(t, what);
}

std::string dtype_label(DType t) {
  return std::string(dtype_name(t));
}

}  // namespace ts::test
