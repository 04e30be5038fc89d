#include <cstdlib>
#include <stdexcept>

#include "engine/dist/communicator.hpp"

namespace ts::dist {

void LocalCommunicator::allreduce(float* data, std::size_t n, float scale) {
  if (scale == 1.0f) return;
  for (std::size_t i = 0; i < n; ++i) data[i] *= scale;
}

void LocalCommunicator::send(const void*, std::size_t, int to, int) {
  throw std::logic_error("a single-process run has no rank " + std::to_string(to) + " to send to");
}

void LocalCommunicator::recv(void*, std::size_t, int from, int) {
  throw std::logic_error("a single-process run has no rank " + std::to_string(from) +
                         " to receive from");
}

void LocalCommunicator::abort(int status) {
  std::exit(status);
}

}  // namespace ts::dist
