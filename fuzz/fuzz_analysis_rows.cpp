// libFuzzer harness for the analysis over arbitrary rows: the input is a list of writer calls
// (analysis_rows.hpp: strings, labels, tracks, processes, meta, batches of events with steps,
// bytes and arguments, counter samples, commits) with any ids, times, durations and names. They
// are written with store::Writer (plain or staged) into a trace in a private temporary
// directory, which is then read as `trainscope report` and `export --chrome` read it:
// analysis::analyse (with the analysis options the input picks), the text and JSON reports and
// the Chrome export. The trace is read once finished or, as a killed capture leaves it,
// committed with its events still staged.
//
// Any ids, times and durations go (the fuzz/README.md findings: tracks beyond 16 bits, label ids
// near 2^32, negative durations in staged blocks). The writer may refuse rows with a store::Error.
// What it wrote must open, and be analysed and exported without any error; the JSON report and the
// Chrome trace must parse as JSON (valid UTF-8, no NaN). A crash, a sanitizer report, a hang or a
// huge allocation is a finding too. Built by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and, as
// the regression test over the corpus, by tests/profiler/CMakeLists.txt (any compiler).
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <sstream>
#include <string>
#include <type_traits>
#include <variant>

#include "analysis_rows.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/io/chrome_trace.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "scratch_dir.hpp"

namespace {

[[noreturn]] void finding(const std::string& what) {
  std::fprintf(stderr, "fuzz_analysis_rows: %s\n", what.c_str());
  std::abort();
}

// Output longer than this is not parsed back (a few long names on many events).
constexpr std::size_t kMaxParsedBytes = std::size_t{8} << 20;

void expect_json(const std::string& text, const char* what) {
  if (text.size() > kMaxParsedBytes) return;
  rapidjson::Document d;
  d.Parse<rapidjson::kParseValidateEncodingFlag>(text.c_str(), text.size());
  if (d.HasParseError())
    finding(std::string(what) + " is not JSON: " + rapidjson::GetParseError_En(d.GetParseError()) +
            " at byte " + std::to_string(d.GetErrorOffset()));
}

// Every call of the input, in order, as the writer's callers make them.
void write(ts::store::Writer& w, const ts::fuzz::RowsInput& in) {
  namespace store = ts::store;
  for (const ts::fuzz::Call& call : in.calls) {
    std::visit(
        [&](const auto& c) {
          using T = std::decay_t<decltype(c)>;
          if constexpr (std::is_same_v<T, ts::fuzz::StringCall>) {
            w.put_string(c.id, c.text);
          } else if constexpr (std::is_same_v<T, ts::fuzz::LabelCall>) {
            w.put_label(c.id, c.name, static_cast<ts::trace::Category>(c.category), c.file, c.line);
          } else if constexpr (std::is_same_v<T, ts::fuzz::TrackCall>) {
            w.put_track(c.id, c.name, static_cast<ts::trace::TrackKind>(c.kind), c.os_tid,
                        c.process);
          } else if constexpr (std::is_same_v<T, ts::fuzz::ProcessCall>) {
            w.put_process(c.id, c.name, c.rank, c.pid, c.host);
          } else if constexpr (std::is_same_v<T, ts::fuzz::MetaCall>) {
            w.put_meta(c.key, c.value);
          } else if constexpr (std::is_same_v<T, std::vector<store::EventRow>>) {
            w.append(std::span<const store::EventRow>(c));
          } else if constexpr (std::is_same_v<T, std::vector<store::CounterRow>>) {
            w.append(std::span<const store::CounterRow>(c));
          } else {
            w.commit();
          }
        },
        call);
  }
}

ts::analysis::AnalysisOptions options_of(const ts::fuzz::RowsInput& in) {
  ts::analysis::AnalysisOptions o;
  switch ((in.flags >> 2) & 3) {
    case 1:
      o.skip_warmup = static_cast<int>(in.option % 1024);
      break;
    case 2:
      o.steps = std::pair{static_cast<std::int64_t>(in.option / 256 % 65536),
                          static_cast<std::int64_t>(in.option % 256)};
      break;
    case 3:
      o.threads = static_cast<int>(in.option % 8);
      break;
    default:
      break;
  }
  return o;
}

// What `trainscope report` and `export --chrome` do with the trace.
void read(const std::string& path, const ts::fuzz::RowsInput& in) {
  try {
    const ts::store::Reader reader(path);
    const ts::analysis::Report report = ts::analysis::analyse(reader, options_of(in));
    const std::string text = ts::analysis::to_text(report);
    const std::string sentence = ts::analysis::verdict_sentence(report);
    if (text.empty() || sentence.empty()) finding("an empty report");
    expect_json(ts::analysis::to_json(report), "the JSON report");
    std::ostringstream chrome;
    ts::io::write_chrome_trace(reader, chrome);
    expect_json(chrome.str(), "the Chrome trace");
  } catch (const ts::store::Error& e) {
    finding(std::string("a trace the writer made fails: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const ts::fuzz::RowsInput in = ts::fuzz::RowsDecoder(data, size).decode();
  const std::string& dir = ts::fuzz::scratch_dir("fuzz_analysis_rows");
  const std::string db = dir + "/rows.db";
  ts::store::discard_trace_files(db);
  ts::store::WriterOptions options;
  options.page_size = 4096;
  options.staged = (in.flags & 1) != 0;
  const bool killed = (in.flags & 2) != 0;
  try {
    ts::store::Writer w(db, options);
    write(w, in);
    if (killed) {
      w.commit();
      read(db, in);  // as a killed capture leaves it: committed, staged events not indexed
      return 0;      // (the writer finishes it on the way out)
    }
    w.finish();
  } catch (const ts::store::Error&) {
    return 0;  // rows the writer refuses
  }
  read(db, in);
  return 0;
}
