// TRAINSCOPE_TRACE=FILE: a program linking trainscope::trace records into FILE from its start
// to its exit with no code change; TRAINSCOPE_TRACE_DEVICE=off records host events only
// (SessionOptions::device_events), =every:K or =auto device events on one step in K
// (SessionOptions::device_event_every), TRAINSCOPE_TRACE_STEPS=A-B steps A to B only
// (SessionOptions::steps). A value that is none of these is a TraceError: the run goes untraced,
// with one warning.
// The linker keeps this object through the anchor symbol (ts_profiler_capture's usage requirements
// pass -u trainscope_capture_env_anchor).
#include <cstdio>
#include <cstdlib>
#include <string>

#include "trainscope/session.hpp"

extern "C" {
int trainscope_capture_env_anchor = 0;
}

namespace {

struct EnvAutostart {
  EnvAutostart() {
    const char* path = std::getenv("TRAINSCOPE_TRACE");
    if (path == nullptr || *path == '\0') return;
    try {
      ts::trace::SessionOptions options;
      if (const char* device = std::getenv("TRAINSCOPE_TRACE_DEVICE"); device && *device) {
        if (!ts::trace::parse_device_event_choice(device, options))
          throw ts::trace::TraceError(
              std::string("TRAINSCOPE_TRACE_DEVICE takes on, off, auto or every:K, not '") +
              device + "'");
      }
      if (const char* steps = std::getenv("TRAINSCOPE_TRACE_STEPS"); steps && *steps) {
        long long first = 0, last = 0;
        int used = 0;
        if (std::sscanf(steps, "%lld-%lld%n", &first, &last, &used) != 2 || steps[used] != '\0')
          throw ts::trace::TraceError(std::string("TRAINSCOPE_TRACE_STEPS takes A-B, not '") +
                                      steps + "'");
        options.steps = ts::trace::SessionOptions::StepRange{first, last};
      }
      ts::trace::start(path, {{"capture.activation", "TRAINSCOPE_TRACE"}}, options);
    } catch (const std::exception& e) {
      // Never take the traced program down: say why, run untraced.
      std::fprintf(stderr, "trainscope: TRAINSCOPE_TRACE: %s; running without tracing\n", e.what());
    }
  }
};

const EnvAutostart g_env_autostart;

}  // namespace
