// How a figure is written: the number formats shared by the text report, the recommendations,
// the diff, the CLI and the viewer, so the same figure reads the same everywhere: "63.0 %",
// "1.84 ms", "$0.12", "1 000 000".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ts::analysis::fmt {

// printf into a std::string.
std::string printf(const char* format, ...) __attribute__((format(printf, 1, 2)));

std::string pct(double p);              // "63.0 %"
std::string ms(double milliseconds);    // "1.84 ms", "1 234 ms" with enough digits to read
std::string duration(std::int64_t ns);  // picks ns, µs, ms or s: "850 ns", "12.3 µs"
std::string money(double amount, std::string_view currency);  // "$0.12", "$1 234.50"
std::string count(std::int64_t n);  // "1 000 000" (groups of three, as the docs write)
inline double to_ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace ts::analysis::fmt
