#include "profiler/import/chrome/event_scan.hpp"

#include <cstring>

#include "profiler/import/chrome/json_input.hpp"

namespace ts::import {

namespace {

inline bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

}  // namespace

std::size_t EventScan::read(std::string_view text) {
  tokens_.clear();
  const char* const begin = text.data();
  const char* const end = begin + text.size();
  const char* p = begin;
  // The containers open, innermost last: whether each is an object, its members so far and the
  // index of its start token.
  bool is_object[kMaxNesting];
  std::uint32_t members[kMaxNesting];
  std::uint32_t start[kMaxNesting];
  int depth = 0;

  const auto skip_space = [&] {
    while (p < end && is_space(*p)) ++p;
  };
  const auto emit = [&](Kind kind, const char* at, std::size_t size) {
    tokens_.push_back({at, static_cast<std::uint32_t>(size), kind});
  };
  // A string without escapes or control characters at p (p[0] == '"'); false to decline.
  const auto string = [&](Kind kind) {
    const char* first = p + 1;
    const std::size_t n = plain_string_bytes({first, static_cast<std::size_t>(end - first)});
    if (first + n >= end || first[n] != '"') return false;
    emit(kind, first, n);
    p = first + n + 1;
    return true;
  };
  const auto literal = [&](std::string_view word, Kind kind) {
    if (static_cast<std::size_t>(end - p) <= word.size() ||
        std::memcmp(p, word.data(), word.size()) != 0)
      return false;
    emit(kind, nullptr, 0);
    p += word.size();
    return true;
  };

  if (p == end || *p != '{') return 0;
  for (;;) {
    // A value starts at p (whitespace skipped).
    if (tokens_.size() + 2 > kMaxTokens || p == end) return 0;
    switch (*p) {
      case '{':
      case '[': {
        if (depth == kMaxNesting) return 0;
        const bool object = *p == '{';
        start[depth] = static_cast<std::uint32_t>(tokens_.size());
        emit(object ? Kind::start_object : Kind::start_array, nullptr, 0);
        is_object[depth] = object;
        members[depth++] = 0;
        ++p;
        skip_space();
        if (p == end) return 0;
        if (*p == (object ? '}' : ']')) {
          tokens_[start[depth - 1]].size = static_cast<std::uint32_t>(tokens_.size());
          emit(object ? Kind::end_object : Kind::end_array, nullptr, 0);
          --depth;
          ++p;
          break;  // to what follows a value
        }
        if (object) {
          if (*p != '"' || !string(Kind::key)) return 0;
          skip_space();
          if (p == end || *p != ':') return 0;
          ++p;
          skip_space();
        }
        continue;  // the first value
      }
      case '"':
        if (!string(Kind::string)) return 0;
        break;
      case 't':
        if (!literal("true", Kind::true_value)) return 0;
        break;
      case 'f':
        if (!literal("false", Kind::false_value)) return 0;
        break;
      case 'n':
        if (!literal("null", Kind::null)) return 0;
        break;
      default: {
        const std::size_t n = plain_number_bytes({p, static_cast<std::size_t>(end - p)});
        if (n == 0) return 0;
        emit(Kind::number, p, n);
        p += n;
        break;
      }
    }
    // What follows a value: the end of the element, a comma or the ends of containers.
    for (;;) {
      if (depth == 0) return static_cast<std::size_t>(p - begin);
      ++members[depth - 1];
      skip_space();
      if (p == end) return 0;
      const char c = *p;
      if (c == ',') {
        ++p;
        skip_space();
        if (is_object[depth - 1]) {
          if (p == end || *p != '"' || !string(Kind::key)) return 0;
          skip_space();
          if (p == end || *p != ':') return 0;
          ++p;
          skip_space();
        }
        break;  // the next value
      }
      if (c != (is_object[depth - 1] ? '}' : ']')) return 0;
      if (tokens_.size() + 1 > kMaxTokens) return 0;
      --depth;
      tokens_[start[depth]].size = static_cast<std::uint32_t>(tokens_.size());
      emit(is_object[depth] ? Kind::end_object : Kind::end_array, nullptr, 0);
      tokens_.back().size = members[depth];
      ++p;
      // The container just closed is a value of the one around it: counted at the loop's top.
    }
  }
}

}  // namespace ts::import
