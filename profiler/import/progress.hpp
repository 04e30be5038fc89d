// A progress line on stderr for long imports (ImportOptions::progress):
//   import: 12/64 files, 1.2 GB of 5.4 GB, 410 MB/s, 9 s left
// rewritten in place on a terminal, a line every few seconds otherwise, nothing for short ones.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

#include "profiler/import/import.hpp"

namespace ts::import {

// "import: 12/64 files, 1.2 GB of 5.4 GB, 410 MB/s, 9 s left" (rate and time left once a file
// is read); then, for several files, "import: 64/64 files read, writing their events: 40 % of
// 52 M, 12 s left"; once the trace is finished, "import: 64/64 files, 5.4 GB in 13 s, 410 MB/s".
std::string format_import_progress(const ImportProgress& p);

enum class ProgressStyle {
  off,
  in_place,  // '\r' and the line again (a terminal)
  lines,     // one line every few seconds (a log file)
};

// The style for stderr: TRAINSCOPE_PROGRESS=0 off; =1 on (in place on a terminal, else lines);
// otherwise in place on a terminal, else off.
ProgressStyle stderr_progress_style();

class ProgressPrinter {
 public:
  // An import is long, and shown, when its input is larger than this or it has run longer.
  static constexpr std::uint64_t kLargeInputBytes = std::uint64_t{256} << 20;
  static constexpr double kLongSeconds = 2.0;
  static constexpr double kInPlaceEverySeconds = 0.25;
  static constexpr double kLinesEverySeconds = 5.0;

  ProgressPrinter(std::ostream& out, ProgressStyle style) : out_(out), style_(style) {}
  // Ends a line left in place by an import that failed, so that its error starts a line.
  ~ProgressPrinter();
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;

  // Prints `p` when the import is long, at most every kInPlaceEverySeconds (in place) or
  // kLinesEverySeconds (lines); the finished import always once anything was printed, ending the
  // line.
  void update(const ImportProgress& p);

 private:
  std::ostream& out_;
  ProgressStyle style_;
  bool printed_ = false;
  bool line_open_ = false;  // a line in place without its newline yet
  double last_ = 0;         // p.seconds of the last print
  std::size_t width_ = 0;   // of the line in place, to blank a longer one
};

}  // namespace ts::import
