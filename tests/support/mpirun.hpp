// The mpirun command line for tests: Open MPI's, oversubscribed (more ranks than cores is fine
// for tests), with --allow-run-as-root when the tests run as root (CI containers), under a
// timeout so that a hang fails the test instead of blocking it.
#pragma once

#include <unistd.h>

#include <string>

namespace ts::test {

// "timeout 300 mpirun --oversubscribe [--allow-run-as-root] " (then "-np N program args").
inline std::string mpirun(int timeout_s = 300) {
  std::string cmd = "timeout " + std::to_string(timeout_s) + " mpirun --oversubscribe";
  if (::geteuid() == 0) cmd += " --allow-run-as-root";
  return cmd + " ";
}

}  // namespace ts::test
