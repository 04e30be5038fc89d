// Compiled with TRAINSCOPE_TRACE_DISABLED: every TS_ macro must expand to nothing.
#define TRAINSCOPE_TRACE_DISABLED 1
#include "tests/profiler/disabled_tu.hpp"

#include "trainscope/trace.hpp"

#define TS_TEST_STR_(...) #__VA_ARGS__
#define TS_TEST_XSTR_(...) TS_TEST_STR_(__VA_ARGS__)

namespace ts::test {

std::vector<std::string> disabled_expansions() {
  return {TS_TEST_XSTR_(TS_ZONE("a", kernel)),
          TS_TEST_XSTR_(TS_ZONE_ARGS("a", h2d, 1, 2)),
          TS_TEST_XSTR_(TS_ZONE_VAR(z, "a", launch)),
          TS_TEST_XSTR_(TS_ZONE_CORRELATION(z, 7)),
          TS_TEST_XSTR_(TS_ZONE_BYTES(z, 8)),
          TS_TEST_XSTR_(TS_ZONE_STEP(z, 9)),
          TS_TEST_XSTR_(TS_ZONE_DYNAMIC(1, kernel)),
          TS_TEST_XSTR_(TS_STEP(3)),
          TS_TEST_XSTR_(TS_STEP_BEGIN(3)),
          TS_TEST_XSTR_(TS_STEP_END(3)),
          TS_TEST_XSTR_(TS_COUNTER("c", 1.0)),
          TS_TEST_XSTR_(TS_THREAD_NAME("t")),
          TS_TEST_XSTR_(TS_DEVICE_EVENT(1, kernel, 1, 0, 1)),
          TS_TEST_XSTR_(TS_META("k", "v"))};
}

int run_disabled_instrumentation(int n) {
  int evaluated = 0;
  for (int i = 0; i < n; ++i) {
    TS_ZONE("disabled zone", host_compute);
    TS_ZONE_ARGS("disabled args zone", h2d, ++evaluated, i);  // arguments not evaluated
    // A named zone and its uses, as instrumented code writes them (the OpenCL enqueue path):
    // they compile with the variable gone.
    TS_ZONE_VAR(zone, "disabled named zone", launch);
    TS_ZONE_CORRELATION(zone, ++evaluated);
    TS_ZONE_BYTES(zone, ++evaluated);
    TS_ZONE_STEP(zone, ++evaluated);
    TS_STEP(i);
    TS_COUNTER("disabled counter", ++evaluated);
    TS_THREAD_NAME("disabled thread name");
    TS_DEVICE_EVENT(1u, ts::trace::Category::kernel, 1u, 0, 1);
  }
  return evaluated;
}

}  // namespace ts::test
