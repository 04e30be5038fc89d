#include "profiler/import/chrome/parse_file.hpp"

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include <algorithm>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <optional>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "profiler/import/chrome/event_scan.hpp"
#include "profiler/import/chrome/json_input.hpp"
#include "profiler/import/chrome/tokenizer.hpp"
#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/common/text_clean.hpp"
#include "profiler/import/import.hpp"

namespace ts::import {

namespace {

constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;
// A bit no RapidJSON flag uses: the numbers a parse with it meets are parsed by RapidJSON.
constexpr unsigned kRapidJsonNumbers = 1u << 24;
constexpr std::size_t kBoundarySearchBytes = std::size_t{4} << 20;
// What a part of a file starting in the middle of its traceEvents array is parsed behind.
constexpr std::string_view kObjectPrefix = "{\"traceEvents\":[";
constexpr std::string_view kArrayPrefix = "[";

bool is_space(char c) {
  return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

bool is_number_char(char c) {
  return (c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' || c == '-';
}

// After RapidJSON refused a number inside a traceEvents element (`open` containers of it still
// open; 0: the number is the element): reads past the rest of the element and the ',' after it.
// False when the input ends first.
bool skip_rest_of_element(JsonInput& in, int open) {
  const auto at_end = [&] { return in.Peek() == '\0' && in.exhausted(); };
  while (!at_end() && is_number_char(in.Peek())) in.Take();
  bool in_string = false;
  while (open > 0) {
    if (at_end()) return false;
    const char c = in.Take();
    if (in_string) {
      if (c == '\\')
        in.Take();
      else if (c == '"')
        in_string = false;
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      ++open;
    } else if (c == '}' || c == ']') {
      --open;
    }
  }
  while (!at_end() && is_space(in.Peek())) in.Take();
  if (in.Peek() == ',') in.Take();
  return true;
}

}  // namespace
}  // namespace ts::import

namespace rapidjson {
// A plain number (json_input.hpp's plain_number_bytes) goes to the tokenizer as the bytes it
// spells, in place; RapidJSON's own parse takes each digit through the stream twice and computes
// the number the tokenizer parses again. Anything else is left to RapidJSON's parse, under a flag
// it ignores, so errors and their offsets stay its own.
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ParseNumber<
    ts::import::kFlags, ts::import::JsonInput, ts::import::Tokenizer>(ts::import::JsonInput& is,
                                                                      ts::import::Tokenizer& h) {
  const std::string_view ahead = is.ahead();
  const std::size_t n = ts::import::plain_number_bytes(ahead);
  if (n == 0) {
    ParseNumber<ts::import::kFlags | ts::import::kRapidJsonNumbers>(is, h);
    return;
  }
  const std::size_t start = is.Tell();
  is.skip(n);
  if (!h.RawNumber(ahead.data(), static_cast<SizeType>(n), true))
    parseResult_.Set(kParseErrorTermination, start);
}

// RapidJSON's ParseArray, but that an element of the traceEvents array lying whole in the
// stream's block is offered to EventScan first, which reads plain elements in one pass and
// declines the rest to ParseValue, so that results and errors stay RapidJSON's.
template <>
template <>
inline void GenericReader<UTF8<>, UTF8<>, CrtAllocator>::ParseArray<
    ts::import::kFlags, ts::import::JsonInput, ts::import::Tokenizer>(ts::import::JsonInput& is,
                                                                      ts::import::Tokenizer& h) {
  constexpr unsigned kFlags = ts::import::kFlags;
  is.Take();  // '['
  if (!h.StartArray()) RAPIDJSON_PARSE_ERROR(kParseErrorTermination, is.Tell());
  SkipWhitespaceAndComments<kFlags>(is);
  if (Consume(is, ']')) {
    if (!h.EndArray(0)) RAPIDJSON_PARSE_ERROR(kParseErrorTermination, is.Tell());
    return;
  }
  std::optional<ts::import::EventScan> scan;
  if (h.between_events() && h.scans_elements()) scan.emplace();
  for (SizeType elements = 0;;) {
    std::size_t taken = 0;
    if (scan && is.Peek() == '{') taken = scan->read(is.ahead());
    if (taken > 0) {
      is.skip(taken);
      h.scanned_event(scan->tokens());
    } else {
      ParseValue<kFlags>(is, h);
      RAPIDJSON_PARSE_ERROR_EARLY_RETURN_VOID;
    }
    ++elements;
    SkipWhitespaceAndComments<kFlags>(is);
    if (Consume(is, ',')) {
      SkipWhitespaceAndComments<kFlags>(is);
    } else if (Consume(is, ']')) {
      if (!h.EndArray(elements)) RAPIDJSON_PARSE_ERROR(kParseErrorTermination, is.Tell());
      return;
    } else {
      RAPIDJSON_PARSE_ERROR(kParseErrorArrayMissCommaOrSquareBracket, is.Tell());
    }
  }
}
}  // namespace rapidjson

namespace ts::import {
namespace {

// Parses what `source` gives behind `prefix`. speculative: the part ends at a guessed event
// boundary, to be confirmed (ParseEnd::limit). A number too large for a double (RapidJSON refuses
// it even when numbers are kept as text) costs only the traceEvents element holding it: that one
// is skipped (number_out_of_range) and the parse resumes at the next element.
void parse_part(ByteSource& source, std::string_view prefix, bool speculative,
                ElementReading reading, ParsedFile& out) {
  JsonInput in(prefix, source);
  Tokenizer tokenizer(out, reading == ElementReading::scan_plain);
  rapidjson::Reader reader;
  rapidjson::ParseResult r;
  for (;;) {
    r = reader.Parse<kFlags>(in, tokenizer);
    if (r.Code() != rapidjson::kParseErrorNumberTooBig) break;
    const int open = tokenizer.open_in_element();
    if (open < 0) break;  // outside traceEvents (a top-level key): the parse ends there
    tokenizer.abandon_element(Skip::number_out_of_range);
    if (!skip_rest_of_element(in, open)) {
      r = rapidjson::ParseResult(rapidjson::kParseErrorObjectMissCommaOrCurlyBracket, in.Tell());
      break;
    }
    in.inject(out.object_format ? kObjectPrefix : kArrayPrefix);
  }
  const std::size_t end = in.Tell();
  out.bytes = end - in.synthetic();
  if (!r.IsError()) {
    out.end = ParseEnd::complete;
    return;
  }
  if (tokenizer.too_deep()) {
    out.end = ParseEnd::too_deep;
  } else if (in.exhausted() && r.Offset() >= end) {
    if (speculative && r.Code() == rapidjson::kParseErrorValueInvalid && tokenizer.between_events())
      out.end = ParseEnd::limit;
    else if (!out.object_format && tokenizer.between_events())
      out.end = ParseEnd::complete;  // a bare array may be left unterminated
    else
      out.end = ParseEnd::truncated;
  } else {
    out.end = ParseEnd::syntax_error;
  }
  if (out.end == ParseEnd::complete) return;
  out.error_offset = r.Offset() > in.synthetic() ? r.Offset() - in.synthetic() : 0;
  out.error = rapidjson::GetParseError_En(r.Code());
}

// The offset of a '{' that looks like the start of an event in an array of events: "}" ","
// "{" (whitespace between) and a first key events have ("ph", "name", ...), at or after `from`,
// within kBoundarySearchBytes. ("{\"" never occurs inside a JSON string, where quotes are
// escaped; a guess can still land in an array of objects inside args, and is then refuted.)
// The first such '{' in `text` whose candidate lies whole in it (its key included), searched
// from `from` up to `last` (exclusive).
std::optional<std::size_t> event_start_in(std::string_view text, std::size_t from,
                                          std::size_t last) {
  static constexpr std::string_view kKeys[] = {"\"ph\"",  "\"name\"", "\"cat\"", "\"pid\"",
                                               "\"tid\"", "\"ts\"",   "\"dur\"", "\"args\"",
                                               "\"id\"",  "\"s\""};
  const std::size_t n = text.size();
  for (std::size_t i = from; i < std::min(last, n); ++i) {
    if (text[i] != '}') continue;
    std::size_t j = i + 1;
    while (j < n && is_space(text[j])) ++j;
    if (j >= n || text[j] != ',') continue;
    ++j;
    while (j < n && is_space(text[j])) ++j;
    if (j >= n || text[j] != '{') continue;
    const std::size_t brace = j++;
    while (j < n && is_space(text[j])) ++j;
    for (const std::string_view key : kKeys)
      if (text.substr(j, key.size()) == key) return brace;
  }
  return std::nullopt;
}

std::optional<std::uint64_t> find_event_start(const FileHandle& file, std::uint64_t from) {
  // Windows of 64 KiB overlapping by 1 KiB (a candidate's bytes fit in that, but for
  // whitespace runs longer than 1 KiB, which only cost a missed guess).
  constexpr std::size_t kWindow = std::size_t{64} << 10, kOverlap = 1024;
  std::vector<char> buf(kWindow);
  for (std::uint64_t at = from; at < from + kBoundarySearchBytes; at += kWindow - kOverlap) {
    const std::size_t n = file.read_at(at, buf.data(), buf.size());
    // A window's last KiB is searched in the next, unless the file ends in this one.
    const std::size_t last = n < kWindow ? n : n - kOverlap;
    if (const auto brace = event_start_in({buf.data(), n}, 0, last)) return at + *brace;
    if (n < kWindow) break;
  }
  return std::nullopt;
}

// Appends `src` (the part after `dst`) to `dst`, re-interning its strings and threads.
void merge_into(ParsedFile& dst, ParsedFile&& src) {
  std::vector<std::uint32_t> smap(src.strings.size());
  for (std::uint32_t id = 0; id < src.strings.size(); ++id)
    smap[id] = dst.strings.intern(src.strings.text(id));
  const auto remap = [&](Ident i) {
    if (i.str != 0) i.str = smap[i.str];
    return i;
  };
  std::unordered_map<std::uint64_t, std::vector<std::uint32_t>> by_pid_tid;
  const auto hash = [](const ThreadKey& k) {
    return static_cast<std::uint64_t>(k.pid.num) * 31 + static_cast<std::uint64_t>(k.tid.num) +
           (static_cast<std::uint64_t>(k.pid.str) << 40) +
           (static_cast<std::uint64_t>(k.tid.str) << 20);
  };
  for (std::uint32_t t = 0; t < dst.threads.size(); ++t)
    by_pid_tid[hash(dst.threads[t])].push_back(t);
  std::vector<std::uint32_t> tmap(src.threads.size());
  for (std::uint32_t t = 0; t < src.threads.size(); ++t) {
    const ThreadKey key{remap(src.threads[t].pid), remap(src.threads[t].tid)};
    auto& bucket = by_pid_tid[hash(key)];
    const auto it = std::find_if(bucket.begin(), bucket.end(),
                                 [&](std::uint32_t d) { return dst.threads[d] == key; });
    if (it != bucket.end()) {
      tmap[t] = *it;
    } else {
      tmap[t] = static_cast<std::uint32_t>(dst.threads.size());
      bucket.push_back(tmap[t]);
      dst.threads.push_back(key);
    }
  }
  src.events.for_each([&](RawEvent& e) {
    if (!Interner::is_numbered(e.name)) e.name = smap[e.name];
    e.cat = smap[e.cat];
    e.thread = tmap[e.thread];
  });
  dst.events.append(std::move(src.events));
  for (RawCounter c : src.counters) {
    c.name = smap[c.name];
    dst.counters.push_back(c);
  }
  for (RawMemoryDelta d : src.memory_deltas) {
    d.name = smap[d.name];
    dst.memory_deltas.push_back(d);
  }
  dst.kineto_keys = dst.kineto_keys || src.kineto_keys;
  using OptionalField = std::optional<std::int64_t> ParsedFile::*;
  for (const OptionalField field :
       {&ParsedFile::base_time_ns, &ParsedFile::rank, &ParsedFile::world_size})
    if ((src.*field).has_value()) dst.*field = src.*field;  // a repeated key: the last one wins
  using TextField = std::string ParsedFile::*;
  for (const TextField field : {&ParsedFile::backend, &ParsedFile::host_name,
                                &ParsedFile::display_time_unit, &ParsedFile::trace_name})
    if (!(src.*field).empty()) dst.*field = std::move(src.*field);
  if (!src.device_names.empty()) dst.device_names = std::move(src.device_names);
  if (!src.devices.empty()) dst.devices = std::move(src.devices);
  dst.occupancy_weighted_ns += src.occupancy_weighted_ns;
  dst.occupancy_ns += src.occupancy_ns;
  for (auto& [pid, name] : src.process_names)
    dst.process_names.emplace_back(remap(pid), std::move(name));
  for (auto& [pid, labels] : src.process_labels)
    dst.process_labels.emplace_back(remap(pid), std::move(labels));
  for (auto& [thread, name] : src.thread_names)
    dst.thread_names.emplace_back(tmap[thread], std::move(name));
  dst.skipped += src.skipped;
  dst.events_read += src.events_read;
  dst.bytes += src.bytes;
  dst.end = src.end;
  dst.error_offset = src.error_offset;
  dst.error = std::move(src.error);
}

ParsedFile parse_sequential(const FileHandle& file, std::uint64_t size, ElementReading reading,
                            FileBlocks* blocks) {
  ParsedFile out;
  FileRange range(file, 0, size, blocks);
  parse_part(range, {}, false, reading, out);
  return out;
}

// Parts [cuts[k], cuts[k + 1]) in parallel; nullopt when a cut is not confirmed.
std::optional<ParsedFile> parse_parallel(const FileHandle& file,
                                         const std::vector<std::uint64_t>& cuts, bool object_format,
                                         ElementReading reading, FileBlocks* blocks) {
  const std::size_t parts = cuts.size() - 1;
  std::vector<ParsedFile> results(parts);
  std::vector<std::exception_ptr> errors(parts);
  const std::string_view prefix = object_format ? kObjectPrefix : kArrayPrefix;
  const auto run = [&](std::size_t k) {
    try {
      FileRange range(file, cuts[k], cuts[k + 1], blocks);
      parse_part(range, k == 0 ? std::string_view() : prefix, k + 1 < parts, reading, results[k]);
    } catch (...) {
      errors[k] = std::current_exception();
    }
  };
  std::vector<std::thread> threads;
  for (std::size_t k = 1; k < parts; ++k) threads.emplace_back(run, k);
  run(0);
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);

  ParsedFile out = std::move(results[0]);
  for (std::size_t k = 0; k + 1 < parts; ++k) {
    if (out.end == ParseEnd::truncated) return std::nullopt;  // the guessed cut was no boundary
    if (out.end != ParseEnd::limit) break;  // an error before the cut ends the file there
    merge_into(out, std::move(results[k + 1]));
    if (out.end != ParseEnd::complete) out.error_offset += cuts[k + 1];  // was part-relative
  }
  return out;
}

// ---- A gzip file parsed in two parts ----
//
// A gzip file cannot be read from its middle, but ISA-L inflates several times faster than its
// bytes are parsed: the second part inflates the file from its start, passes the first half of
// the inflated bytes by (an estimate: the size the gzip trailer gives), and from the first event
// start it finds there parses the rest, while the first part parses up to that start. The first
// part reaches the estimate long after the second found its start, so it rarely waits.

// Where the second part starts: found by its thread (an event start at or after `guess`, in the
// inflated bytes), waited for by the first part when it gets to `guess`. nullopt: none found, and
// the first part reads everything.
class GzipCut {
 public:
  explicit GzipCut(std::uint64_t guess) : guess_(guess) {}
  std::uint64_t guess() const { return guess_; }
  void decide(std::optional<std::uint64_t> at) {
    {
      std::lock_guard lock(mutex_);
      at_ = at;
      decided_ = true;
    }
    decided_cv_.notify_all();
  }
  std::optional<std::uint64_t> wait() {
    std::unique_lock lock(mutex_);
    decided_cv_.wait(lock, [&] { return decided_; });
    return at_;
  }

 private:
  const std::uint64_t guess_;
  std::mutex mutex_;
  std::condition_variable decided_cv_;
  bool decided_ = false;
  std::optional<std::uint64_t> at_;
};

// The bytes of `source` from offset `from` on; with `end`, up to the cut it decides.
class SourceRange final : public ByteSource {
 public:
  SourceRange(ByteSource& source, std::uint64_t from, GzipCut* end)
      : source_(source), from_(from), end_(end) {}
  std::span<const char> next() override {
    for (;;) {
      if (rest_.empty()) {
        rest_ = source_.next();
        if (rest_.empty()) return {};
      }
      if (at_ + rest_.size() <= from_) {  // wholly before the range
        at_ += rest_.size();
        rest_ = {};
        continue;
      }
      if (at_ < from_) {
        rest_ = rest_.subspan(static_cast<std::size_t>(from_ - at_));
        at_ = from_;
      }
      if (end_ != nullptr && !limit_known_ && at_ >= end_->guess()) {
        limit_ = end_->wait().value_or(UINT64_MAX);
        limit_known_ = true;
      }
      // Before the cut is known, only the bytes before its guess (it lies at or after it).
      const std::uint64_t limit = limit_known_ || end_ == nullptr ? limit_ : end_->guess();
      if (at_ >= limit) return {};
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(rest_.size(), limit - at_));
      const std::span<const char> out = rest_.first(n);
      rest_ = rest_.subspan(n);
      at_ += n;
      return out;
    }
  }

 private:
  ByteSource& source_;
  const std::uint64_t from_;
  GzipCut* const end_;
  std::uint64_t at_ = 0;  // the offset of rest_'s first byte in the source's bytes
  std::span<const char> rest_;
  std::uint64_t limit_ = UINT64_MAX;
  bool limit_known_ = false;
};

// `head`, then what `rest` gives.
class HeadThenRest final : public ByteSource {
 public:
  HeadThenRest(std::string head, ByteSource& rest) : head_(std::move(head)), rest_(rest) {}
  std::span<const char> next() override {
    if (!head_done_) {
      head_done_ = true;
      if (!head_.empty()) return {head_.data(), head_.size()};
    }
    return rest_.next();
  }

 private:
  std::string head_;
  ByteSource& rest_;
  bool head_done_ = false;
};

// The inflated size a gzip file's last trailer gives (modulo 2^32), made at least the file's
// size: where to guess the middle of the inflated bytes. A file of several members, or of
// 4 GiB or more, gets a worse guess, which only makes the two parts unequal.
std::uint64_t inflated_size_guess(const FileHandle& file) {
  unsigned char isize[4] = {};
  if (file.size() < 18 || file.read_at(file.size() - 4, reinterpret_cast<char*>(isize), 4) != 4)
    return 0;
  std::uint64_t size = std::uint64_t{isize[0]} | std::uint64_t{isize[1]} << 8 |
                       std::uint64_t{isize[2]} << 16 | std::uint64_t{isize[3]} << 24;
  while (size < file.size()) size += std::uint64_t{1} << 32;
  return size;
}

// The two parts; nullopt unless both went as the common case goes (the second part's start
// confirmed, no gzip damage, no error in either): the caller then parses the file in one part,
// which gives every other outcome exactly as before.
std::optional<ParsedFile> parse_gzip_in_two(const FileHandle& file, std::uint64_t guess,
                                            bool object_format, ElementReading reading,
                                            FileBlocks* blocks) {
  GzipCut cut(guess);
  ParsedFile first, second;
  bool first_corrupt = false, second_corrupt = false, second_ran = false;
  std::exception_ptr second_error;
  const auto second_part = [&] {
    try {
      // This part reads the compressed file to its end: it takes the blocks' digests.
      GzipSource source(file, blocks);
      SourceRange from_guess(source, guess, nullptr);
      std::string window;
      for (std::span<const char> s = from_guess.next(); !s.empty(); s = from_guess.next()) {
        window.append(s.data(), s.size());
        if (window.size() >= kBoundarySearchBytes) break;
      }
      const std::optional<std::size_t> at = event_start_in(window, 0, window.size());
      cut.decide(at ? std::optional<std::uint64_t>(guess + *at) : std::nullopt);
      if (!at) return;
      second_ran = true;
      HeadThenRest rest(window.substr(*at), from_guess);
      parse_part(rest, object_format ? kObjectPrefix : kArrayPrefix, false, reading, second);
      second_corrupt = source.corrupt();
    } catch (...) {
      second_error = std::current_exception();
      cut.decide(std::nullopt);
    }
  };
  std::thread second_thread;
  try {
    second_thread = std::thread(second_part);
  } catch (const std::system_error&) {
    return std::nullopt;  // no thread to be had: one part
  }
  try {
    GzipSource source(file);
    SourceRange until_cut(source, 0, &cut);
    parse_part(until_cut, {}, true, reading, first);
    first_corrupt = source.corrupt();
  } catch (...) {
    second_thread.join();
    throw;
  }
  second_thread.join();
  if (second_error) std::rethrow_exception(second_error);
  if (first_corrupt || second_corrupt) return std::nullopt;
  if (!second_ran)
    return first.end == ParseEnd::complete ? std::optional(std::move(first)) : std::nullopt;
  if (first.end != ParseEnd::limit || second.end != ParseEnd::complete) return std::nullopt;
  merge_into(first, std::move(second));
  return first;
}

[[noreturn]] void not_a_trace(const std::string& path, const ParsedFile& f) {
  switch (f.end) {
    case ParseEnd::syntax_error:
      throw ImportError(path + " is not a JSON trace: " + f.error + " (byte " +
                        std::to_string(f.error_offset) + ")");
    case ParseEnd::truncated:
      throw ImportError(path + " ends before its first trace event");
    case ParseEnd::too_deep:
      throw ImportError(path + " nests JSON deeper than " + std::to_string(Tokenizer::kMaxDepth) +
                        " levels before its first trace event");
    case ParseEnd::gzip_error:
      throw ImportError(path + " is not a valid gzip file");
    default:
      throw ImportError(path + " holds no trace events (no traceEvents array)");
  }
}

}  // namespace

ParsedFile parse_file(const std::string& path, int threads, std::uint64_t min_part_bytes,
                      ElementReading reading, SourceDigests* digests) {
  FileHandle file(path);
  FileBlocks* const blocks = digests != nullptr ? &digests->of(file.identity()) : nullptr;
  if (file.size() == 0) throw ImportError(path + " is empty");
  char head[4096];
  const std::size_t got = file.read_at(0, head, sizeof head);
  ParsedFile out;
  if (is_gzip_magic({head, got})) {
    const std::uint64_t guess = inflated_size_guess(file);
    const std::uint64_t min_part = std::max<std::uint64_t>(min_part_bytes, 2);
    std::optional<ParsedFile> parts;
    if (threads >= 2 && guess >= 2 * min_part) {
      const std::string text = peek_text(path, 4096);
      std::size_t i = text.starts_with("\xEF\xBB\xBF") ? 3 : 0;
      while (i < text.size() && is_space(text[i])) ++i;
      if (i < text.size() && (text[i] == '{' || text[i] == '['))
        parts = parse_gzip_in_two(file, guess / 2, text[i] == '{', reading, blocks);
    }
    if (parts) {
      out = std::move(*parts);
    } else {
      GzipSource source(file, blocks);
      parse_part(source, {}, false, reading, out);
      if (source.corrupt()) out.end = ParseEnd::gzip_error;
    }
    if (out.bytes == 0 && out.end != ParseEnd::gzip_error) throw ImportError(path + " is empty");
  } else {
    std::size_t i = 0;
    if (got >= 3 && std::string_view(head, 3) == "\xEF\xBB\xBF") i = 3;
    while (i < got && is_space(head[i])) ++i;
    if (i == got && got == file.size()) throw ImportError(path + " is empty");
    if (i < got && head[i] != '{' && head[i] != '[')
      throw ImportError(path + " is not a JSON trace (it starts with '" +
                        quote_start({head + i, got - i}) + "', not '{' or '[')");
    const bool object_format = i < got && head[i] == '{';
    const std::uint64_t size = file.size();
    const std::uint64_t min_part = std::max<std::uint64_t>(min_part_bytes, 2);
    const auto parts = static_cast<std::size_t>(std::clamp<std::uint64_t>(
        size / min_part, 1, static_cast<std::uint64_t>(std::max(threads, 1))));
    std::vector<std::uint64_t> cuts{0};
    for (std::size_t k = 1; k < parts; ++k) {
      const auto cut = find_event_start(file, size / parts * k);
      if (cut && *cut > cuts.back() + min_part / 2 && *cut + min_part / 2 < size)
        cuts.push_back(*cut);
    }
    cuts.push_back(size);
    std::optional<ParsedFile> parallel;
    if (cuts.size() > 2) parallel = parse_parallel(file, cuts, object_format, reading, blocks);
    out = parallel ? std::move(*parallel) : parse_sequential(file, size, reading, blocks);
  }
  if (out.events_read == 0) not_a_trace(path, out);
  return out;
}

}  // namespace ts::import
