#include "profiler/import/chrome/tokenizer.hpp"

#include <cstring>
#include <string_view>

#include "profiler/import/chrome/number_text.hpp"
#include "profiler/import/common/text_clean.hpp"

namespace ts::import {

namespace {

template <std::size_t N>
inline bool eq(const char* s, rapidjson::SizeType n, const char (&lit)[N]) {
  return n == N - 1 && std::memcmp(s, lit, N - 1) == 0;
}

// Sizes of the dtypes PyTorch names in collective args ("Float", "BFloat16", ...).
int dtype_size(std::string_view t) {
  std::string lower;
  for (const char c : t.substr(0, 32))
    lower += static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  if (lower.starts_with("c10::")) lower.erase(0, 5);
  if (lower.starts_with("float8")) return 1;
  static constexpr std::pair<std::string_view, int> kSizes[] = {
      {"float", 4},      {"float32", 4},  {"double", 8}, {"float64", 8},      {"half", 2},
      {"float16", 2},    {"bfloat16", 2}, {"int", 4},    {"int32", 4},        {"long", 8},
      {"int64", 8},      {"short", 2},    {"int16", 2},  {"byte", 1},         {"uint8", 1},
      {"char", 1},       {"int8", 1},     {"bool", 1},   {"complexfloat", 8}, {"complexdouble", 16},
      {"complexhalf", 4}};
  for (const auto& [name, size] : kSizes)
    if (lower == name) return size;
  return 0;
}

CopyKind copy_kind(std::string_view k) {
  if (k == "HtoD" || k == "HtoA") return CopyKind::h2d;
  if (k == "DtoH" || k == "AtoH") return CopyKind::d2h;
  return k.size() == 4 && k[1] == 't' && k[2] == 'o' ? CopyKind::other : CopyKind::none;
}

}  // namespace

bool Tokenizer::push(Frame f) {
  if (depth_ == kMaxDepth) {
    too_deep_ = true;
    return false;
  }
  stack_[depth_++] = f;
  key_ = K::other;
  return true;
}

Tokenizer::K Tokenizer::event_key(const char* s, SizeType n) {
  switch (n) {
    case 2:
      if (s[0] == 'p' && s[1] == 'h') return K::ph;
      if (s[0] == 't' && s[1] == 's') return K::ts;
      if (s[0] == 'i' && s[1] == 'd') return K::id;
      break;
    case 3:
      if (eq(s, n, "cat")) return K::cat;
      if (eq(s, n, "pid")) return K::pid;
      if (eq(s, n, "tid")) return K::tid;
      if (eq(s, n, "dur")) return K::dur;
      break;
    case 4:
      if (eq(s, n, "name")) return K::name;
      if (eq(s, n, "args")) return K::args;
      break;
    default:
      break;
  }
  return K::other;
}

Tokenizer::K Tokenizer::args_key(const char* s, SizeType n) {
  switch (n) {
    case 4:
      if (eq(s, n, "kind")) return K::kind;
      if (eq(s, n, "name")) return K::arg_name;
      break;
    case 5:
      if (eq(s, n, "bytes")) return K::bytes;
      if (eq(s, n, "dtype")) return K::dtype;
      if (eq(s, n, "Bytes")) return K::memory_bytes;
      break;
    case 6:
      if (eq(s, n, "device")) return K::device;
      if (eq(s, n, "stream")) return K::stream;
      if (eq(s, n, "labels")) return K::labels;
      break;
    case 9:
      if (eq(s, n, "Device Id")) return K::device_id;
      break;
    case 11:
      if (eq(s, n, "correlation")) return K::correlation;
      if (eq(s, n, "Device Type")) return K::device_type;
      break;
    case 13:
      if (eq(s, n, "In msg nelems")) return K::nelems;
      break;
    case 14:
      if (eq(s, n, "Total Reserved")) return K::total_reserved;
      break;
    case 15:
      if (eq(s, n, "Total Allocated")) return K::total_allocated;
      break;
    case 25:
      if (eq(s, n, "est. achieved occupancy %")) return K::occupancy;
      break;
    default:
      break;
  }
  return K::other;
}

void Tokenizer::args_key_seen(const char* s, SizeType n) {
  key_ = args_key(s, n);
  // A counter's series are its numeric args; the phase may come after them.
  if (ev_.ph == 'C' || ev_.ph == 0) key_text_.assign(s, std::min<SizeType>(n, 256));
}

bool Tokenizer::Key(const char* s, SizeType n, bool) {
  key_ = K::other;
  switch (frame()) {
    case Frame::event:
      key_ = event_key(s, n);
      break;
    case Frame::args:
      args_key_seen(s, n);
      break;
    case Frame::top:
      if (eq(s, n, "traceEvents")) {
        key_ = K::trace_events;
      } else if (eq(s, n, "baseTimeNanoseconds")) {
        key_ = K::base_time;
        out_.kineto_keys = true;
      } else if (eq(s, n, "distributedInfo")) {
        key_ = K::distributed_info;
        out_.kineto_keys = true;
      } else if (eq(s, n, "deviceProperties")) {
        key_ = K::device_properties;
        out_.kineto_keys = true;
      } else if (eq(s, n, "schemaVersion")) {
        key_ = K::schema_version;
        out_.kineto_keys = true;
      } else if (eq(s, n, "displayTimeUnit")) {
        key_ = K::display_time_unit;
      } else if (eq(s, n, "traceName")) {
        key_ = K::trace_name;
      } else if (eq(s, n, "host_name")) {
        key_ = K::host_name;
      }
      break;
    case Frame::dist:
      if (eq(s, n, "rank"))
        key_ = K::rank;
      else if (eq(s, n, "world_size"))
        key_ = K::world_size;
      else if (eq(s, n, "backend"))
        key_ = K::backend;
      break;
    case Frame::devprop:
      if (eq(s, n, "name"))
        key_ = K::device_name;
      else if (eq(s, n, "id"))
        key_ = K::device_index;
      else if (eq(s, n, "totalGlobalMem"))
        key_ = K::total_global_mem;
      else if (eq(s, n, "computeMajor"))
        key_ = K::compute_major;
      else if (eq(s, n, "computeMinor"))
        key_ = K::compute_minor;
      break;
    default:
      break;
  }
  return true;
}

bool Tokenizer::StartObject() {
  Frame f = Frame::skip;
  switch (frame()) {
    case Frame::root:
      f = Frame::top;
      out_.object_format = true;
      break;
    case Frame::events:
      f = Frame::event;
      begin_event();
      break;
    case Frame::event:
      f = key_ == K::args ? Frame::args : Frame::skip;
      break;
    case Frame::top:
      f = key_ == K::distributed_info ? Frame::dist : Frame::skip;
      break;
    case Frame::devprops:
      f = Frame::devprop;
      out_.devices.emplace_back();
      break;
    default:
      break;
  }
  return push(f);
}

bool Tokenizer::EndObject(SizeType) {
  const Frame f = stack_[--depth_];
  if (f == Frame::event) finish_event();
  return true;
}

bool Tokenizer::StartArray() {
  Frame f = Frame::skip;
  switch (frame()) {
    case Frame::root:
      f = Frame::events;  // a bare array of events
      break;
    case Frame::top:
      if (key_ == K::trace_events)
        f = Frame::events;
      else if (key_ == K::device_properties)
        f = Frame::devprops;
      break;
    case Frame::events:
      ++out_.events_read;
      out_.skipped.add(Skip::not_an_object);
      break;
    default:
      break;
  }
  return push(f);
}

int Tokenizer::open_in_element() const {
  for (int i = 0; i < depth_; ++i)
    if (stack_[i] == Frame::events) return depth_ - i - 1;
  return -1;
}

void Tokenizer::abandon_element(Skip why) {
  ++out_.events_read;
  out_.skipped.add(why);
  depth_ = 0;
  key_ = K::other;
}

bool Tokenizer::EndArray(SizeType) {
  --depth_;
  return true;
}

bool Tokenizer::scalar(const char* s, SizeType n, Value v) {
  switch (frame()) {
    case Frame::event:
      event_value(s, n, v);
      break;
    case Frame::args:
      args_value(s, n, v);
      break;
    case Frame::events:
      ++out_.events_read;
      out_.skipped.add(Skip::not_an_object);
      break;
    case Frame::top:
      top_value(s, n, v);
      break;
    case Frame::dist:
      if (v == Value::number && (key_ == K::rank || key_ == K::world_size)) {
        std::int64_t x = 0;
        if (parse_int64({s, n}, x) == NumberParse::ok)
          (key_ == K::rank ? out_.rank : out_.world_size) = x;
      } else if (v == Value::string && key_ == K::backend) {
        out_.backend.assign(cut_at_boundary({s, n}, 256));
      }
      break;
    case Frame::devprop:
      device_property_value(s, n, v);
      break;
    default:
      break;
  }
  return true;
}

void Tokenizer::top_value(const char* s, SizeType n, Value v) {
  const std::string_view text(s == nullptr ? "" : s, n);
  switch (key_) {
    case K::base_time: {
      std::int64_t x = 0;
      if (v != Value::other && parse_int64(text, x) == NumberParse::ok) out_.base_time_ns = x;
      break;
    }
    case K::display_time_unit:
      if (v == Value::string) out_.display_time_unit.assign(cut_at_boundary(text, 64));
      break;
    case K::trace_name:
      if (v == Value::string) out_.trace_name.assign(cut_at_boundary(text, kMaxNameBytes));
      break;
    case K::host_name:
      if (v == Value::string) out_.host_name.assign(cut_at_boundary(text, 256));
      break;
    default:
      break;
  }
}

std::uint32_t Tokenizer::intern_capped(const char* s, SizeType n) {
  return out_.strings.intern(cut_at_boundary({s, n}, kMaxNameBytes));
}

Ident Tokenizer::ident(const char* s, SizeType n, Value v) {
  Ident id;
  if (v == Value::number) {
    if (parse_int64({s, n}, id.num) == NumberParse::ok) return id;
    id.num = 0;
  }
  if (v == Value::other) return id;
  id.str = intern_capped(s, n);
  if (id.str == 0) id.str = out_.strings.intern("\"\"");  // an empty string pid: not pid 0
  return id;
}

void Tokenizer::event_value(const char* s, SizeType n, Value v) {
  switch (key_) {
    case K::ph:
      ev_.ph = (v == Value::string && n == 1 && s[0] != 0) ? s[0] : '?';
      break;
    case K::cat:
      if (v == Value::string) ev_.cat = intern_capped(s, n);
      break;
    case K::name:
      if (v == Value::other) break;
      if (n > kMaxNameBytes) out_.skipped.add(Skip::name_truncated);
      ev_.name = out_.strings.intern_name(cut_at_boundary({s, n}, kMaxNameBytes));
      break;
    case K::pid:
      pid_ = ident(s, n, v);
      break;
    case K::tid:
      tid_ = ident(s, n, v);
      break;
    case K::ts:
    case K::dur: {
      std::int64_t x = 0;
      const bool ok = v != Value::other && micros_to_ns({s, n}, x) == NumberParse::ok;
      if (key_ == K::ts) {
        ev_.ts = ok ? x : kNone;
        ts_bad_ = !ok;
      } else {
        ev_.dur = ok ? x : kNone;
        dur_bad_ = !ok;
      }
      break;
    }
    case K::id:
      if (v != Value::other) id_text_.assign(s, std::min<SizeType>(n, 64));
      break;
    default:
      break;
  }
}

void Tokenizer::args_value(const char* s, SizeType n, Value v) {
  const std::string_view text(s == nullptr ? "" : s, n);
  std::int64_t x = 0;
  const auto integer = [&] {
    return v == Value::number && parse_int64(text, x) == NumberParse::ok;
  };
  switch (key_) {
    case K::correlation:
      if (integer()) ev_.correlation = x;
      break;
    case K::bytes:
      if (integer() && x >= 0) ev_.bytes = x;
      break;
    case K::device:
      has_device_ = v == Value::number;
      break;
    case K::stream:
      has_stream_ = v == Value::number;
      break;
    case K::kind:
      if (v == Value::string) ev_.copy_kind = copy_kind(text);
      break;
    case K::nelems:
      if (integer() && x >= 0) nelems_ = x;
      break;
    case K::dtype:
      if (v == Value::string) dtype_size_ = dtype_size(text);
      break;
    case K::device_id:
      if (integer()) device_id_ = x;
      break;
    case K::device_type:
      if (integer()) device_type_ = x;
      break;
    case K::total_allocated:
      has_total_allocated_ =
          v == Value::number && parse_double(text, total_allocated_) == NumberParse::ok;
      break;
    case K::total_reserved:
      has_total_reserved_ =
          v == Value::number && parse_double(text, total_reserved_) == NumberParse::ok;
      break;
    case K::memory_bytes:
      has_memory_bytes_ =
          v == Value::number && parse_double(text, memory_bytes_) == NumberParse::ok;
      break;
    case K::occupancy: {
      double pct = 0;
      if (v == Value::number && parse_double(text, pct) == NumberParse::ok && pct >= 0 &&
          pct <= 100)
        occupancy_ = pct;
      break;
    }
    case K::arg_name:
      if (v == Value::string) arg_name_.assign(cut_at_boundary(text, kMaxNameBytes));
      break;
    case K::labels:
      if (v == Value::string) arg_labels_.assign(cut_at_boundary(text, 256));
      break;
    default:
      break;
  }
  if ((ev_.ph == 'C' || ev_.ph == 0) && v == Value::number && series_.size() < 64)
    series_.emplace_back(key_text_, text);
}

namespace {

bool is_container(EventScan::Kind k) {
  return k == EventScan::Kind::start_object || k == EventScan::Kind::start_array;
}

}  // namespace

Tokenizer::Value Tokenizer::value_kind(EventScan::Kind k) {
  using Kind = EventScan::Kind;
  return k == Kind::string ? Value::string : k == Kind::number ? Value::number : Value::other;
}

void Tokenizer::scanned_event(std::span<const EventScan::Token> tokens) {
  using Kind = EventScan::Kind;
  begin_event();
  // tokens[0] and tokens.back() are the element's braces; then key, value, key, value...
  for (std::size_t i = 1; i + 1 < tokens.size();) {
    key_ = event_key(tokens[i].text, tokens[i].size);
    const EventScan::Token& v = tokens[i + 1];
    if (is_container(v.kind)) {
      if (v.kind == Kind::start_object && key_ == K::args) scanned_args(tokens, i + 2, v.size);
      i = v.size + 1;  // past its end
    } else {
      event_value(v.text, v.size, value_kind(v.kind));
      i += 2;
    }
  }
  finish_event();
}

void Tokenizer::scanned_args(std::span<const EventScan::Token> tokens, std::size_t begin,
                             std::size_t end) {
  for (std::size_t i = begin; i < end;) {
    args_key_seen(tokens[i].text, tokens[i].size);
    const EventScan::Token& v = tokens[i + 1];
    if (is_container(v.kind)) {
      i = v.size + 1;
    } else {
      args_value(v.text, v.size, value_kind(v.kind));
      i += 2;
    }
  }
}

void Tokenizer::begin_event() {
  ev_ = RawEvent{};
  pid_ = tid_ = Ident{};
  ts_bad_ = dur_bad_ = has_device_ = has_stream_ = false;
  has_total_allocated_ = has_total_reserved_ = has_memory_bytes_ = false;
  occupancy_ = -1;
  nelems_ = device_id_ = device_type_ = kNone;
  dtype_size_ = 0;
  id_text_.clear();
  arg_name_.clear();
  arg_labels_.clear();
  series_.clear();
}

std::uint32_t Tokenizer::thread_index(const ThreadKey& key) {
  if (last_thread_index_ != UINT32_MAX && key == last_thread_) return last_thread_index_;
  auto [it, inserted] =
      thread_ids_.try_emplace(key, static_cast<std::uint32_t>(out_.threads.size()));
  if (inserted) out_.threads.push_back(key);
  last_thread_ = key;
  last_thread_index_ = it->second;
  return it->second;
}

void Tokenizer::finish_event() {
  ++out_.events_read;
  const char ph = ev_.ph;
  const auto needs_ts = [&] {
    if (ev_.ts != kNone) return true;
    out_.skipped.add(ts_bad_ ? Skip::invalid_timestamp : Skip::missing_timestamp);
    return false;
  };
  switch (ph) {
    case 'X':
      if (!needs_ts()) return;
      if (ev_.dur == kNone) {
        out_.skipped.add(dur_bad_ ? Skip::invalid_duration : Skip::missing_duration);
        return;
      }
      if (ev_.dur < 0) {
        out_.skipped.add(Skip::negative_duration);
        return;
      }
      if (occupancy_ >= 0) {
        out_.occupancy_weighted_ns += occupancy_ * static_cast<double>(ev_.dur);
        out_.occupancy_ns += static_cast<double>(ev_.dur);
      }
      [[fallthrough]];
    case 'B':
    case 'E':
      if (ph != 'X' && !needs_ts()) return;
      if (ph != 'X') ev_.dur = kNone;
      if (ev_.bytes == kNone && nelems_ != kNone && dtype_size_ > 0) {
        std::int64_t bytes = 0;  // a collective's message: elements x dtype size
        if (!__builtin_mul_overflow(nelems_, std::int64_t{dtype_size_}, &bytes)) ev_.bytes = bytes;
      }
      ev_.device_args = has_device_ && has_stream_;
      ev_.thread = thread_index({pid_, tid_});
      out_.events.push_back(ev_);
      return;
    case 'i':
    case 'I':
      if (out_.strings.text(ev_.name) == "[memory]") {
        finish_memory();
      } else {
        out_.skipped.add(Skip::instant_event);
      }
      return;
    case 'C':
      finish_counter();
      return;
    case 'M':
      finish_metadata();
      return;
    case 's':
    case 't':
    case 'f':
      out_.skipped.add(Skip::flow);
      return;
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'T':
    case 'p':
    case 'F':
      out_.skipped.add(Skip::async_event);
      return;
    case 'P':
    case 'N':
    case 'O':
    case 'D':
    case 'V':
    case 'v':
    case 'R':
    case 'c':
    case '(':
    case ')':
      out_.skipped.add(Skip::unsupported_phase);
      return;
    case 0:
      out_.skipped.add(Skip::missing_phase);
      return;
    default:
      out_.skipped.add(Skip::unknown_phase);
      return;
  }
}

void Tokenizer::finish_metadata() {
  const std::string_view what = out_.strings.text(ev_.name);
  if (what == "process_name") {
    out_.process_names.emplace_back(pid_, arg_name_);
  } else if (what == "process_labels") {
    out_.process_labels.emplace_back(pid_, arg_labels_);
  } else if (what == "thread_name") {
    out_.thread_names.emplace_back(thread_index({pid_, tid_}), arg_name_);
  }
}

void Tokenizer::finish_memory() {
  if (ev_.ts == kNone || (!has_total_allocated_ && !has_memory_bytes_)) {
    out_.skipped.add(ev_.ts == kNone ? Skip::missing_timestamp : Skip::invalid_counter);
    return;
  }
  // Device Type follows c10::DeviceType: 0 is the CPU.
  const bool cpu = device_type_ == 0 || device_id_ == kNone || device_id_ < 0;
  const std::string device = cpu ? std::string("CPU") : "GPU " + std::to_string(device_id_);
  const std::uint32_t allocated = out_.strings.intern(device + " memory allocated");
  if (!has_total_allocated_) {  // the older form: only this allocation's (or free's) bytes
    out_.memory_deltas.push_back({ev_.ts, allocated, memory_bytes_});
    return;
  }
  out_.counters.push_back({ev_.ts, allocated, total_allocated_});
  if (has_total_reserved_)
    out_.counters.push_back(
        {ev_.ts, out_.strings.intern(device + " memory reserved"), total_reserved_});
}

void Tokenizer::device_property_value(const char* s, SizeType n, Value v) {
  if (out_.devices.empty()) return;
  DeviceProperties& d = out_.devices.back();
  if (key_ == K::device_name) {
    if (v != Value::string) return;
    d.name = cut_at_boundary({s, n}, 256);
    out_.device_names.push_back(d.name);
    return;
  }
  std::int64_t x = 0;
  if (v != Value::number || parse_int64({s, n}, x) != NumberParse::ok || x < 0) return;
  switch (key_) {
    case K::device_index:
      d.id = x;
      break;
    case K::total_global_mem:
      d.total_memory = x;
      break;
    case K::compute_major:
      d.compute_major = x;
      break;
    case K::compute_minor:
      d.compute_minor = x;
      break;
    default:
      break;
  }
}

void Tokenizer::finish_counter() {
  if (ev_.ts == kNone) {
    out_.skipped.add(ts_bad_ ? Skip::invalid_timestamp : Skip::missing_timestamp);
    return;
  }
  std::string base(out_.strings.text(ev_.name));
  if (!id_text_.empty()) base += " " + id_text_;
  for (const auto& [key, text] : series_) {
    double value = 0;
    if (parse_double(text, value) != NumberParse::ok) {
      out_.skipped.add(Skip::invalid_counter);
      continue;
    }
    const std::string name = key.empty() ? base : base + " " + key;
    out_.counters.push_back(
        {ev_.ts, out_.strings.intern(cut_at_boundary(name, kMaxNameBytes)), value});
  }
}

}  // namespace ts::import
