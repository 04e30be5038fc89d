#include "profiler/import/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace ts::import {

namespace {

std::string printf_text(const char* format, ...) __attribute__((format(printf, 1, 2)));
std::string printf_text(const char* format, ...) {
  char buf[128];
  va_list args;
  va_start(args, format);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  return std::string(buf, static_cast<std::size_t>(std::max(n, 0)) < sizeof buf
                              ? static_cast<std::size_t>(std::max(n, 0))
                              : sizeof buf - 1);
}

// "340 MB", "5.4 GB", "4.2 MB" (decimal units, as the import's summary line writes them).
std::string bytes_text(double bytes) {
  if (bytes >= 1e9) return printf_text("%.1f GB", bytes / 1e9);
  if (bytes >= 10e6) return printf_text("%.0f MB", bytes / 1e6);
  return printf_text("%.1f MB", bytes / 1e6);
}

// "52 M", "840 k", "312" events.
std::string count_text(std::uint64_t n) {
  if (n >= 10'000'000) return printf_text("%.0f M", static_cast<double>(n) / 1e6);
  if (n >= 1'000'000) return printf_text("%.1f M", static_cast<double>(n) / 1e6);
  if (n >= 10'000) return printf_text("%.0f k", static_cast<double>(n) / 1e3);
  return std::to_string(n);
}

std::string rate_text(double bytes_per_second) {
  if (bytes_per_second >= 1e9) return printf_text("%.2f GB/s", bytes_per_second / 1e9);
  return printf_text("%.0f MB/s", bytes_per_second / 1e6);
}

std::string seconds_left_text(double seconds) {
  if (seconds < 90) return printf_text("%.0f s left", std::ceil(seconds));
  return printf_text("%.0f min left", std::round(seconds / 60));
}

}  // namespace

std::string format_import_progress(const ImportProgress& p) {
  std::string text =
      "import: " + std::to_string(p.files_done) + "/" + std::to_string(p.files) + " files, ";
  const auto done = static_cast<double>(p.bytes_done);
  const double rate = p.seconds > 0 && p.files_done > 0 ? done / p.seconds : 0;
  if (!p.finished && p.events > 0) {
    // Writing the events of every file, merged: its own rate and time left.
    text = "import: " + std::to_string(p.files) + "/" + std::to_string(p.files) +
           " files read, writing their events: " +
           printf_text("%.0f %%", 100.0 * static_cast<double>(p.events_written) /
                                      static_cast<double>(p.events)) +
           " of " + count_text(p.events);
    const double writing = p.seconds - p.writing_since;
    if (writing > 0 && p.events_written > 0) {
      const double per_second = static_cast<double>(p.events_written) / writing;
      text += ", " + seconds_left_text(
                         static_cast<double>(p.events - std::min(p.events_written, p.events)) /
                         per_second);
    }
    return text;
  }
  if (p.finished) {
    text += bytes_text(static_cast<double>(p.bytes)) + printf_text(" in %.1f s", p.seconds);
    if (rate > 0) text += ", " + rate_text(rate);
    return text;
  }
  text += bytes_text(done) + " of " + bytes_text(static_cast<double>(p.bytes));
  if (rate > 0) {
    const double left = static_cast<double>(p.bytes > p.bytes_done ? p.bytes - p.bytes_done : 0);
    text += ", " + rate_text(rate) + ", " + seconds_left_text(left / rate);
  }
  return text;
}

ProgressStyle stderr_progress_style() {
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  const char* env = std::getenv("TRAINSCOPE_PROGRESS");
  const std::string_view setting = env != nullptr ? env : "";
  if (setting == "0") return ProgressStyle::off;
  if (terminal) return ProgressStyle::in_place;
  return setting == "1" ? ProgressStyle::lines : ProgressStyle::off;
}

ProgressPrinter::~ProgressPrinter() {
  if (line_open_) out_ << '\n' << std::flush;
}

void ProgressPrinter::update(const ImportProgress& p) {
  if (style_ == ProgressStyle::off) return;
  const bool last = p.finished;
  if (last) {
    if (!printed_) return;  // a short import says nothing
  } else if (!printed_) {
    if (p.bytes <= kLargeInputBytes && p.seconds <= kLongSeconds) return;
  } else {
    const double every =
        style_ == ProgressStyle::in_place ? kInPlaceEverySeconds : kLinesEverySeconds;
    if (p.seconds - last_ < every) return;
  }
  const std::string text = format_import_progress(p);
  if (style_ == ProgressStyle::in_place) {
    out_ << '\r' << text;
    if (text.size() < width_) out_ << std::string(width_ - text.size(), ' ');
    width_ = text.size();
    line_open_ = !last;
    if (last) out_ << '\n';
  } else {
    out_ << text << '\n';
  }
  out_.flush();
  printed_ = true;
  last_ = p.seconds;
}

}  // namespace ts::import
