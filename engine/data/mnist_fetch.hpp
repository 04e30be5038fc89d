// Fetching MNIST on first use: runs fetch-mnist.sh (scripts/ in the source tree; installed as
// <prefix>/share/trainscope/fetch-mnist.sh beside its helper mnist_json_to_idx.js).
//
// Where the script is, first match wins:
//   1. $TRAINSCOPE_FETCH_MNIST, when set and non-empty: the script's path (no other place is
//      tried, so a wrong path is reported rather than worked around);
//   2. beside the running program: <directory of the executable>/../share/trainscope (the
//      installed layout, whatever the prefix; the relative part follows CMake's install dirs);
//   3. the source tree this library was built from (a build that was never installed).
// The script is found at run time, not built in, so that the copy a user can read and run by
// hand is the one trainscope runs.
#pragma once

#include <filesystem>
#include <string>

namespace ts {

// The fetch script for a program at `executable` in the installed layout (rule 2 above); the
// file need not exist.
std::filesystem::path mnist_fetch_script_beside(const std::filesystem::path& executable);

// The fetch script by the rules above, or "" when none of the places holds it.
std::string find_mnist_fetch_script();

// The shell command that fetches MNIST into dir, quoted for copying into a terminal: the script
// found, or scripts/fetch-mnist.sh (the source tree's) when none is.
std::string mnist_fetch_command(const std::string& dir);

// Runs the fetch script for dir (its stdout and stderr both go to our stderr, so they never mix
// with a program's own output) after saying so on stderr. Returns false, having run nothing, when
// no script is found or TRAINSCOPE_NO_FETCH is set to a non-empty value; returns whether the
// script succeeded otherwise.
bool run_mnist_fetch(const std::string& dir);

}  // namespace ts
