// Errors of the trace store: one sentence naming the file, ready for stderr.
#pragma once

#include <stdexcept>

namespace ts::store {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ts::store
