#include "tests/support/xml_value.hpp"

#include <cstdint>

#include "tests/support/utf8_append.hpp"

namespace ts::test {

const std::string* XmlElement::attribute(std::string_view key) const {
  for (const auto& [k, v] : attributes)
    if (k == key) return &v;
  return nullptr;
}

std::vector<const XmlElement*> XmlElement::all(std::string_view name) const {
  std::vector<const XmlElement*> out;
  for (const XmlElement& c : children) {
    if (c.name == name) out.push_back(&c);
    const auto deeper = c.all(name);
    out.insert(out.end(), deeper.begin(), deeper.end());
  }
  return out;
}

namespace {

class Parser {
 public:
  explicit Parser(std::string_view s) : s_(s) {}

  XmlElement document() {
    check_characters();
    if (s_.substr(0, 5) == "<?xml") skip_past("?>");
    misc();
    if (peek() != '<') fail("expected the root element");
    XmlElement root = element(0);
    misc();
    if (i_ != s_.size()) fail("content after the root element");
    return root;
  }

 private:
  [[noreturn]] void fail(const std::string& what) const {
    throw XmlError(what + " at byte " + std::to_string(i_));
  }
  char peek(std::size_t k = 0) const { return i_ + k < s_.size() ? s_[i_ + k] : '\0'; }
  bool starts(std::string_view w) const { return s_.substr(i_, w.size()) == w; }
  static bool space_char(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }
  void space() {
    while (i_ < s_.size() && space_char(s_[i_])) ++i_;
  }
  void skip_past(std::string_view end) {
    const auto at = s_.find(end, i_);
    if (at == std::string_view::npos) fail("unterminated construct");
    i_ = at + end.size();
  }
  // Whitespace, comments and processing instructions around the root element.
  void misc() {
    for (;;) {
      space();
      if (starts("<!--"))
        skip_past("-->");
      else if (starts("<?"))
        skip_past("?>");
      else
        return;
    }
  }

  // Every character is well-formed UTF-8 and allowed by XML 1.0 (Char production).
  void check_characters() const {
    for (std::size_t k = 0; k < s_.size();) {
      const auto b = static_cast<unsigned char>(s_[k]);
      std::uint32_t cp = 0;
      std::size_t n = 1;
      if (b < 0x80)
        cp = b;
      else if (b >= 0xc2 && b <= 0xdf)
        n = 2, cp = b & 0x1fu;
      else if (b >= 0xe0 && b <= 0xef)
        n = 3, cp = b & 0x0fu;
      else if (b >= 0xf0 && b <= 0xf4)
        n = 4, cp = b & 0x07u;
      else
        throw XmlError("invalid UTF-8 at byte " + std::to_string(k));
      if (k + n > s_.size()) throw XmlError("truncated UTF-8 at byte " + std::to_string(k));
      for (std::size_t j = 1; j < n; ++j) {
        const auto c = static_cast<unsigned char>(s_[k + j]);
        if ((c & 0xc0) != 0x80) throw XmlError("invalid UTF-8 at byte " + std::to_string(k));
        cp = cp << 6 | (c & 0x3fu);
      }
      const bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
      const bool allowed = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
                           (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
      if (overlong || !allowed)
        throw XmlError("character not allowed in XML at byte " + std::to_string(k));
      k += n;
    }
  }

  std::string name() {
    const std::size_t start = i_;
    while (i_ < s_.size()) {
      const char c = s_[i_];
      const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
                      (i_ > start && ((c >= '0' && c <= '9') || c == '-' || c == '.')) ||
                      static_cast<unsigned char>(c) >= 0x80;
      if (!ok) break;
      ++i_;
    }
    if (i_ == start) fail("expected a name");
    return std::string(s_.substr(start, i_ - start));
  }

  // At '&': a predefined entity or a character reference.
  void reference(std::string& out) {
    const auto end = s_.find(';', i_);
    if (end == std::string_view::npos || end - i_ > 12) fail("bad reference");
    const std::string_view ref = s_.substr(i_ + 1, end - i_ - 1);
    i_ = end + 1;
    if (ref == "amp")
      out += '&';
    else if (ref == "lt")
      out += '<';
    else if (ref == "gt")
      out += '>';
    else if (ref == "quot")
      out += '"';
    else if (ref == "apos")
      out += '\'';
    else if (ref.size() > 1 && ref[0] == '#') {
      const bool hex = ref[1] == 'x';
      const std::string digits(ref.substr(hex ? 2 : 1));
      if (digits.empty() || digits.find_first_not_of(hex ? "0123456789abcdefABCDEF"
                                                         : "0123456789") != std::string::npos)
        fail("bad character reference");
      const unsigned long cp = std::stoul(digits, nullptr, hex ? 16 : 10);
      const bool allowed = cp == 0x9 || cp == 0xa || cp == 0xd || (cp >= 0x20 && cp <= 0xd7ff) ||
                           (cp >= 0xe000 && cp <= 0xfffd) || (cp >= 0x10000 && cp <= 0x10ffff);
      if (!allowed) fail("character reference to a character XML does not allow");
      ts::test::append_utf8(out, static_cast<std::uint32_t>(cp));
    } else {
      fail("unknown entity &" + std::string(ref) + ";");
    }
  }

  std::string attribute_value() {
    const char quote = peek();
    if (quote != '"' && quote != '\'') fail("expected a quoted attribute value");
    ++i_;
    std::string out;
    for (;;) {
      if (i_ >= s_.size()) fail("unterminated attribute value");
      const char c = s_[i_];
      if (c == quote) return ++i_, out;
      if (c == '<') fail("'<' in an attribute value");
      if (c == '&')
        reference(out);
      else
        out += c, ++i_;
    }
  }

  XmlElement element(int depth) {
    if (depth > 100) fail("nesting too deep");
    ++i_;  // '<'
    XmlElement e;
    e.name = name();
    for (;;) {
      const bool had_space = i_ < s_.size() && space_char(s_[i_]);
      space();
      if (starts("/>")) return i_ += 2, e;
      if (peek() == '>') break;
      if (!had_space) fail("expected whitespace before an attribute");
      std::string key = name();
      space();
      if (peek() != '=') fail("expected '='");
      ++i_;
      space();
      if (e.attribute(key) != nullptr) fail("duplicate attribute " + key);
      e.attributes.emplace_back(std::move(key), attribute_value());
    }
    ++i_;  // '>'
    for (;;) {
      if (i_ >= s_.size()) fail("unclosed element <" + e.name + ">");
      if (starts("</")) {
        i_ += 2;
        if (name() != e.name) fail("mismatched end tag for <" + e.name + ">");
        space();
        if (peek() != '>') fail("expected '>'");
        return ++i_, e;
      }
      if (starts("<!--"))
        skip_past("-->");
      else if (starts("<![CDATA[")) {
        const auto end = s_.find("]]>", i_);
        if (end == std::string_view::npos) fail("unterminated CDATA");
        e.text += s_.substr(i_ + 9, end - i_ - 9);
        i_ = end + 3;
      } else if (starts("<?"))
        skip_past("?>");
      else if (peek() == '<')
        e.children.push_back(element(depth + 1));
      else if (peek() == '&')
        reference(e.text);
      else {
        if (starts("]]>")) fail("']]>' in text");
        e.text += s_[i_++];
      }
    }
  }

  std::string_view s_;
  std::size_t i_ = 0;
};

}  // namespace

XmlElement parse_xml(std::string_view text) {
  return Parser(text).document();
}

}  // namespace ts::test
