#include "profiler/analysis/figure_format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace ts::analysis::fmt {

std::string printf(const char* format, ...) {
  char buf[256];
  va_list args;
  va_start(args, format);
  va_list again;
  va_copy(again, args);
  const int n = std::vsnprintf(buf, sizeof buf, format, args);
  va_end(args);
  std::string out;
  if (n < 0) {
    va_end(again);
    return out;
  }
  if (static_cast<std::size_t>(n) < sizeof buf) {
    out.assign(buf, static_cast<std::size_t>(n));
  } else {
    out.resize(static_cast<std::size_t>(n) + 1);
    std::vsnprintf(out.data(), out.size(), format, again);
    out.resize(static_cast<std::size_t>(n));
  }
  va_end(again);
  return out;
}

namespace {

double finite(double v) {
  return std::isfinite(v) ? v : 0.0;
}

constexpr double kSmallestMoney = 0.001;

// Groups the integer digits of a formatted number in threes with spaces, as the reports and the
// docs write figures ("1 000 steps"): "1234567.8" -> "1 234 567.8". Four digits stay as they are.
std::string group(std::string s) {
  const std::size_t sign = !s.empty() && s[0] == '-' ? 1 : 0;
  std::size_t end = s.find('.');
  if (end == std::string::npos) end = s.size();
  if (end - sign < 5) return s;
  for (std::size_t i = end; i > sign + 3; i -= 3) s.insert(i - 3, 1, ' ');
  return s;
}

}  // namespace

std::string pct(double p) {
  return printf("%.1f %%", finite(p));
}

std::string pp(double points) {
  const double v = finite(points);
  // No "-0.0 pp" for a change that rounds to nothing.
  return std::fabs(v) < 0.05 ? "0.0 pp" : printf("%+.1f pp", v);
}

std::string ms(double milliseconds) {
  const double v = finite(milliseconds);
  const double a = std::fabs(v);
  if (a >= 100) return group(printf("%.0f", v)) + " ms";
  if (a >= 10) return printf("%.1f ms", v);
  return printf("%.2f ms", v);
}

std::string duration(std::int64_t ns) {
  const double v = static_cast<double>(ns);
  const double a = std::fabs(v);
  if (a < 1e3) return printf("%lld ns", static_cast<long long>(ns));
  if (a < 1e6) return printf(a < 1e4 ? "%.2f µs" : "%.1f µs", v / 1e3);
  if (a < 1e9) return ms(v / 1e6);
  return printf("%.2f s", v / 1e9);
}

std::string money(double amount, std::string_view currency) {
  const double v = finite(amount);
  const double a = std::fabs(v);
  const std::string sign = v < 0 ? "-" : "";
  // The sign comes before the currency ("-$0.42"). Amounts below one unit keep two significant
  // digits down to a tenth of a cent ("$0.011", "$0.0028"); below that the figure is noise at any
  // price, and reads as such instead of as "$0.00000038".
  if (a != 0 && a < kSmallestMoney) return "under " + std::string(currency) + "0.001";
  if (a != 0 && a < 1) {
    const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(a))), 2, 4);
    return sign + std::string(currency) + printf("%.*f", decimals, a);
  }
  return sign + std::string(currency) + group(printf("%.2f", a));
}

CostScale cost_scale(double largest_cost_per_step) {
  const double a = std::fabs(finite(largest_cost_per_step));
  if (a == 0 || a * 1e3 >= 0.01) return {1e3, "1 000 steps"};
  return {1e6, "1 M steps"};
}

std::string money_per_steps(double cost_per_step, std::string_view currency) {
  const CostScale s = cost_scale(cost_per_step);
  return money(cost_per_step * s.steps, currency) + " per " + s.name;
}

std::string device_time(double hours) {
  const double h = finite(hours);
  const double a = std::fabs(h);
  if (a >= 1) return group(printf("%.2f", h)) + " device-hours";
  if (a * 60 >= 1) return printf("%.1f", h * 60) + " device-minutes";
  return duration(std::llround(h * 3600e9)) + " of device time";
}

std::string count(std::int64_t n) {
  return group(printf("%lld", static_cast<long long>(n)));
}

}  // namespace ts::analysis::fmt
