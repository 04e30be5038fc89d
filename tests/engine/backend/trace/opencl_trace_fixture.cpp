#include "tests/engine/backend/trace/opencl_trace_fixture.hpp"

#include <memory>

#include "engine/backend/opencl/opencl_backend.hpp"

namespace ts::test {

ocl::OpenClBackend* traced_opencl_backend() {
  static const std::unique_ptr<Backend> backend = []() -> std::unique_ptr<Backend> {
    if (list_opencl_devices().empty()) return nullptr;
    return make_opencl_backend(0);
  }();
  return dynamic_cast<ocl::OpenClBackend*>(backend.get());
}

std::vector<float> download_f32(Backend& backend, const Tensor& t) {
  std::vector<float> out(static_cast<std::size_t>(t.numel()));
  backend.download(t, out.data());
  return out;
}

}  // namespace ts::test
