// A strict JSON parser for tests (RFC 8259: grammar, escapes, well-formed UTF-8, no trailing
// text), building a small document tree so a test can check keys and count events. Parse
// errors throw JsonError with the byte offset. Not for large files: it holds the whole tree.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace ts::test {

class JsonError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct Json {
  enum class Type { null, boolean, number, string, array, object };
  Type type = Type::null;
  bool boolean = false;
  double number = 0;
  std::string text;               // string value, or the number as written
  std::vector<Json> items;        // array
  std::vector<std::string> keys;  // object keys in order (duplicates allowed by RFC)
  std::vector<Json> values;       // object values, parallel to keys

  bool is(Type t) const { return type == t; }
  // The value of `key` (the last one of that name), or nullptr.
  const Json* find(std::string_view key) const;
  // The value of `key`; throws JsonError when absent.
  const Json& at(std::string_view key) const;
};

Json parse_json(std::string_view text);

}  // namespace ts::test
