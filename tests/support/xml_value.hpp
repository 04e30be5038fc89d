// A small, strict XML 1.0 well-formedness checker for tests: one root element, matching tags,
// quoted unique attributes, only the predefined entities and character references, no raw '<'
// or '&' in text, well-formed UTF-8 and only characters XML allows. Builds an element tree
// (entities decoded) so a test can count test cases and read attributes. Throws XmlError.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ts::test {

class XmlError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct XmlElement {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  std::vector<XmlElement> children;
  std::string text;  // character data directly inside, concatenated

  const std::string* attribute(std::string_view key) const;
  // Descendants (at any depth) named `name`, in document order.
  std::vector<const XmlElement*> all(std::string_view name) const;
};

XmlElement parse_xml(std::string_view text);

}  // namespace ts::test
