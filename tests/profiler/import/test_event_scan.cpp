// The one-pass reader of traceEvents elements (event_scan.hpp): whatever it takes, RapidJSON
// takes too, byte for byte the same length, handing a SAX handler the same calls; it takes the
// shapes real traces are made of, and declines what only RapidJSON may judge.
#include <gtest/gtest.h>
#include <rapidjson/reader.h>

#include <random>
#include <string>
#include <vector>

#include "profiler/import/chrome/event_scan.hpp"
#include "profiler/import/chrome/tokenizer.hpp"

namespace ts::import {
namespace {

constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;

// Every SAX call, as text.
struct Record {
  std::vector<std::string> calls;
  bool add(std::string s) {
    calls.push_back(std::move(s));
    return true;
  }
  bool add(const char* what, rapidjson::SizeType count) {
    calls.emplace_back(what);
    calls.back() += std::to_string(count);
    return true;
  }
  bool Null() { return add("null"); }
  bool Bool(bool b) { return add(b ? "true" : "false"); }
  bool Int(int) { return add("int?"); }
  bool Uint(unsigned) { return add("uint?"); }
  bool Int64(std::int64_t) { return add("int64?"); }
  bool Uint64(std::uint64_t) { return add("uint64?"); }
  bool Double(double) { return add("double?"); }
  bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
    return add("n:" + std::string(s, n));
  }
  bool String(const char* s, rapidjson::SizeType n, bool) { return add("s:" + std::string(s, n)); }
  bool Key(const char* s, rapidjson::SizeType n, bool) { return add("k:" + std::string(s, n)); }
  bool StartObject() { return add("{"); }
  bool EndObject(rapidjson::SizeType n) { return add("}", n); }
  bool StartArray() { return add("["); }
  bool EndArray(rapidjson::SizeType n) { return add("]", n); }
};

struct Parsed {
  bool ok = false;
  std::size_t bytes = 0;
  std::vector<std::string> calls;
};

// RapidJSON's reading of the value at the start of `text` (which holds no NUL before its end).
Parsed rapidjson_reading(const std::string& text) {
  rapidjson::Reader reader;
  rapidjson::StringStream in(text.c_str());
  Record r;
  const rapidjson::ParseResult result =
      reader.Parse<kFlags | rapidjson::kParseStopWhenDoneFlag>(in, r);
  return {!result.IsError(), in.Tell(), r.calls};
}

Parsed scan_reading(const std::string& text) {
  EventScan scan;
  Parsed p;
  p.bytes = scan.read(text);
  p.ok = p.bytes > 0;
  if (p.ok) {
    Record r;
    EXPECT_TRUE(scan.replay(r));
    p.calls = r.calls;
  }
  return p;
}

// Checks that the scan, when it takes `text`'s value, reads it as RapidJSON does; whether it took
// it.
bool expect_agrees(const std::string& text) {
  const Parsed scan = scan_reading(text);
  if (!scan.ok) return false;
  const Parsed reference = rapidjson_reading(text.substr(0, text.find('\0')));
  EXPECT_TRUE(reference.ok) << "taken, but RapidJSON refuses: " << text;
  EXPECT_EQ(scan.bytes, reference.bytes) << text;
  EXPECT_EQ(scan.calls, reference.calls) << text;
  return true;
}

// Everything a tokenizer made of the elements it was given, as text.
std::string describe(const ParsedFile& f) {
  std::string out;
  const auto add = [&](auto... parts) { ((out += std::to_string(parts), out += ' '), ...); };
  const auto text = [&](std::uint32_t id) {
    if (Interner::is_numbered(id)) add(id);
    out += f.strings.text(id);
    out += ' ';
  };
  for (const std::vector<RawEvent>& chunk : f.events.chunks())
    for (const RawEvent& e : chunk) {
      out += "event ";
      add(e.ts, e.dur, e.correlation, e.bytes, e.thread, static_cast<int>(e.ph),
          static_cast<int>(e.copy_kind), static_cast<int>(e.device_args));
      text(e.name);
      text(e.cat);
      out += '\n';
    }
  for (const ThreadKey& t : f.threads) {
    out += "thread ";
    add(t.pid.num, t.tid.num);
    text(t.pid.str);
    text(t.tid.str);
  }
  for (const RawCounter& c : f.counters) {
    out += "\ncounter ";
    add(c.ts, c.value);
    text(c.name);
  }
  for (const RawMemoryDelta& d : f.memory_deltas) {
    out += "\ndelta ";
    add(d.ts, d.bytes);
    text(d.name);
  }
  for (const auto& [pid, name] : f.process_names) out += "\nprocess " + name;
  for (const auto& [pid, labels] : f.process_labels) out += "\nlabels " + labels;
  for (const auto& [thread, name] : f.thread_names) out += "\nthread name " + name;
  out += "\nskipped ";
  for (const std::uint64_t n : f.skipped.n) add(n);
  add(f.events_read, f.occupancy_weighted_ns, f.occupancy_ns);
  return out;
}

const std::vector<std::string>& kineto_shapes() {
  static const std::vector<std::string> shapes = {
      // Compact, as the job synthesiser and many exporters write it.
      R"({"ph":"X","cat":"kernel","name":"ampere_sgemm_128x64_tn","pid":0,"tid":7,)"
      R"("ts":1700000000001571.500,"dur":171.366,"args":{"device":0,"context":1,"stream":7,)"
      R"("correlation":2,"External id":2,"grid":[80,1,1],"block":[256,1,1],)"
      R"("est. achieved occupancy %":62}},)",
      // Kineto's own layout: indented, one key per line in args.
      "{\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"aten::linear\", \"pid\": 4000, "
      "\"tid\": 4000,\n    \"ts\": 1700000000001421.500, \"dur\": 25.000,\n    \"args\": {\n"
      "      \"External id\": 7,\"Record function id\": 0, \"Ev Idx\": 6,\n"
      "      \"Input Dims\": [[32, 784], [128, 784], [128]], \"Input type\": [\"float\", "
      "\"float\", \"float\"],\n      \"Concrete Inputs\": [\"\", \"\", \"\"]\n    }\n  },\n",
      R"({"name": "process_name", "ph": "M", "ts": 0, "pid": 1, "tid": 0, "args": {"name": "python3"}} ])",
      R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":5,"args":{"Total Allocated":1024,"Bytes":-512,"Device Type":1,"Device Id":0}})"
      " ",
      R"({"ph":"C","name":"mem","pid":1,"ts":-0.5,"args":{"a":0,"b":-12.25}},)",
      R"({"flag":true,"off":false,"none":null,"empty":{},"list":[],"nested":[{},[[]],{"a":[1,{"b":[]}]}]} )",
      "{ } ,",
      R"({"ph":"X","t":true})",  // ending with the bytes: a closing brace needs nothing after it
      "{\t\"a\"\r\n:\n\"caf\xc3\xa9 \xe2\x82\xac \x7f\"\t}\n",
      // What the tokenizer keeps of each kind of event.
      R"({"ph":"X","name":"ProfilerStep#12","pid":"Spans","tid":"PyTorch Profiler","ts":1,"dur":2},)",
      R"({"ph":"X","cat":"gpu_memcpy","name":"Memcpy","pid":0,"tid":"stream 7","ts":3,"dur":4,"args":{"bytes":4096,"kind":"DtoH","device":0,"stream":7,"correlation":12}},)",
      R"({"ph":"X","cat":"kernel","name":"ncclKernel_AllReduce","pid":0,"tid":7,"ts":5,"dur":6,"args":{"In msg nelems":1000,"dtype":"BFloat16","device":0}},)",
      R"({"ph":"B","name":"b","pid":1,"tid":2,"ts":7},)",
      R"({"ph":"E","pid":1,"tid":2,"ts":8,"dur":"x"},)",
      R"({"ph":"X","name":"no dur","pid":1,"tid":2,"ts":9},)",
      R"({"ph":"X","name":"negative","pid":1,"tid":2,"ts":9,"dur":-1},)",
      R"({"ph":"X","name":"bad ts","pid":1,"tid":2,"ts":"soon","dur":1},)",
      R"({"name":"C after args","args":{"x":1.5,"y":"text","z":[1]},"ph":"C","ts":10,"id":7},)",
      R"({"ph":"C","name":"mem","pid":1,"ts":11,"args":{"v":-0.25,"w":null}},)",
      R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":12,"args":{"Bytes":512,"Device Id":-1}},)",
      R"({"ph":"i","name":"[memory]","pid":1,"tid":1,"ts":13,"args":{"Total Allocated":2048,"Total Reserved":4096,"Device Type":1,"Device Id":0}},)",
      R"({"ph":"i","name":"Iteration Start","pid":1,"tid":1,"ts":14},)",
      R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"python"}},)",
      R"({"ph":"M","name":"process_labels","pid":0,"args":{"labels":"GPU 0"}},)",
      R"({"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"main"}},)",
      R"({"ph":"s","id":1,"pid":1,"tid":1,"ts":15},)",
      R"({"ph":"b","pid":1,"tid":1,"ts":16},{"ph":"Z"},)",
      R"({"name":"no phase","ts":17},)",
      R"({"ph":"X","name":"occupied","pid":0,"tid":7,"ts":18,"dur":100,"args":{"est. achieved occupancy %":50,"args":{"correlation":9}}},)",
      R"({"ph":"X","name":"args not an object","pid":0,"tid":7,"ts":19,"dur":1,"args":[{"correlation":9}],"name":"renamed"},)",
      R"({"ph":"X","name":"null ts","pid":null,"tid":true,"ts":null,"dur":1},)",
  };
  return shapes;
}

TEST(EventScan, TakesTheShapesOfRealTracesAsRapidJsonReadsThem) {
  for (const std::string& text : kineto_shapes()) {
    const Parsed scan = scan_reading(text);
    ASSERT_TRUE(scan.ok) << "declined: " << text;
    const Parsed reference = rapidjson_reading(text);
    ASSERT_TRUE(reference.ok) << text;
    EXPECT_EQ(scan.bytes, reference.bytes) << text;
    EXPECT_EQ(scan.calls, reference.calls) << text;
  }
}

// The tokenizer's reading of elements: through the SAX calls of EventScan::replay, or directly
// from the tokens (Tokenizer::scanned_event, what the import uses).
std::string tokenized(const std::vector<std::string>& elements, bool direct) {
  ParsedFile f;
  Tokenizer t(f);
  EXPECT_TRUE(t.StartArray());  // a bare array of events
  EventScan scan;
  for (const std::string& text : elements) {
    if (scan.read(text) == 0) continue;
    if (direct)
      t.scanned_event(scan.tokens());
    else
      EXPECT_TRUE(scan.replay(t));
    EXPECT_TRUE(t.between_events());
  }
  return describe(f);
}

TEST(EventScan, TheTokenizerReadsScannedEventsAsItReadsTheirSaxCalls) {
  const std::string all = tokenized(kineto_shapes(), false);
  EXPECT_NE(all.find("C after args 7 x"), std::string::npos) << all;
  EXPECT_NE(all.find("GPU 0 memory reserved"), std::string::npos) << all;
  EXPECT_NE(all.find("process python"), std::string::npos) << all;
  EXPECT_EQ(tokenized(kineto_shapes(), true), all);
  // And each alone, and the damaged ones the scan still takes.
  for (const std::string& text : kineto_shapes())
    EXPECT_EQ(tokenized({text}, true), tokenized({text}, false)) << text;
  std::mt19937 rng(7);
  for (int round = 0; round < 20000; ++round) {
    std::string text = kineto_shapes()[rng() % kineto_shapes().size()];
    text[rng() % text.size()] = "{}[]\":,0-.ex"[rng() % 13];
    ASSERT_EQ(tokenized({text}, true), tokenized({text}, false)) << text;
  }
}

TEST(EventScan, DeclinesWhatOnlyRapidJsonMayJudge) {
  const std::vector<std::string> declined = {
      R"({"name":"a \"quoted\" name"},)",  // escapes: RapidJSON unescapes
      "{\"name\":\"a raw\ttab\"},",        // a control character: RapidJSON's error
      R"({"ts":NaN},)",
      R"({"ts":1e5},)",
      R"({"ts":12345678901234567890},)",  // 20 digits: RapidJSON may refuse it as too big
      R"({"ts":01},)",
      R"({"ph":"X",},)",  // a trailing comma
      R"({"ph" "X"},)",
      R"({"ph":"X"] ,)",
      R"({"a":[1 2]},)",
      R"({"a":tru},)",
      R"({"a":[[[[[[[[1]]]]]]]]},)",            // deeper than EventScan::kMaxNesting
      std::string("{\"name\":\"a\0b\"},", 13),  // a NUL: where RapidJSON's input ends
      R"({"ph":"X")",                           // the bytes end inside the element
      R"({"ph":"X","ts":12)",                   // ... or inside a number that may go on
      R"([{"ph":"X"}],)",                       // not an object
      "",
  };
  for (const std::string& text : declined) EXPECT_EQ(scan_reading(text).bytes, 0u) << text;
  std::string many = "{\"a\":[";
  for (std::size_t i = 0; i < EventScan::kMaxTokens; ++i) many += "1,";
  many += "1]},";
  EXPECT_EQ(scan_reading(many).bytes, 0u) << "more tokens than kMaxTokens";
}

TEST(EventScan, AnyDamageIsDeclinedOrReadAsRapidJsonReadsIt) {
  // Every shape, cut, mutated and spliced at random: whatever the scan still takes must be
  // RapidJSON's reading, byte count included.
  std::mt19937 rng(20261129);
  int taken = 0;
  const std::string alphabet = "{}[]\":,. -+0123456789eEtrufalsnN\\\t\n\x01\x80x";
  for (int round = 0; round < 60000; ++round) {
    std::string text = kineto_shapes()[rng() % kineto_shapes().size()];
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      const std::size_t at = rng() % text.size();
      switch (rng() % 4) {
        case 0:
          text[at] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(at, 1 + rng() % 3);
          break;
        case 2:
          text.insert(at, 1, alphabet[rng() % alphabet.size()]);
          break;
        default:
          text.resize(at);
          break;
      }
    }
    taken += expect_agrees(text) ? 1 : 0;
    if (HasFailure()) return;
  }
  EXPECT_GT(taken, 6000) << "the damage left too few elements readable to compare";
}

}  // namespace
}  // namespace ts::import
