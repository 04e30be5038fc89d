// A small JSON writer for the reports: indented output (golden files diff line by line),
// strings escaped and made valid UTF-8 (names come from trace files, which may be hostile),
// numbers rounded to a fixed number of decimals and never NaN or infinity (written as null).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::analysis {

class JsonOut {
 public:
  JsonOut& begin_object();
  JsonOut& end_object();
  JsonOut& begin_array();
  JsonOut& end_array();
  JsonOut& key(std::string_view k);

  JsonOut& str(std::string_view s);
  JsonOut& num(double v, int decimals = 3);
  JsonOut& integer(std::int64_t v);
  JsonOut& boolean(bool b);
  JsonOut& null();
  template <class T>
  JsonOut& opt_str(const std::optional<T>& s) {
    return s ? str(*s) : null();
  }

  // key + value in one call.
  JsonOut& field(std::string_view k, std::string_view v) { return key(k).str(v); }
  JsonOut& field(std::string_view k, const char* v) { return key(k).str(v); }
  JsonOut& field(std::string_view k, double v, int decimals = 3) { return key(k).num(v, decimals); }
  JsonOut& field(std::string_view k, std::int64_t v) { return key(k).integer(v); }
  JsonOut& field(std::string_view k, bool v) { return key(k).boolean(v); }

  // The document, with a trailing newline.
  std::string finish();

 private:
  void before_value();
  void newline();
  std::string out_;
  std::vector<bool> first_;  // per open container: no element written yet
  bool after_key_ = false;
};

// `s` as a JSON string literal, quotes included. Invalid UTF-8 becomes U+FFFD.
std::string json_quote(std::string_view s);

}  // namespace ts::analysis
