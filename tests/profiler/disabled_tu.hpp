// The interface of disabled_tu.cpp, a translation unit built with TRAINSCOPE_TRACE_DISABLED.
#pragma once

#include <string>
#include <vector>

namespace ts::test {

// The text every TS_ macro expands to in that translation unit.
std::vector<std::string> disabled_expansions();
// Runs every macro n times; returns how many macro arguments were evaluated (0 expected).
int run_disabled_instrumentation(int n);

}  // namespace ts::test
