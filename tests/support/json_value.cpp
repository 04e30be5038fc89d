#include "tests/support/json_value.hpp"

#include <cstdlib>

#include "tests/support/utf8_append.hpp"

namespace ts::test {

const Json* Json::find(std::string_view key) const {
  for (std::size_t i = keys.size(); i-- > 0;)
    if (keys[i] == key) return &values[i];
  return nullptr;
}

const Json& Json::at(std::string_view key) const {
  const Json* v = find(key);
  if (v == nullptr) throw JsonError("no key '" + std::string(key) + "'");
  return *v;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  Json document() {
    Json v = value(0);
    space();
    if (i_ != s_.size()) fail("text after the JSON value");
    return v;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw JsonError(what + " at byte " + std::to_string(i_));
  }
  bool at_end() const { return i_ >= s_.size(); }
  char peek() const { return at_end() ? '\0' : s_[i_]; }
  void space() {
    while (!at_end() && (s_[i_] == ' ' || s_[i_] == '\n' || s_[i_] == '\r' || s_[i_] == '\t')) ++i_;
  }
  void expect(char c) {
    if (peek() != c) fail(std::string("expected '") + c + "'");
    ++i_;
  }
  void literal(std::string_view word) {
    if (s_.substr(i_, word.size()) != word) fail("bad literal");
    i_ += word.size();
  }

  Json value(int depth) {
    if (depth > 200) fail("nesting too deep");
    space();
    Json v;
    switch (peek()) {
      case '{':
        object(v, depth);
        break;
      case '[':
        array(v, depth);
        break;
      case '"':
        v.type = Json::Type::string;
        v.text = string();
        break;
      case 't':
        literal("true"), v.type = Json::Type::boolean, v.boolean = true;
        break;
      case 'f':
        literal("false"), v.type = Json::Type::boolean;
        break;
      case 'n':
        literal("null");
        break;
      default:
        number(v);
    }
    return v;
  }

  void object(Json& v, int depth) {
    v.type = Json::Type::object;
    expect('{');
    space();
    if (peek() == '}') return void(++i_);
    for (;;) {
      space();
      if (peek() != '"') fail("expected a key");
      v.keys.push_back(string());
      space();
      expect(':');
      v.values.push_back(value(depth + 1));
      space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect('}');
      return;
    }
  }

  void array(Json& v, int depth) {
    v.type = Json::Type::array;
    expect('[');
    space();
    if (peek() == ']') return void(++i_);
    for (;;) {
      v.items.push_back(value(depth + 1));
      space();
      if (peek() == ',') {
        ++i_;
        continue;
      }
      expect(']');
      return;
    }
  }

  void digits() {
    if (!(peek() >= '0' && peek() <= '9')) fail("expected a digit");
    while (peek() >= '0' && peek() <= '9') ++i_;
  }

  void number(Json& v) {
    const std::size_t start = i_;
    if (peek() == '-') ++i_;
    if (peek() == '0')
      ++i_;
    else
      digits();
    if (peek() == '.') ++i_, digits();
    if (peek() == 'e' || peek() == 'E') {
      ++i_;
      if (peek() == '+' || peek() == '-') ++i_;
      digits();
    }
    v.type = Json::Type::number;
    v.text = std::string(s_.substr(start, i_ - start));
    v.number = std::strtod(v.text.c_str(), nullptr);
  }

  unsigned hex4() {
    unsigned u = 0;
    for (int k = 0; k < 4; ++k, ++i_) {
      const char c = peek();
      u <<= 4;
      if (c >= '0' && c <= '9')
        u |= static_cast<unsigned>(c - '0');
      else if (c >= 'a' && c <= 'f')
        u |= static_cast<unsigned>(c - 'a' + 10);
      else if (c >= 'A' && c <= 'F')
        u |= static_cast<unsigned>(c - 'A' + 10);
      else
        fail("bad \\u escape");
    }
    return u;
  }

  // One UTF-8 sequence starting at a byte >= 0x80, checked for well-formedness.
  void utf8(std::string& out) {
    const auto b = [&](std::size_t k) {
      return i_ + k < s_.size() ? static_cast<unsigned char>(s_[i_ + k]) : 0u;
    };
    const unsigned lead = b(0);
    int n = 0;
    unsigned lo = 0x80, hi = 0xbf;
    if (lead >= 0xc2 && lead <= 0xdf)
      n = 2;
    else if (lead >= 0xe0 && lead <= 0xef)
      n = 3, lo = lead == 0xe0 ? 0xa0 : 0x80, hi = lead == 0xed ? 0x9f : 0xbf;
    else if (lead >= 0xf0 && lead <= 0xf4)
      n = 4, lo = lead == 0xf0 ? 0x90 : 0x80, hi = lead == 0xf4 ? 0x8f : 0xbf;
    else
      fail("invalid UTF-8");
    if (b(1) < lo || b(1) > hi) fail("invalid UTF-8");
    for (int k = 2; k < n; ++k)
      if (b(static_cast<std::size_t>(k)) < 0x80 || b(static_cast<std::size_t>(k)) > 0xbf)
        fail("invalid UTF-8");
    out.append(s_.substr(i_, static_cast<std::size_t>(n)));
    i_ += static_cast<std::size_t>(n);
  }

  std::string string() {
    expect('"');
    std::string out;
    for (;;) {
      if (at_end()) fail("unterminated string");
      const auto c = static_cast<unsigned char>(s_[i_]);
      if (c == '"') {
        ++i_;
        return out;
      }
      if (c < 0x20) fail("control character in a string");
      if (c >= 0x80) {
        utf8(out);
        continue;
      }
      ++i_;
      if (c != '\\') {
        out += static_cast<char>(c);
        continue;
      }
      const char e = peek();
      ++i_;
      switch (e) {
        case '"':
          out += '"';
          break;
        case '\\':
          out += '\\';
          break;
        case '/':
          out += '/';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          unsigned cp = hex4();
          if (cp >= 0xd800 && cp <= 0xdbff) {
            literal("\\u");
            const unsigned low = hex4();
            if (low < 0xdc00 || low > 0xdfff) fail("unpaired surrogate");
            cp = 0x10000 + ((cp - 0xd800) << 10) + (low - 0xdc00);
          } else if (cp >= 0xdc00 && cp <= 0xdfff) {
            fail("unpaired surrogate");
          }
          ts::test::append_utf8(out, cp);
          break;
        }
        default:
          fail("bad escape");
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

Json parse_json(std::string_view text) {
  return Parser(text).document();
}

}  // namespace ts::test
