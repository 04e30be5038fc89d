// trainscope: train with a built-in engine and profile why training is slow.
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "cli/dist_trace.hpp"
#include "engine/backend/factory.hpp"
#include "engine/data/dataset.hpp"
#include "engine/dist/runtime.hpp"
#include "profiler/import/import.hpp"
#include "profiler/io/chrome_trace.hpp"
#include "profiler/store/error.hpp"

namespace {

bool wants_help(const std::vector<std::string>& words) {
  for (const auto& w : words)
    if (w == "--help" || w == "-h") return true;
  return false;
}

// The exit status of an unexpected exception (1 is a failed check's, 2 bad usage or input).
constexpr int kInternalError = 3;

// Prints the error (with the rank in a job of several). A rank of a job whose error the other
// ranks do not share marks its trace part, then ends the job (MPI_Abort) so that none waits in a
// collective forever; an error every rank found (`agreed`) lets each rank exit on its own.
int fail(const std::string& message, int status, bool agreed = false) {
  const bool distributed = ts::dist::is_distributed();
  const std::string rank =
      distributed ? "rank " + std::to_string(ts::dist::world().rank()) + ": " : "";
  // One write per line: the ranks' stderr streams interleave at write boundaries.
  std::cerr << "trainscope: " + rank + message + "\n";
  if (distributed) {
    ts::cli::mark_part_failed(message);
    if (!agreed) std::cerr << "trainscope: " + rank + "ending the whole job (MPI_Abort)\n";
    ts::dist::end_job_after_error(status, agreed);
  }
  ts::dist::finalize();
  return status;
}

}  // namespace

int main(int argc, char** argv) {
  // A file grown past the process's size limit (`ulimit -f`, a quota-like full disk) is a write
  // error each writer reports as one clear error, cleaning up after itself, rather than a signal
  // that kills the command and leaves a half-written trace under its temporary name.
  std::signal(SIGXFSZ, SIG_IGN);
  if (argc < 2) {
    std::cerr << ts::cli::usage();
    return 2;
  }
  const std::string command = argv[1];
  std::vector<std::string> words(argv + 2, argv + argc);
  if (command == "--help" || command == "-h" || command == "help") {
    std::cout << ts::cli::usage();
    return 0;
  }
  if (command == "--version") {
    std::cout << "trainscope " TRAINSCOPE_VERSION "\n";
    return 0;
  }
  try {
    ts::cli::Args args(command, words);
    if (const ts::cli::Command* c = ts::cli::find_command(command)) {
      if (wants_help(words)) {
        std::cout << ts::cli::help_text(*c);
        return 0;
      }
      const int status = c->run(args);
      // What the command printed must have reached standard output: a full disk or a closed
      // device behind it is an error, not a silent success.
      if (std::fflush(stdout) != 0 || std::ferror(stdout))
        return fail(std::string("cannot write to standard output: ") +
                        std::strerror(errno != 0 ? errno : EIO),
                    2);
      ts::dist::finalize();
      return status;
    }
    std::string names;
    for (const ts::cli::Command& c : ts::cli::commands())
      names += (names.empty() ? "" : ", ") + std::string(c.name);
    std::cerr << "trainscope: unknown command '" << command << "' (commands: " << names
              << "; see 'trainscope --help')\n";
    return 2;
  } catch (const ts::cli::UsageError& e) {
    return fail(e.what(), 2);
  } catch (const ts::dist::AgreedError& e) {
    return fail(e.what(), 2, true);
  } catch (const ts::store::Error& e) {
    return fail(e.what(), 2);
  } catch (const ts::import::ImportError& e) {
    return fail(e.what(), 2);
  } catch (const ts::io::WriteError& e) {
    return fail(e.what(), 2);
  } catch (const ts::BackendError& e) {
    return fail(e.what(), 2);
  } catch (const ts::DatasetError& e) {
    return fail(e.what(), 2);
  } catch (const std::invalid_argument& e) {
    return fail(e.what(), 2);
  } catch (const std::exception& e) {
    // Not an error the program expects: exit 1 stays a failed check's alone.
    return fail(std::string("internal error: ") + e.what(), kInternalError);
  } catch (...) {
    return fail("internal error: an unknown exception", kInternalError);
  }
}
