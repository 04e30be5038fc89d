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
std::string pp(double points);          // a change of a share: "+4.2 pp", "-21.1 pp", "0.0 pp"
std::string ms(double milliseconds);    // "1.84 ms", "1 234 ms" with enough digits to read
std::string duration(std::int64_t ns);  // picks ns, µs, ms or s: "850 ns", "12.3 µs"
// "$0.12", "-$0.42", "$1 234.50", "$0.0028"; "under $0.001" for a smaller amount of either sign
// (the caller words the sign: "saves", "more"). Never scientific notation.
std::string money(double amount, std::string_view currency);
// The number of steps over which a cost per step reads in cents: 1 000 steps, else 1 M steps.
// A table of several figures takes the scale of its largest, so that they read side by side.
struct CostScale {
  double steps = 1e3;
  std::string name = "1 000 steps";
};
CostScale cost_scale(double largest_cost_per_step);
// "$0.42 per 1 000 steps", "$3.80 per 1 M steps".
std::string money_per_steps(double cost_per_step, std::string_view currency);
// Device time in the unit its size needs: "2.40 device-hours", "12.5 device-minutes",
// "95.8 ms of device time" (never "2.66e-05 device-hours").
std::string device_time(double hours);
std::string count(std::int64_t n);  // "1 000 000" (groups of three, as the docs write)
inline double to_ms(std::int64_t ns) {
  return static_cast<double>(ns) / 1e6;
}

}  // namespace ts::analysis::fmt
