// trainscope recover FILE: index, in place, the events a killed capture left staged.
#include <iostream>

#include "cli/commands.hpp"
#include "cli/keep_analysis.hpp"
#include "cli/trace_input.hpp"
#include "profiler/store/recover.hpp"

namespace ts::cli {

const char* const kRecoverHelp = R"(usage: trainscope recover FILE

A capture killed before it stopped (SIGKILL, a crash, a power cut) leaves the events of its
last commits staged in compact blocks (keep FILE-wal next to FILE). trainscope's own commands
read them as they are; 'recover' indexes them into FILE in place, so that the SQL views
(events, steps, ...) show them to other tools too, and leaves one self-contained file.
Running it again, or on a trace that stopped normally, changes nothing.
)";

int run_recover(Args& args) {
  const std::string file = trace_arguments(args, 1, "one trace file")[0];
  const store::RecoverResult r = store::recover(file);
  if (r.events_indexed > 0) keep_analysis_of(file);
  if (r.events_indexed == 0)
    std::cout << file << " holds no staged events: nothing to recover, the file is unchanged\n";
  else
    std::cout << "Indexed " << r.events_indexed << " staged events into " << file << "\n";
  return 0;
}

}  // namespace ts::cli
