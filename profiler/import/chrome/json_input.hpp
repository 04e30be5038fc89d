// The RapidJSON input stream over a ByteSource: a few synthetic bytes first (the prefix that
// lets a speculative part of a file start in the middle of its traceEvents array), then the
// source's blocks, without copying them. Peek() is a plain load, as in RapidJSON's
// FileReadStream: at the end the stream points at a '\0', which RapidJSON reads as the end.
#pragma once

#include <rapidjson/reader.h>

#include <cstdint>
#include <span>
#include <string_view>

#include "profiler/import/common/byte_source.hpp"

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

namespace rapidjson {
// Lets RapidJSON keep the stream in registers (a local copy written back after each value).
template <>
struct StreamTraits<ts::import::JsonInput> {
  enum { copyOptimization = 1 };
};
// Whitespace is 15-20 % of the parse with the generic loop.
template <>
inline void SkipWhitespace(ts::import::JsonInput& is) {
  is.skip_whitespace();
}
}  // namespace rapidjson
