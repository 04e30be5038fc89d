// UTF-8 well-formedness (RFC 3629: no overlong forms, surrogates or values above U+10FFFF), for
// writers of formats that must be valid text (JSON, XML) fed with bytes from trace files.
#pragma once

#include <cstddef>
#include <string_view>

namespace ts::io {

// The length of the well-formed UTF-8 sequence starting at text[i]: 1 for ASCII, 2-4 for a
// multi-byte character, 0 when the bytes there are not one. i < text.size().
std::size_t utf8_sequence_length(std::string_view text, std::size_t i);

bool valid_utf8(std::string_view text);

}  // namespace ts::io
