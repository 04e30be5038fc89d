#include "profiler/import/common/text_clean.hpp"

#include "profiler/json/utf8.hpp"

namespace ts::import {

using json::utf8_sequence_length;

std::string clean_text(std::string_view raw, bool keep_newlines) {
  std::string out;
  out.reserve(raw.size());
  for (std::size_t i = 0; i < raw.size();) {
    const auto c = static_cast<unsigned char>(raw[i]);
    if (c < 0x80) {
      const bool control = (c < 0x20 && !(keep_newlines && c == '\n')) || c == 0x7f;
      out += control ? '?' : static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t n = utf8_sequence_length(raw, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD REPLACEMENT CHARACTER
      ++i;
      continue;
    }
    // C1 controls (U+0080-U+009F) are control characters too.
    if (n == 2 && c == 0xc2 && static_cast<unsigned char>(raw[i + 1]) < 0xa0) {
      out += '?';
    } else {
      out.append(raw.substr(i, n));
    }
    i += n;
  }
  return out;
}

std::string_view cut_at_boundary(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  std::size_t n = max_bytes;
  // Back off continuation bytes (10xxxxxx), then the lead byte of the sequence they belong to
  // unless that sequence fits whole.
  std::size_t k = n;
  while (k > 0 && (static_cast<unsigned char>(text[k - 1]) & 0xc0) == 0x80 && n - k < 3) --k;
  if (k > 0 && static_cast<unsigned char>(text[k - 1]) >= 0xc0) {
    const std::size_t len = utf8_sequence_length(text, k - 1);
    if (len == 0 || k - 1 + len > n) n = k - 1;
  }
  return text.substr(0, n);
}

std::string display_cut(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const std::string_view kept = cut_at_boundary(text, max_bytes);
  return std::string(kept) + "… (" + std::to_string(text.size() - kept.size()) + " more bytes)";
}

std::string quote_start(std::string_view text) {
  constexpr std::size_t kShown = 24;
  std::string out;
  std::size_t shown = 0, i = 0;
  while (i < text.size() &&
         (text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'))
    ++i;  // blank lines and indent before the first character
  for (; i < text.size() && shown < kShown; ++i, ++shown) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '\n' || c == '\r') return out;
    if (c >= 0x20 && c < 0x7f) {
      out += static_cast<char>(c);
    } else {
      static constexpr char kHex[] = "0123456789abcdef";
      out += "\\x";
      out += kHex[c >> 4];
      out += kHex[c & 0xF];
    }
  }
  if (i < text.size() && text[i] != '\n' && text[i] != '\r') out += "…";
  return out;
}

}  // namespace ts::import
