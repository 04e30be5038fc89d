// How fast a JSON trace can be read at all, beside how fast the import reads it: the import's
// parse of one file (parse_file: reading, tokenising, interning the strings it keeps) against
// RapidJSON's own SAX parse with a handler that does nothing (the floor of any RapidJSON-based
// reader), the import's one-pass reader of plain elements (EventScan) handing them to that
// handler (RapidJSON reading the elements it declines), and, when the build found simdjson,
// simdjson's On-Demand parser walking the same fields the import keeps, and skipping every event
// whole (its structural scan alone). Each is run alternately, best of --repeat, in this one
// process, on a file read into memory first. It tells what a job import's target of GB/s on a few
// cores asks of the JSON parse alone.
//
//   bench_json_ceiling [--repeat N] FILE.json
#include <rapidjson/reader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <string>

#include "profiler/import/chrome/event_scan.hpp"
#include "profiler/import/chrome/parse_file.hpp"

#ifdef TS_WITH_SIMDJSON
#include <simdjson.h>
#endif

namespace {

struct NullHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NullHandler> {};

constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag;

// The elements of the traceEvents array, each read by EventScan or, when it declines, by
// RapidJSON, into a handler that does nothing; the number declined.
std::size_t scan_elements(const std::string& json) {
  ts::import::EventScan scan;
  NullHandler handler;
  std::size_t declined = 0;
  const auto space = [&](std::size_t i) {
    while (i < json.size() &&
           (json[i] == ' ' || json[i] == '\n' || json[i] == '\r' || json[i] == '\t'))
      ++i;
    return i;
  };
  // {"traceEvents": [...]}, or a bare array of events.
  const std::size_t key = json.find("\"traceEvents\"");
  std::size_t at = json.find('[', key == std::string::npos ? 0 : key);
  if (at == std::string::npos) return 0;
  at = space(at + 1);
  while (at < json.size() && json[at] == '{') {
    std::size_t n = scan.read(std::string_view(json).substr(at));
    if (n > 0) {
      scan.replay(handler);
    } else {
      ++declined;
      rapidjson::Reader reader;
      rapidjson::StringStream in(json.c_str() + at);
      reader.Parse<kFlags | rapidjson::kParseStopWhenDoneFlag>(in, handler);
      n = in.Tell();
    }
    at = space(at + n);
    if (at < json.size() && json[at] == ',') at = space(at + 1);
  }
  return declined;
}

template <class F>
double seconds(F&& f) {
  const auto t = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

#ifdef TS_WITH_SIMDJSON
// The traceEvents array, or the document when it is a bare array of events.
simdjson::ondemand::array events_of(simdjson::ondemand::document& doc) {
  if (doc.type().value() == simdjson::ondemand::json_type::array) return doc.get_array().value();
  return doc["traceEvents"].get_array().value();
}

// The fields the import reads of each event: their values are parsed, the rest skipped.
std::uint64_t simdjson_fields(simdjson::ondemand::parser& parser,
                              const simdjson::padded_string& json) {
  std::uint64_t seen = 0;
  simdjson::ondemand::document doc = parser.iterate(json);
  for (auto event : events_of(doc)) {
    for (auto field : event.get_object()) {
      const std::string_view key = field.unescaped_key().value();
      auto value = field.value();
      // A value of another type than most traces give (a pid "Spans") is passed over.
      double number = 0;
      std::string_view text;
      if (key == "ts" || key == "dur" || key == "pid" || key == "tid") {
        if (value.get_double().get(number) == simdjson::SUCCESS)
          seen += static_cast<std::uint64_t>(number);
      } else if (key == "ph" || key == "cat" || key == "name") {
        if (value.get_string().get(text) == simdjson::SUCCESS) seen += text.size();
      } else if (key == "args") {
        simdjson::ondemand::object args;
        if (value.get_object().get(args) != simdjson::SUCCESS) continue;
        for (auto arg : args) {
          const std::string_view name = arg.unescaped_key().value();
          if ((name == "correlation" || name == "device" || name == "stream") &&
              arg.value().get_double().get(number) == simdjson::SUCCESS)
            seen += static_cast<std::uint64_t>(number);
        }
      }
    }
  }
  return seen;
}

std::uint64_t simdjson_skip(simdjson::ondemand::parser& parser,
                            const simdjson::padded_string& json) {
  std::uint64_t events = 0;
  simdjson::ondemand::document doc = parser.iterate(json);
  for (auto event : events_of(doc)) {
    (void)event;
    ++events;
  }
  return events;
}
#endif

}  // namespace

int main(int argc, char** argv) {
  int repeat = 5;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--repeat" && i + 1 < argc)
      repeat = std::max(1, std::atoi(argv[++i]));
    else
      path = a;
  }
  if (path.empty()) {
    std::fprintf(stderr, "usage: bench_json_ceiling [--repeat N] FILE.json\n");
    return 2;
  }
  std::ifstream in(path, std::ios::binary);
  const std::string json{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  if (json.empty()) {
    std::fprintf(stderr, "bench_json_ceiling: cannot read %s\n", path.c_str());
    return 2;
  }
  double import_s = 1e100, rapidjson_s = 1e100, scan_s = 1e100;
  std::size_t events = 0, declined = 0;
#ifdef TS_WITH_SIMDJSON
  const simdjson::padded_string padded(json);
  simdjson::ondemand::parser parser;
  double fields_s = 1e100, skip_s = 1e100;
  std::uint64_t sink = 0;
#endif
  try {
    for (int r = 0; r < repeat; ++r) {
      import_s = std::min(import_s,
                          seconds([&] { events = ts::import::parse_file(path, 1).events.size(); }));
      rapidjson_s = std::min(rapidjson_s, seconds([&] {
                               rapidjson::Reader reader;
                               NullHandler handler;
                               rapidjson::StringStream stream(json.c_str());
                               reader.Parse<kFlags>(stream, handler);
                             }));
      scan_s = std::min(scan_s, seconds([&] { declined = scan_elements(json); }));
#ifdef TS_WITH_SIMDJSON
      fields_s = std::min(fields_s, seconds([&] { sink += simdjson_fields(parser, padded); }));
      skip_s = std::min(skip_s, seconds([&] { sink += simdjson_skip(parser, padded); }));
#endif
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_json_ceiling: %s\n", e.what());
    return 1;
  }
  const double mb = static_cast<double>(json.size()) / 1e6;
  std::printf("%s: %.1f MB, %zu events, best of %d, one core\n", path.c_str(), mb, events, repeat);
  const auto line = [&](const char* what, double s) {
    std::printf("  %-44s %7.0f MB/s  %5.2fx the import's parse\n", what, mb / s, import_s / s);
  };
  line("import's parse (parse_file, 1 thread)", import_s);
  line("RapidJSON SAX, handler doing nothing", rapidjson_s);
  line("EventScan, handler doing nothing", scan_s);
  std::printf("  (EventScan declined %zu elements to RapidJSON)\n", declined);
#ifdef TS_WITH_SIMDJSON
  line("simdjson On-Demand, the import's fields", fields_s);
  line("simdjson On-Demand, every event skipped", skip_s);
  if (sink == 42) std::printf("\n");  // keeps the walks from being optimised away
#else
  std::printf("  (simdjson not found at build time: libsimdjson-dev adds its two lines)\n");
#endif
  return 0;
}
