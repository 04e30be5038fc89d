// A minimal streaming JSON writer: objects, arrays, strings (escaped), numbers, booleans.
#pragma once

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

namespace ts::cli {

class JsonWriter {
 public:
  JsonWriter& begin_object() { return open('{'); }
  JsonWriter& end_object() { return close('}'); }
  JsonWriter& begin_array() { return open('['); }
  JsonWriter& end_array() { return close(']'); }
  JsonWriter& key(const std::string& k) {
    separate();
    quote(k);
    out_ += ':';
    after_key_ = true;
    return *this;
  }
  JsonWriter& value(const std::string& s) {
    separate();
    quote(s);
    return *this;
  }
  JsonWriter& value(const char* s) { return value(std::string(s)); }
  JsonWriter& value(bool b) {
    separate();
    out_ += b ? "true" : "false";
    return *this;
  }
  JsonWriter& value(double d) {
    separate();
    if (!std::isfinite(d)) {
      out_ += "null";  // JSON has no inf/NaN
    } else {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.10g", d);
      out_ += buf;
    }
    return *this;
  }
  JsonWriter& value(long long i) {
    separate();
    out_ += std::to_string(i);
    return *this;
  }
  JsonWriter& value(int i) { return value(static_cast<long long>(i)); }
  JsonWriter& value(long i) { return value(static_cast<long long>(i)); }
  JsonWriter& null() {
    separate();
    out_ += "null";
    return *this;
  }
  const std::string& str() const { return out_; }

 private:
  JsonWriter& open(char c) {
    separate();
    out_ += c;
    first_.push_back(true);
    return *this;
  }
  JsonWriter& close(char c) {
    out_ += c;
    first_.pop_back();
    return *this;
  }
  void separate() {
    if (after_key_) {
      after_key_ = false;
      return;
    }
    if (!first_.empty()) {
      if (!first_.back()) out_ += ',';
      first_.back() = false;
    }
  }
  void quote(const std::string& s) {
    out_ += '"';
    for (unsigned char c : s) {
      switch (c) {
        case '"':
          out_ += "\\\"";
          break;
        case '\\':
          out_ += "\\\\";
          break;
        case '\n':
          out_ += "\\n";
          break;
        case '\r':
          out_ += "\\r";
          break;
        case '\t':
          out_ += "\\t";
          break;
        default:
          if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out_ += buf;
          } else {
            out_ += static_cast<char>(c);
          }
      }
    }
    out_ += '"';
  }
  std::string out_;
  std::vector<bool> first_;
  bool after_key_ = false;
};

}  // namespace ts::cli
