// The RapidJSON SAX handler: turns the JSON of one file (or of one part of it) into the flat
// records of a ParsedFile as it streams by. It keeps only the fields the import uses; unknown
// keys, args and nested values are passed over without allocating. Every string the records
// keep is interned. Nesting deeper than kMaxDepth stops the parse (returning false), which
// bounds RapidJSON's recursion on hostile input.
#pragma once

#include <rapidjson/reader.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "profiler/import/chrome/event_scan.hpp"
#include "profiler/import/chrome/raw_event.hpp"

namespace ts::import {

class Tokenizer : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Tokenizer> {
 public:
  static constexpr int kMaxDepth = 64;
  using SizeType = rapidjson::SizeType;

  // scan: whether elements of traceEvents may be read by EventScan (parse_file.cpp).
  explicit Tokenizer(ParsedFile& out, bool scan = true) : out_(out), scan_(scan) {}
  bool scans_elements() const { return scan_; }

  bool Null() { return scalar(nullptr, 0, Value::other); }
  bool Bool(bool) { return scalar(nullptr, 0, Value::other); }
  bool RawNumber(const char* s, SizeType n, bool) { return scalar(s, n, Value::number); }
  bool String(const char* s, SizeType n, bool) { return scalar(s, n, Value::string); }
  bool Key(const char* s, SizeType n, bool);
  bool StartObject();
  bool EndObject(SizeType);
  bool StartArray();
  bool EndArray(SizeType);

  // Reads one traceEvents element that EventScan took (between_events() must hold), as the SAX
  // calls of EventScan::replay would, without making them: what a large trace is mostly read by.
  void scanned_event(std::span<const EventScan::Token> tokens);

  bool too_deep() const { return too_deep_; }
  // Inside a container whose contents are passed over (EventScan's replay skips them).
  bool ignoring() const { return depth_ > 0 && stack_[depth_ - 1] == Frame::skip; }
  // Inside a traceEvents array, between two of its elements.
  bool between_events() const { return depth_ > 0 && stack_[depth_ - 1] == Frame::events; }
  // Where the value RapidJSON just refused lies: the number of containers open inside the
  // traceEvents element being read (0: the value is the element itself), or -1 when it lies
  // outside the traceEvents array.
  int open_in_element() const;
  // Gives the element being read up: counted as read and skipped for `why`. The frames are
  // forgotten: the parse resumes behind a prefix that opens the traceEvents array again.
  void abandon_element(Skip why);

 private:
  enum class Frame : std::uint8_t { root, top, events, event, args, dist, devprops, devprop, skip };
  enum class Value : std::uint8_t { number, string, other };
  // The keys each frame cares about; everything else is `other`.
  enum class K : std::uint8_t {
    other,
    // event
    ph,
    cat,
    name,
    pid,
    tid,
    ts,
    dur,
    args,
    id,
    // args
    correlation,
    bytes,
    device,
    stream,
    kind,
    nelems,
    dtype,
    device_id,
    device_type,
    total_allocated,
    total_reserved,
    memory_bytes,
    occupancy,  // "est. achieved occupancy %"
    arg_name,
    labels,
    // top level
    trace_events,
    base_time,
    distributed_info,
    device_properties,
    display_time_unit,
    trace_name,
    host_name,
    schema_version,
    // distributedInfo
    rank,
    world_size,
    backend,
    // deviceProperties[i]
    device_name,
    device_index,
    total_global_mem,
    compute_major,
    compute_minor,
  };

  Frame frame() const { return depth_ == 0 ? Frame::root : stack_[depth_ - 1]; }
  static Value value_kind(EventScan::Kind k);
  static K event_key(const char* s, SizeType n);
  static K args_key(const char* s, SizeType n);
  void args_key_seen(const char* s, SizeType n);
  // The pairs of a scanned args object: tokens [begin, end).
  void scanned_args(std::span<const EventScan::Token> tokens, std::size_t begin, std::size_t end);
  bool push(Frame f);
  bool scalar(const char* s, SizeType n, Value v);
  void event_value(const char* s, SizeType n, Value v);
  void args_value(const char* s, SizeType n, Value v);
  void top_value(const char* s, SizeType n, Value v);
  void begin_event();
  void finish_event();
  void finish_metadata();
  void finish_counter();
  void finish_memory();
  void device_property_value(const char* s, SizeType n, Value v);
  std::uint32_t thread_index(const ThreadKey& key);
  Ident ident(const char* s, SizeType n, Value v);
  std::uint32_t intern_capped(const char* s, SizeType n);

  ParsedFile& out_;
  bool scan_;
  Frame stack_[kMaxDepth] = {};
  int depth_ = 0;
  K key_ = K::other;
  bool too_deep_ = false;

  // The event being read.
  RawEvent ev_;
  Ident pid_, tid_;
  bool ts_bad_ = false, dur_bad_ = false, has_device_ = false, has_stream_ = false;
  std::int64_t nelems_ = kNone, device_id_ = kNone, device_type_ = kNone;
  int dtype_size_ = 0;
  bool has_total_allocated_ = false, has_total_reserved_ = false, has_memory_bytes_ = false;
  double total_allocated_ = 0, total_reserved_ = 0, memory_bytes_ = 0;
  double occupancy_ = -1;  // the event's achieved occupancy in percent; < 0: none
  std::string id_text_, arg_name_, arg_labels_, key_text_;
  std::vector<std::pair<std::string, std::string>> series_;  // C events: (key, number text)

  struct ThreadHash {
    std::size_t operator()(const ThreadKey& k) const {
      std::uint64_t h = static_cast<std::uint64_t>(k.pid.num) * 0x9e3779b97f4a7c15ull;
      h ^= static_cast<std::uint64_t>(k.tid.num) + 0x632be59bd9b4e019ull + (h << 6) + (h >> 2);
      h ^= (static_cast<std::uint64_t>(k.pid.str) << 32) ^ k.tid.str;
      return static_cast<std::size_t>(h);
    }
  };
  std::unordered_map<ThreadKey, std::uint32_t, ThreadHash> thread_ids_;
  ThreadKey last_thread_{};
  std::uint32_t last_thread_index_ = UINT32_MAX;
};

}  // namespace ts::import
