#include "profiler/import/chrome/number_text.hpp"

#include <charconv>
#include <cmath>
#include <system_error>

namespace ts::import {

namespace {

constexpr double kInt64Limit = 9.2e18;  // below INT64_MAX, with room for rounding

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

// The parts of a decimal number's text: [sign] int [. frac] [e|E [sign] digits].
struct Decimal {
  bool negative = false;
  std::string_view integer, fraction;
  bool exponent = false;
};

bool split(std::string_view t, Decimal& d) {
  std::size_t i = 0;
  if (i < t.size() && (t[i] == '-' || t[i] == '+')) d.negative = t[i++] == '-';
  const std::size_t int_begin = i;
  while (i < t.size() && is_digit(t[i])) ++i;
  d.integer = t.substr(int_begin, i - int_begin);
  if (i < t.size() && t[i] == '.') {
    const std::size_t frac_begin = ++i;
    while (i < t.size() && is_digit(t[i])) ++i;
    d.fraction = t.substr(frac_begin, i - frac_begin);
  }
  if (d.integer.empty() && d.fraction.empty()) return false;
  if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
    ++i;
    if (i < t.size() && (t[i] == '-' || t[i] == '+')) ++i;
    const std::size_t exp_begin = i;
    while (i < t.size() && is_digit(t[i])) ++i;
    if (i == exp_begin) return false;
    d.exponent = true;
  }
  return i == t.size();
}

// Digits -> value, false on overflow.
bool accumulate(std::string_view digits, std::int64_t& v) {
  for (const char c : digits)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return false;
  return true;
}

// Through a double: only for exponent forms, which no trace writer we know emits.
NumberParse via_double(std::string_view text, double scale, bool truncate, std::int64_t& out) {
  double x = 0;
  if (parse_double(text, x) != NumberParse::ok) return NumberParse::invalid;
  x *= scale;
  if (!(std::fabs(x) < kInt64Limit)) return NumberParse::out_of_range;
  out = truncate ? static_cast<std::int64_t>(x) : std::llround(x);
  return NumberParse::ok;
}

// The form almost every trace writes, [-]digits[.digits] with at most 16 integer digits whose
// value stays below what overflows once times 1000, in one pass; false for any other text, left
// to the general parse. (Epoch microseconds have 16 digits.)
bool plain_micros_to_ns(std::string_view t, std::int64_t& ns) {
  const std::size_t n = t.size();
  const bool negative = n > 0 && t[0] == '-';
  std::size_t i = negative ? 1 : 0;
  const std::size_t int_begin = i;
  std::uint64_t v = 0;  // unsigned: a long run of digits wraps, and is refused below
  for (; i < n && is_digit(t[i]); ++i) v = v * 10 + static_cast<std::uint64_t>(t[i] - '0');
  constexpr std::uint64_t kMaxMicros = (std::uint64_t{INT64_MAX} - 1000) / 1000;
  if (i == int_begin || i - int_begin > 16 || v > kMaxMicros) return false;
  std::uint64_t frac = 0;
  if (i < n) {
    if (t[i] != '.') return false;
    const std::size_t frac_begin = ++i;
    while (i < n && is_digit(t[i])) ++i;
    if (i != n) return false;
    const std::size_t digits = i - frac_begin;
    for (std::size_t k = 0; k < 3; ++k)
      frac = frac * 10 + (k < digits ? static_cast<std::uint64_t>(t[frac_begin + k] - '0') : 0);
    if (digits > 3 && t[frac_begin + 3] >= '5') ++frac;
  }
  const auto total = static_cast<std::int64_t>(v * 1000 + frac);
  ns = negative ? -total : total;
  return true;
}

// [-]digits with at most 18 of them (an int64 holds any), in one pass; false otherwise.
bool plain_int64(std::string_view t, std::int64_t& value) {
  const std::size_t n = t.size();
  const bool negative = n > 0 && t[0] == '-';
  std::size_t i = negative ? 1 : 0;
  if (n == i || n - i > 18) return false;
  std::int64_t v = 0;
  for (; i < n; ++i) {
    if (!is_digit(t[i])) return false;
    v = v * 10 + (t[i] - '0');
  }
  value = negative ? -v : v;
  return true;
}

}  // namespace

namespace detail {

NumberParse micros_to_ns_general(std::string_view text, std::int64_t& ns) {
  Decimal d;
  if (!split(text, d)) return NumberParse::invalid;
  if (d.exponent) return via_double(text, 1000.0, false, ns);
  std::int64_t v = 0;
  if (!accumulate(d.integer, v)) return NumberParse::out_of_range;
  std::int64_t frac = 0;
  for (std::size_t k = 0; k < 3; ++k)
    frac = frac * 10 + (k < d.fraction.size() ? d.fraction[k] - '0' : 0);
  if (d.fraction.size() > 3 && d.fraction[3] >= '5') ++frac;  // may reach 1000: carries below
  if (__builtin_mul_overflow(v, 1000, &v) || __builtin_add_overflow(v, frac, &v))
    return NumberParse::out_of_range;
  ns = d.negative ? -v : v;
  return NumberParse::ok;
}

NumberParse parse_int64_general(std::string_view text, std::int64_t& value) {
  Decimal d;
  if (!split(text, d)) return NumberParse::invalid;
  if (d.exponent) return via_double(text, 1.0, true, value);
  std::int64_t v = 0;
  if (!accumulate(d.integer, v)) return NumberParse::out_of_range;
  value = d.negative ? -v : v;
  return NumberParse::ok;
}

}  // namespace detail

NumberParse micros_to_ns(std::string_view text, std::int64_t& ns) {
  return plain_micros_to_ns(text, ns) ? NumberParse::ok : detail::micros_to_ns_general(text, ns);
}

NumberParse parse_int64(std::string_view text, std::int64_t& value) {
  return plain_int64(text, value) ? NumberParse::ok : detail::parse_int64_general(text, value);
}

NumberParse parse_double(std::string_view text, double& value) {
  Decimal d;
  if (!split(text, d)) return NumberParse::invalid;
  // from_chars: locale-independent (a GUI may have set LC_NUMERIC); it takes no leading '+'.
  if (text.front() == '+') text.remove_prefix(1);
  double x = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
  if (ec == std::errc::result_out_of_range || !std::isfinite(x)) return NumberParse::out_of_range;
  if (ec != std::errc() || end != text.data() + text.size()) return NumberParse::invalid;
  value = x;
  return NumberParse::ok;
}

}  // namespace ts::import
