// A strict reader of one traceEvents element lying whole in memory, beside RapidJSON: most of a
// trace is elements of a plain shape (no escapes in strings, plain numbers, little nesting), and
// for those it does in one pass, without copying a byte, what RapidJSON does through its string
// stack. It takes only text whose meaning to RapidJSON is certain and declines everything else
// (an escape, a control character, NaN, an exponent, an error, deep nesting, the end of the
// bytes), before handing anything on: RapidJSON then reads that element itself, so what a
// handler receives, and every error and its offset, are RapidJSON's.
//
//   EventScan scan;
//   if (const std::size_t n = scan.read(bytes)) { scan.replay(handler); /* n bytes taken */ }
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace ts::import {

class EventScan {
 public:
  // Nesting inside the element (the element's own braces are 1) and tokens it may hold; an
  // element beyond either is declined.
  static constexpr int kMaxNesting = 8;
  static constexpr std::size_t kMaxTokens = 2048;

  enum class Kind : std::uint8_t {
    start_object,  // size: the index of its end_object
    end_object,    // size: members
    start_array,   // size: the index of its end_array
    end_array,     // size: elements
    key,
    string,
    number,
    null,
    false_value,
    true_value,
  };
  struct Token {
    const char* text;
    std::uint32_t size;
    Kind kind;
  };

  EventScan() { tokens_.reserve(kMaxTokens); }

  // Reads the JSON value at the start of `text`, which must start with '{': the bytes it takes
  // (the value only, no whitespace after it), or 0 when it declines. The value may end with
  // `text` (a closing brace needs nothing after it); a number or literal that reaches the end is
  // declined, as it might go on past it.
  std::size_t read(std::string_view text);

  // The value read last, in document order: a container's start and end tokens hold the index
  // of its end token and its number of members; a key is followed by its value.
  std::span<const Token> tokens() const { return tokens_; }

  // Hands the value read last to a RapidJSON SAX handler, as RapidJSON's parse with
  // kParseNumbersAsStringsFlag would: strings, keys and numbers point into the text read
  // (not NUL-terminated, `copy` true: valid until that text goes). False when a handler call
  // returned false. A handler with `bool ignoring() const`, true when it will pay no heed to
  // what the container it just started holds, gets that container's start and end only.
  template <class Handler>
  bool replay(Handler& h) const {
    for (std::size_t i = 0; i < tokens_.size(); ++i) {
      const Token& t = tokens_[i];
      bool ok = true;
      switch (t.kind) {
        case Kind::start_object:
        case Kind::start_array:
          ok = t.kind == Kind::start_object ? h.StartObject() : h.StartArray();
          if constexpr (requires { h.ignoring(); }) {
            if (ok && h.ignoring()) {
              i = t.size;  // its end, replayed next
              --i;
            }
          }
          break;
        case Kind::end_object:
          ok = h.EndObject(t.size);
          break;
        case Kind::end_array:
          ok = h.EndArray(t.size);
          break;
        case Kind::key:
          ok = h.Key(t.text, t.size, true);
          break;
        case Kind::string:
          ok = h.String(t.text, t.size, true);
          break;
        case Kind::number:
          ok = h.RawNumber(t.text, t.size, true);
          break;
        case Kind::null:
          ok = h.Null();
          break;
        case Kind::false_value:
          ok = h.Bool(false);
          break;
        case Kind::true_value:
          ok = h.Bool(true);
          break;
      }
      if (!ok) return false;
    }
    return true;
  }

 private:
  std::vector<Token> tokens_;
};

}  // namespace ts::import
