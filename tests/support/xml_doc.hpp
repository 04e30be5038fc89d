// XML output read back with pugixml for tests, plus what pugixml does not check: that the text
// is well-formed UTF-8 (nlohmann-json's encoder rejects anything else) and holds only characters
// XML 1.0 allows. Throws std::runtime_error when the text is not such a document.
#pragma once

#include <nlohmann/json.hpp>
#include <pugixml.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace ts::test {

inline pugi::xml_document parse_xml(const std::string& text) {
  try {
    (void)nlohmann::json(text).dump();  // throws on invalid UTF-8
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error(std::string("not UTF-8: ") + e.what());
  }
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      throw std::runtime_error("a control character XML does not allow at byte " +
                               std::to_string(i));
    if (text.compare(i, 3, "\xef\xbf\xbe") == 0 || text.compare(i, 3, "\xef\xbf\xbf") == 0)
      throw std::runtime_error("U+FFFE or U+FFFF at byte " + std::to_string(i));
  }
  pugi::xml_document doc;
  const pugi::xml_parse_result r =
      doc.load_buffer(text.data(), text.size(), pugi::parse_default | pugi::parse_declaration);
  if (!r) throw std::runtime_error(std::string("not well-formed XML: ") + r.description());
  return doc;
}

// Descendants of `node` named `name`, in document order.
inline std::vector<pugi::xml_node> all(const pugi::xml_node& node, const char* name) {
  std::vector<pugi::xml_node> out;
  for (const pugi::xpath_node& n : node.select_nodes((std::string(".//") + name).c_str()))
    out.push_back(n.node());
  return out;
}

inline std::string attr(const pugi::xml_node& node, const char* name) {
  return node.attribute(name).value();
}

// The character data directly inside `node`, its text and CDATA sections joined.
inline std::string text(const pugi::xml_node& node) {
  std::string out;
  for (const pugi::xml_node& c : node.children())
    if (c.type() == pugi::node_pcdata || c.type() == pugi::node_cdata) out += c.value();
  return out;
}

}  // namespace ts::test
