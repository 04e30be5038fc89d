// The JSON writer of every output trainscope writes (reports, diffs, training summaries, Chrome
// trace export), built on RapidJSON's writers, with one policy:
// - strings (keys too) are escaped and made valid UTF-8: each byte that does not start a
//   well-formed sequence becomes U+FFFD (names come from trace files, which may be hostile);
// - numbers are never NaN or infinity: a non-finite number is written as null;
// - `num(v, decimals)` rounds to a fixed number of decimals (golden files stay stable across
//   machines' float formatting), `real(v)` writes the shortest text that reads back as v.
// The text goes into a string (`finish()` returns it) or, for large outputs, through a 64 KiB
// buffer to a std::ostream, so a 10 M-event trace is never held in memory as one string.
// `Writer` is compact; `IndentedWriter` puts each member and element on its own line, indented
// by two spaces.
#pragma once

#include <rapidjson/prettywriter.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <string_view>

#include "profiler/json/utf8.hpp"

namespace ts::json {

// The output stream failed (disk full, closed pipe); what() says what was being written.
class WriteError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Where a writer's text goes: a growing string, or a std::ostream through a fixed buffer.
// A RapidJSON output stream (Put, Flush; PutReserve and PutUnsafe below) that also writes
// strings by the policy above, and raw text, in one piece (the Writer specialisations below).
class Sink {
 public:
  using Ch = char;
  Sink() = default;
  explicit Sink(std::ostream& out);

  void Put(char c) {
    if (cur_ == end_) make_room(1);
    *cur_++ = c;
  }
  void Flush() {}  // RapidJSON calls it after each root value; finish() does the writing
  void reserve(std::size_t n) {
    if (static_cast<std::size_t>(end_ - cur_) < n) make_room(n);
  }
  void put_reserved(char c) { *cur_++ = c; }
  void put_raw(const char* text, std::size_t n) {
    reserve(n);
    std::memcpy(cur_, text, n);
    cur_ += n;
  }
  // `s` quoted and escaped, each byte that starts no well-formed UTF-8 sequence as U+FFFD.
  void put_string(std::string_view s);

  // The text written (string sink), or "" after writing it all out (stream sink; throws
  // WriteError when the stream has failed).
  std::string finish();

 private:
  void make_room(std::size_t n);
  std::ostream* out_ = nullptr;
  std::string buf_;  // text in [buf_.data(), cur_), room in [cur_, end_)
  char* cur_ = nullptr;
  char* end_ = nullptr;
};

// RapidJSON reserves room before writing a token, then writes its bytes unchecked (found by
// argument-dependent lookup; preferred to RapidJSON's generic templates).
inline void PutReserve(Sink& sink, std::size_t count) {
  sink.reserve(count);
}
inline void PutUnsafe(Sink& sink, char c) {
  sink.put_reserved(c);
}

}  // namespace ts::json

// RapidJSON's Writer keeps the structure (commas, colons, nesting, indentation) and formats
// integers and doubles; strings and raw values go to the Sink in one piece instead of byte by
// byte, which also puts the string policy in the one place every string passes.
template <>
inline bool rapidjson::Writer<ts::json::Sink>::WriteString(const Ch* str, SizeType length) {
  os_->put_string(std::string_view(str, length));
  return true;
}
template <>
inline bool rapidjson::Writer<ts::json::Sink>::WriteRawValue(const Ch* json, size_t length) {
  os_->put_raw(json, length);
  return true;
}

namespace ts::json {

// `v` rounded to `decimals` (0-17) decimals, trailing zeros trimmed ("12.500" -> "12.5",
// "3.000" -> "3", "-0" -> "0"); exponent form from 1e15 up. v is finite. Returns the length
// written into buf.
std::size_t format_fixed(double v, int decimals, char (&buf)[64]);

// `s` as a quoted JSON string, escaped by the policy above (for BasicWriter::quoted).
std::string quote(std::string_view s);

template <class Base>
class BasicWriter {
 public:
  BasicWriter() : w_(sink_) { init(); }
  explicit BasicWriter(std::ostream& out) : sink_(out), w_(sink_) { init(); }
  BasicWriter(const BasicWriter&) = delete;
  BasicWriter& operator=(const BasicWriter&) = delete;

  BasicWriter& begin_object() {
    w_.StartObject();
    return *this;
  }
  BasicWriter& end_object() {
    w_.EndObject();
    return *this;
  }
  BasicWriter& begin_array() {
    w_.StartArray();
    return *this;
  }
  BasicWriter& end_array() {
    w_.EndArray();
    return *this;
  }
  BasicWriter& key(std::string_view k) {
    w_.Key(k.data(), size(k));
    return *this;
  }

  BasicWriter& str(std::string_view s) {
    w_.String(s.data(), size(s));
    return *this;
  }
  // A string value already quoted and escaped by quote() below: copied as it is (a name
  // written millions of times is escaped once).
  BasicWriter& quoted(std::string_view json_string) {
    w_.RawValue(json_string.data(), json_string.size(), rapidjson::kStringType);
    return *this;
  }
  // Rounded to `decimals` decimals; null when not finite.
  BasicWriter& num(double v, int decimals = 3) {
    if (!std::isfinite(v)) return null();
    char buf[64];
    return number_text(std::string_view(buf, format_fixed(v, decimals, buf)));
  }
  // The shortest text that reads back as v; null when not finite.
  BasicWriter& real(double v) {
    if (!std::isfinite(v)) return null();
    w_.Double(v);
    return *this;
  }
  BasicWriter& integer(std::int64_t v) {
    w_.Int64(v);
    return *this;
  }
  // A number already formatted as JSON (e.g. exact decimals made from integers).
  BasicWriter& number_text(std::string_view text) {
    w_.RawValue(text.data(), text.size(), rapidjson::kNumberType);
    return *this;
  }
  BasicWriter& boolean(bool b) {
    w_.Bool(b);
    return *this;
  }
  BasicWriter& null() {
    w_.Null();
    return *this;
  }
  template <class T>
  BasicWriter& opt_str(const std::optional<T>& s) {
    return s ? str(*s) : null();
  }

  // key + value in one call.
  BasicWriter& field(std::string_view k, std::string_view v) { return key(k).str(v); }
  BasicWriter& field(std::string_view k, const char* v) { return key(k).str(v); }
  BasicWriter& field(std::string_view k, double v, int decimals = 3) {
    return key(k).num(v, decimals);
  }
  BasicWriter& field(std::string_view k, std::int64_t v) { return key(k).integer(v); }
  BasicWriter& field(std::string_view k, bool v) { return key(k).boolean(v); }

  // A line break between two tokens (whitespace, so the document means the same): keeps a long
  // array readable line by line.
  BasicWriter& line_break() {
    sink_.Put('\n');
    return *this;
  }

  // Ends the document with a newline and returns it; a writer to a stream writes everything
  // out instead (WriteError when the stream has failed) and returns "".
  std::string finish() {
    sink_.Put('\n');
    return sink_.finish();
  }

 private:
  static rapidjson::SizeType size(std::string_view s) {
    return static_cast<rapidjson::SizeType>(s.size());
  }
  void init() {
    if constexpr (requires(Base & b) { b.SetIndent(' ', 2); }) w_.SetIndent(' ', 2);
  }

  Sink sink_;
  Base w_;
};

using Writer = BasicWriter<rapidjson::Writer<Sink>>;
using IndentedWriter = BasicWriter<rapidjson::PrettyWriter<Sink>>;

}  // namespace ts::json
