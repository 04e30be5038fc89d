// UTF-8 well-formedness (RFC 3629: no overlong forms, surrogates or values above U+10FFFF), for
// every writer of text that must be valid (JSON, JUnit XML, the trace's own strings) fed with
// bytes from trace files, which may hold anything.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ts::json {

// The length of the well-formed UTF-8 sequence starting at text[i]: 1 for ASCII, 2-4 for a
// multi-byte character, 0 when the bytes there are not one. i < text.size().
inline std::size_t utf8_sequence_length(std::string_view text, std::size_t i) {
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

bool valid_utf8(std::string_view text);

}  // namespace ts::json
