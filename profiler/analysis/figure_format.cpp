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
  // Amounts below one unit keep two significant digits (idle time per 1 000 steps of a small
  // model costs fractions of a cent), with 2 to 8 decimals.
  if (a != 0 && a < 1) {
    const int decimals = std::clamp(1 - static_cast<int>(std::floor(std::log10(a))), 2, 8);
    return std::string(currency) + printf("%.*f", decimals, v);
  }
  const std::string digits = group(printf("%.2f", v));
  return std::string(currency) + digits;
}

std::string count(std::int64_t n) {
  return group(printf("%lld", static_cast<long long>(n)));
}

}  // namespace ts::analysis::fmt
