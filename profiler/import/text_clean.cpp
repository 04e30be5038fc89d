#include "profiler/import/text_clean.hpp"

namespace ts::import {

std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
  const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[k]); };
  const unsigned char lead = byte(i);
  if (lead < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xbf;  // the allowed range of the second byte
  if (lead >= 0xc2 && lead <= 0xdf) {
    n = 2;
  } else if (lead >= 0xe0 && lead <= 0xef) {
    n = 3;
    if (lead == 0xe0) lo = 0xa0;  // overlong
    if (lead == 0xed) hi = 0x9f;  // surrogates
  } else if (lead >= 0xf0 && lead <= 0xf4) {
    n = 4;
    if (lead == 0xf0) lo = 0x90;  // overlong
    if (lead == 0xf4) hi = 0x8f;  // above U+10FFFF
  } else {
    return 0;
  }
  if (i + n > text.size()) return 0;
  if (byte(i + 1) < lo || byte(i + 1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (byte(i + k) < 0x80 || byte(i + k) > 0xbf) return 0;
  return n;
}

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

}  // namespace ts::import
