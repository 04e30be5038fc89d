// The RapidJSON input stream over a ByteSource: a few synthetic bytes first (the prefix that
// lets a speculative part of a file start in the middle of its traceEvents array), then the
// source's blocks, without copying them. Peek() is a plain load, as in RapidJSON's
// FileReadStream: at the end the stream points at a '\0', which RapidJSON reads as the end.
#pragma once

#include <rapidjson/reader.h>

#include <cstdint>
#include <cstring>
#include <span>
#include <string_view>

#include "profiler/import/common/byte_source.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace ts::import {

class JsonInput {
 public:
  using Ch = char;

  JsonInput(std::string_view prefix, ByteSource& source) : source_(&source) {
    if (!prefix.empty()) {
      set_block(prefix.data(), prefix.size());
      synthetic_ = prefix.size();
    } else {
      next_block();
      // A UTF-8 byte order mark before the JSON is allowed; RapidJSON would refuse it.
      if (last_ - cur_ >= 2 && static_cast<unsigned char>(cur_[0]) == 0xef &&
          static_cast<unsigned char>(cur_[1]) == 0xbb &&
          static_cast<unsigned char>(cur_[2]) == 0xbf)
        cur_ += 3;
    }
  }

  Ch Peek() const { return *cur_; }
  Ch Take() {
    const Ch c = *cur_;
    if (cur_ < last_) {
      ++cur_;
    } else {
      next_block();
    }
    return c;
  }
  std::size_t Tell() const { return consumed_ + static_cast<std::size_t>(cur_ - begin_); }
  // Skips JSON whitespace within the block with a plain pointer loop (RapidJSON's generic
  // version takes one character at a time through Take()).
  void skip_whitespace() {
    for (;;) {
      const char* p = cur_;
      while (p <= last_ && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) ++p;
      if (p <= last_ || eof_) {
        cur_ = p <= last_ ? p : last_;
        return;
      }
      next_block();
    }
  }

  // The bytes of the block from Peek() on, but its last (which Take() alone steps over): what a
  // scan may read ahead in place; skip(n) moves past n of them.
  std::string_view ahead() const { return {cur_, static_cast<std::size_t>(last_ - cur_)}; }
  void skip(std::size_t n) { cur_ += n; }

  // True once every byte was read (Peek() then gives '\0' for good).
  bool exhausted() const { return eof_; }

  // Serves `prefix` (which must outlive its reading) before the bytes not read yet: how a parse
  // resumes after an element it gave up. Tell() counts it; synthetic() says how much of Tell()
  // was such prefixes.
  void inject(std::string_view prefix) {
    if (prefix.empty()) return;
    consumed_ += static_cast<std::size_t>(cur_ - begin_);
    saved_ = eof_ ? nullptr : cur_;
    saved_last_ = last_;
    eof_ = false;
    set_block(prefix.data(), prefix.size());
    synthetic_ += prefix.size();
    resume_pending_ = true;
  }
  std::size_t synthetic() const { return synthetic_; }

  // Only for in-situ parsing, which the tokenizer does not use.
  Ch* PutBegin() { return nullptr; }
  void Put(Ch) {}
  void Flush() {}
  std::size_t PutEnd(Ch*) { return 0; }

 private:
  void set_block(const char* p, std::size_t n) {
    begin_ = cur_ = p;
    last_ = p + n - 1;
    block_size_ = n;
  }
  void next_block() {
    consumed_ += block_size_;
    block_size_ = 0;
    if (resume_pending_) {  // an injected prefix is read: back to the source's block
      resume_pending_ = false;
      if (saved_ != nullptr) {
        set_block(saved_, static_cast<std::size_t>(saved_last_ - saved_ + 1));
        return;
      }
      eof_ = true;
      begin_ = cur_ = last_ = &kEnd;
      return;
    }
    if (!eof_) {
      const std::span<const char> b = source_->next();
      if (!b.empty()) {
        set_block(b.data(), b.size());
        return;
      }
    }
    eof_ = true;
    begin_ = cur_ = last_ = &kEnd;
  }

  static constexpr char kEnd = '\0';
  ByteSource* source_;
  const char* begin_ = &kEnd;
  const char* cur_ = &kEnd;
  const char* last_ = &kEnd;
  std::size_t block_size_ = 0;
  std::size_t consumed_ = 0;  // bytes of the blocks before the current one
  bool eof_ = false;
  std::size_t synthetic_ = 0;  // bytes of Tell() that were prefixes
  // The source's block an injected prefix interrupted (nullptr: it was at the end).
  const char* saved_ = nullptr;
  const char* saved_last_ = nullptr;
  bool resume_pending_ = false;
};

}  // namespace ts::import

namespace ts::import {
// How many bytes of `text` come before the first that ends a run of plain string characters: a
// quote, a backslash or a control character.
inline std::size_t plain_string_bytes(std::string_view text) {
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\');
  const __m128i control = _mm_set1_epi8(0x1f);
  for (; i + 16 <= text.size(); i += 16) {
    const __m128i s = _mm_loadu_si128(reinterpret_cast<const __m128i*>(text.data() + i));
    const __m128i stop =
        _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(s, quote), _mm_cmpeq_epi8(s, backslash)),
                     _mm_cmpeq_epi8(_mm_max_epu8(s, control), control));  // s <= 0x1f
    const int mask = _mm_movemask_epi8(stop);
    if (mask != 0) return i + static_cast<std::size_t>(__builtin_ctz(static_cast<unsigned>(mask)));
  }
#endif
  for (; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c == '"' || c == '\\' || c < 0x20) return i;
  }
  return i;
}

// How many bytes of `text` a JSON number at its start takes, when the number is a plain one
// (-?(0|[1-9][0-9]{0,17})(\.[0-9]{1,40})?, no exponent) that ends before the end of `text`; 0
// for anything else (NaN, an exponent, a longer number, one that may go on past `text`). RapidJSON
// parses plain numbers without an error, so what it would do with one is known in advance.
inline std::size_t plain_number_bytes(std::string_view text) {
  const auto digit = [&](std::size_t i) {
    return i < text.size() && text[i] >= '0' && text[i] <= '9';
  };
  std::size_t i = !text.empty() && text[0] == '-' ? 1 : 0;
  if (!digit(i)) return 0;
  if (text[i] == '0') {
    ++i;
  } else {
    const std::size_t first = i;
    while (digit(i)) ++i;
    if (i - first > 18) return 0;
  }
  if (i < text.size() && text[i] == '.') {
    const std::size_t first = ++i;
    while (digit(i)) ++i;
    if (i == first || i - first > 40) return 0;
  }
  if (i >= text.size() || text[i] == 'e' || text[i] == 'E') return 0;
  return i;
}
}  // namespace ts::import

namespace rapidjson {
// A string's plain characters are copied a run at a time (RapidJSON's own loop takes and checks
// them one by one): strings are most of a trace's bytes. What stops a run is left to that loop.
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ScanCopyUnescapedString<
    ts::import::JsonInput, GenericReader<UTF8<>, UTF8<>, CrtAllocator>::StackStream<char>>(
    ts::import::JsonInput& is, StackStream<char>& os) {
  const std::string_view ahead = is.ahead();
  const std::size_t n = ts::import::plain_string_bytes(ahead);
  if (n == 0) return;
  std::memcpy(os.Push(static_cast<SizeType>(n)), ahead.data(), n);
  is.skip(n);
}
// Lets RapidJSON keep the stream in registers (a local copy written back after each value).
template <>
struct StreamTraits<ts::import::JsonInput> {
  enum { copyOptimization = 0 };
};
// Whitespace is 15-20 % of the parse with the generic loop.
template <>
inline void SkipWhitespace(ts::import::JsonInput& is) {
  is.skip_whitespace();
}
}  // namespace rapidjson
