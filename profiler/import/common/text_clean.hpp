// Strings from trace files as the trace stores them: valid UTF-8 (each byte that does not begin
// a well-formed sequence becomes U+FFFD), no control characters (each becomes '?'), and names at
// most kMaxNameBytes long, cut at a character boundary. Real C++ kernel names pass 4 KiB (the
// AlexNet fixture has one of 5 123 bytes): the cap only stops hostile gigantic strings.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace ts::import {

inline constexpr std::size_t kMaxNameBytes = 16384;

// keep_newlines: for multi-line values (meta import.source), '\n' stays.
std::string clean_text(std::string_view raw, bool keep_newlines = false);

// The longest prefix of at most max_bytes that does not end inside a UTF-8 sequence.
std::string_view cut_at_boundary(std::string_view text, std::size_t max_bytes);

// Text from a file as a message or a report line shows it: at most max_bytes (cut at a character
// boundary), then "… (N more bytes)". A 100 000-character meta value stays one readable line.
inline constexpr std::size_t kMaxDisplayBytes = 240;
std::string display_cut(std::string_view text, std::size_t max_bytes = kMaxDisplayBytes);

// How an error message quotes the start of a file that is not what it should be: its first line,
// at most 24 characters ("…" after a longer one), each byte outside printable ASCII as \xNN.
// "<!DOCTYPE html>", "\x89PNG".
std::string quote_start(std::string_view text);

}  // namespace ts::import
