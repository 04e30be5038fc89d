// Runs scripts/fetch-mnist.sh to download MNIST on first use.
#pragma once

#include <string>

namespace ts {

// The shell command that fetches MNIST into dir, quoted for copying into a terminal.
std::string mnist_fetch_command(const std::string& dir);

// Runs the fetch script for dir (its stdout and stderr both go to our stderr, so they never mix
// with a program's own output) after saying so on stderr. Returns false, having run nothing, when
// the script is not where this build expects it or TRAINSCOPE_NO_FETCH is set; returns whether
// the script succeeded otherwise.
bool run_mnist_fetch(const std::string& dir);

}  // namespace ts
