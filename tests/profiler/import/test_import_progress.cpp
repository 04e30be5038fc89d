// The progress line of long imports (profiler/import/progress.hpp): its text, and when it is
// printed (from the figures' own seconds, never from a clock).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>

#include "profiler/import/progress.hpp"

namespace ts::import {
namespace {

ImportProgress progress(std::size_t done, std::size_t files, double gb_done, double gb,
                        double seconds) {
  ImportProgress p;
  p.files_done = done;
  p.files = files;
  p.bytes_done = static_cast<std::uint64_t>(gb_done * 1e9);
  p.bytes = static_cast<std::uint64_t>(gb * 1e9);
  p.seconds = seconds;
  p.finished = done == files;
  return p;
}

// Every file read, `written` of `events` written since `since`.
ImportProgress writing(std::size_t files, double gb, std::uint64_t written, std::uint64_t events,
                       double since, double seconds) {
  ImportProgress p = progress(files, files, gb, gb, seconds);
  p.finished = false;
  p.events_written = written;
  p.events = events;
  p.writing_since = since;
  return p;
}

TEST(ImportProgress, Text) {
  EXPECT_EQ(format_import_progress(progress(12, 64, 1.2, 5.4, 3.0)),
            "import: 12/64 files, 1.2 GB of 5.4 GB, 400 MB/s, 11 s left");
  EXPECT_EQ(format_import_progress(progress(0, 64, 0, 5.4, 0)),
            "import: 0/64 files, 0.0 MB of 5.4 GB");
  EXPECT_EQ(format_import_progress(progress(3, 10, 0.3404, 1.1, 2.0)),
            "import: 3/10 files, 340 MB of 1.1 GB, 170 MB/s, 5 s left");
  EXPECT_EQ(format_import_progress(progress(1, 100, 0.1, 10, 2.0)),
            "import: 1/100 files, 100 MB of 10.0 GB, 50 MB/s, 3 min left");
  EXPECT_EQ(format_import_progress(progress(64, 64, 5.4, 5.4, 4.5)),
            "import: 64/64 files, 5.4 GB in 4.5 s, 1.20 GB/s");
  EXPECT_EQ(format_import_progress(progress(2, 2, 0.0042, 0.0042, 0.5)),
            "import: 2/2 files, 4.2 MB in 0.5 s, 8 MB/s");
  // The files' events written merged, once every file is read: their own rate.
  EXPECT_EQ(format_import_progress(writing(256, 10.9, 0, 52'066'872, 29.0, 29.0)),
            "import: 256/256 files read, writing their events: 0 % of 52 M");
  EXPECT_EQ(format_import_progress(writing(256, 10.9, 13'000'000, 52'000'000, 29.0, 34.0)),
            "import: 256/256 files read, writing their events: 25 % of 52 M, 15 s left");
  EXPECT_EQ(format_import_progress(writing(4, 1.0, 600'000, 2'400'000, 1.0, 1.5)),
            "import: 4/4 files read, writing their events: 25 % of 2.4 M, 2 s left");
  EXPECT_EQ(format_import_progress(writing(2, 0.01, 4'000, 12'000, 1.0, 1.5)),
            "import: 2/2 files read, writing their events: 33 % of 12 k, 1 s left");
}

// The writing is shown as the reading was; the line ends only when the trace is finished.
TEST(ImportProgress, TheWritingOfAJobsEventsIsShownUntilTheTraceIsFinished) {
  std::ostringstream out;
  ProgressPrinter printer(out, ProgressStyle::lines);
  printer.update(progress(0, 2, 0, 1.0, 0));
  printer.update(writing(2, 1.0, 0, 1'000'000, 6.0, 6.0));
  printer.update(writing(2, 1.0, 500'000, 1'000'000, 6.0, 12.0));
  printer.update(progress(2, 2, 1.0, 1.0, 18.0));
  EXPECT_EQ(out.str(),
            "import: 0/2 files, 0.0 MB of 1.0 GB\n"
            "import: 2/2 files read, writing their events: 0 % of 1.0 M\n"
            "import: 2/2 files read, writing their events: 50 % of 1.0 M, 6 s left\n"
            "import: 2/2 files, 1.0 GB in 18.0 s, 56 MB/s\n");
}

TEST(ImportProgress, InPlaceOnATerminalForALargeImport) {
  std::ostringstream out;
  ProgressPrinter printer(out, ProgressStyle::in_place);
  printer.update(progress(0, 4, 0, 1.0, 0));
  printer.update(progress(1, 4, 0.25, 1.0, 0.1));  // within 0.25 s of the last: not printed
  printer.update(progress(2, 4, 0.5, 1.0, 1.0));
  printer.update(progress(4, 4, 1.0, 1.0, 2.0));  // the end, always
  EXPECT_EQ(out.str(),
            "\rimport: 0/4 files, 0.0 MB of 1.0 GB"
            "\rimport: 2/4 files, 500 MB of 1.0 GB, 500 MB/s, 1 s left"
            "\rimport: 4/4 files, 1.0 GB in 2.0 s, 500 MB/s           \n");
}

TEST(ImportProgress, AFailedImportLeavesNoLineOpen) {
  std::ostringstream out;
  {
    ProgressPrinter printer(out, ProgressStyle::in_place);
    printer.update(progress(0, 4, 0, 1.0, 0));
  }  // the import threw: its error must start a line of its own
  EXPECT_EQ(out.str(), "\rimport: 0/4 files, 0.0 MB of 1.0 GB\n");
}

TEST(ImportProgress, ASmallQuickImportPrintsNothing) {
  std::ostringstream out;
  ProgressPrinter printer(out, ProgressStyle::in_place);
  printer.update(progress(0, 3, 0, 0.1, 0));
  printer.update(progress(1, 3, 0.03, 0.1, 0.5));
  printer.update(progress(3, 3, 0.1, 0.1, 1.5));
  EXPECT_EQ(out.str(), "");
}

TEST(ImportProgress, ASmallSlowImportIsShownOnceItRunsLong) {
  std::ostringstream out;
  ProgressPrinter printer(out, ProgressStyle::lines);
  printer.update(progress(0, 8, 0, 0.2, 0));
  printer.update(progress(1, 8, 0.025, 0.2, 1.0));
  printer.update(progress(2, 8, 0.05, 0.2, 2.5));   // past 2 s: printed
  printer.update(progress(3, 8, 0.075, 0.2, 6.0));  // 3.5 s later: not yet
  printer.update(progress(4, 8, 0.1, 0.2, 7.6));    // 5.1 s later: printed
  printer.update(progress(8, 8, 0.2, 0.2, 9.0));
  EXPECT_EQ(out.str(),
            "import: 2/8 files, 50 MB of 200 MB, 20 MB/s, 8 s left\n"
            "import: 4/8 files, 100 MB of 200 MB, 13 MB/s, 8 s left\n"
            "import: 8/8 files, 200 MB in 9.0 s, 22 MB/s\n");
}

TEST(ImportProgress, OffPrintsNothing) {
  std::ostringstream out;
  ProgressPrinter printer(out, ProgressStyle::off);
  printer.update(progress(0, 4, 0, 10, 0));
  printer.update(progress(2, 4, 5, 10, 30));
  printer.update(progress(4, 4, 10, 10, 60));
  EXPECT_EQ(out.str(), "");
}

TEST(ImportProgress, StyleFromTheEnvironment) {
  if (::isatty(STDERR_FILENO) != 0) GTEST_SKIP() << "stderr is a terminal";
  ::setenv("TRAINSCOPE_PROGRESS", "1", 1);
  EXPECT_EQ(stderr_progress_style(), ProgressStyle::lines);
  ::setenv("TRAINSCOPE_PROGRESS", "0", 1);
  EXPECT_EQ(stderr_progress_style(), ProgressStyle::off);
  ::unsetenv("TRAINSCOPE_PROGRESS");
  EXPECT_EQ(stderr_progress_style(), ProgressStyle::off);
}

}  // namespace
}  // namespace ts::import
