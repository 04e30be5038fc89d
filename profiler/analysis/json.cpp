#include "profiler/analysis/json.hpp"

#include <cmath>
#include <cstdio>

#include "profiler/analysis/format.hpp"

namespace ts::analysis {

std::string json_quote(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (std::size_t i = 0; i < s.size();) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
      ++i;
    } else if (c == '\n') {
      out += "\\n";
      ++i;
    } else if (c == '\t') {
      out += "\\t";
      ++i;
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04x", c);
      out += buf;
      ++i;
    } else if (const std::size_t n = fmt::utf8_length(s, i); n > 0) {
      out.append(s.substr(i, n));
      i += n;
    } else {
      out += "\xEF\xBF\xBD";  // U+FFFD for a byte that starts no valid sequence
      ++i;
    }
  }
  out += '"';
  return out;
}

void JsonOut::newline() {
  out_ += '\n';
  out_.append(2 * first_.size(), ' ');
}

void JsonOut::before_value() {
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (first_.empty()) return;
  if (!first_.back()) out_ += ',';
  first_.back() = false;
  newline();
}

JsonOut& JsonOut::begin_object() {
  before_value();
  out_ += '{';
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::end_object() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += '}';
  return *this;
}

JsonOut& JsonOut::begin_array() {
  before_value();
  out_ += '[';
  first_.push_back(true);
  return *this;
}

JsonOut& JsonOut::end_array() {
  const bool empty = first_.back();
  first_.pop_back();
  if (!empty) newline();
  out_ += ']';
  return *this;
}

JsonOut& JsonOut::key(std::string_view k) {
  before_value();
  out_ += json_quote(k);
  out_ += ": ";
  after_key_ = true;
  return *this;
}

JsonOut& JsonOut::str(std::string_view s) {
  before_value();
  out_ += json_quote(s);
  return *this;
}

JsonOut& JsonOut::num(double v, int decimals) {
  if (!std::isfinite(v)) return null();
  before_value();
  char buf[64];
  if (std::fabs(v) >= 1e15) {  // fixed notation would not fit; exponent form is valid JSON
    std::snprintf(buf, sizeof buf, "%.17g", v);
    out_ += buf;
    return *this;
  }
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  // Trim trailing zeros ("12.500" -> "12.5", "3.000" -> "3"), and "-0" to "0".
  if (s.find('.') != std::string::npos) {
    while (s.back() == '0') s.pop_back();
    if (s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  out_ += s;
  return *this;
}

JsonOut& JsonOut::integer(std::int64_t v) {
  before_value();
  out_ += std::to_string(v);
  return *this;
}

JsonOut& JsonOut::boolean(bool b) {
  before_value();
  out_ += b ? "true" : "false";
  return *this;
}

JsonOut& JsonOut::null() {
  before_value();
  out_ += "null";
  return *this;
}

std::string JsonOut::finish() {
  out_ += '\n';
  return std::move(out_);
}

}  // namespace ts::analysis
