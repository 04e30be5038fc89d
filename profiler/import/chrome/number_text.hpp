// Numbers as the JSON text spells them (the tokenizer parses with kParseNumbersAsStringsFlag).
// Trace timestamps are microseconds with up to three decimals of nanoseconds, e.g.
// "1712195495519689.047": 19 significant digits, more than a double holds, so they are parsed
// from the text into integer nanoseconds, never through a double.
#pragma once

#include <cstdint>
#include <string_view>

namespace ts::import {

enum class NumberParse : std::uint8_t {
  ok,
  invalid,       // not a number (also NaN, Infinity, empty text)
  out_of_range,  // a number, but it does not fit
};

// Microseconds text -> nanoseconds: the integer part times 1000 plus the first three decimals;
// a fourth decimal of 5 or more rounds away from zero, later ones are ignored. Exponent forms
// ("1.5e3") go through a double (rounded to the nearest nanosecond). Accepts what JSON allows
// for a number, plus a leading '+' (for numbers given as strings).
NumberParse micros_to_ns(std::string_view text, std::int64_t& ns);

// An integer; a decimal or exponent form is truncated toward zero when its value fits.
NumberParse parse_int64(std::string_view text, std::int64_t& value);

// Any finite number.
NumberParse parse_double(std::string_view text, double& value);

namespace detail {
// The general parses the two above fall back on for text other than the plain form
// ([-]digits[.digits] with not too many digits), which they read in one pass; the same answers
// for every text (tests compare them).
NumberParse micros_to_ns_general(std::string_view text, std::int64_t& ns);
NumberParse parse_int64_general(std::string_view text, std::int64_t& value);
}  // namespace detail

}  // namespace ts::import
