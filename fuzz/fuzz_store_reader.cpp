// libFuzzer harness for the trace reader: the input is a whole trace file (with TS_FUZZ_SPLIT_WAL,
// a 4-byte little-endian length n, then the main file's n bytes, then its -wal file). It is
// written to a private temporary directory and opened with store::Reader; a file it opens is read
// the way the trace commands read it: meta, processes, tracks, labels, every event with its
// arguments, steps, each step's events, correlations, counters, the stored overview, the kept
// analysis (a file of this build's seeds keeps one), then
// analysis::analyse with its text and JSON reports and the Chrome export into a sink; a staged
// trace's snapshot must read as many events, and a refresh of the unchanged file take nothing in.
// Refusing the file, or failing later, with a store::Error is fine; a crash, a sanitizer report,
// another exception, a hang or a huge allocation is a finding. Built by fuzz/CMakeLists.txt (clang,
// -fsanitize=fuzzer) and, as a regression test over the corpus, by tests/profiler/CMakeLists.txt
// (any compiler).
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <limits>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/analysis/window_gaps.hpp"
#include "profiler/io/chrome_trace.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/overview_codec.hpp"
#include "profiler/store/reader.hpp"
#include "scratch_dir.hpp"

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

void write_bytes(const std::string& path, const std::uint8_t* data, std::size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) std::abort();
  if (size > 0 && std::fwrite(data, 1, size, f) != size) std::abort();
  if (std::fclose(f) != 0) std::abort();
}

// Counts what is written and keeps nothing.
class CountingBuf : public std::streambuf {
 public:
  std::uint64_t bytes = 0;

 protected:
  int_type overflow(int_type c) override {
    ++bytes;
    return traits_type::not_eof(c);
  }
  std::streamsize xsputn(const char*, std::streamsize n) override {
    bytes += static_cast<std::uint64_t>(n);
    return n;
  }
};

void read_everything(const ts::store::Reader& r) {
  std::uint64_t sum = static_cast<std::uint64_t>(r.schema_version()) + r.names_cut();
  for (const auto& [key, value] : r.meta()) sum += key.size() + value.size();
  sum += r.meta("clock.origin_ns").value_or("").size();
  for (const ts::store::Process& p : r.processes()) {
    sum += p.name.size() + p.host.size();
    if (r.process(p.id) == nullptr) std::abort();
  }
  for (const ts::store::Track& t : r.tracks()) {
    sum += t.name.size();
    if (r.track(t.id) == nullptr) std::abort();
    if (t.process != ts::store::kNull) sum += r.process(t.process) != nullptr;
  }
  const ts::store::TimeRange range = r.time_range();
  sum += static_cast<std::uint64_t>(r.event_count());
  int correlations = 0;
  r.scan(kMin, kMax, 0, [&](const ts::store::Event& e) {
    sum += static_cast<std::uint64_t>(e.dur_ns) + r.name(e).size() + r.label(e.label).file.size();
    const ts::store::EventArgs a = r.args(e);
    sum += static_cast<std::uint64_t>(a.work_size);
    if (a.correlation != ts::store::kNull && correlations < 16) {
      ++correlations;
      sum += r.events_with_correlation(a.correlation, e.start_ns, ts::store::sat_add(e.start_ns, 1))
                 .size();
    }
  });
  sum += r.events(range.start_ns, ts::store::sat_add(range.end_ns, 1)).size();
  int steps = 0;
  for (const ts::store::Step& s : r.steps()) {
    sum += static_cast<std::uint64_t>(s.dur_ns);
    if (++steps <= 8) sum += r.step_events(s.step).size();
  }
  // The steps one at a time and by range, as the viewer reads them (it holds none).
  std::size_t streamed = 0;
  const bool in_order = r.each_step([&](const ts::store::Step& s) {
    ++streamed;
    sum += static_cast<std::uint64_t>(s.step);
  });
  const std::vector<ts::store::Step> all = r.steps();
  if (in_order && streamed != all.size()) std::abort();  // in order: what steps() keeps
  for (std::size_t i = 0; i < all.size() && i < 8; ++i) {
    const ts::store::Step& s = all[i];
    const std::int64_t end = ts::store::sat_add(s.start_ns, s.dur_ns);
    sum += r.steps_starting_in(s.start_ns, ts::store::sat_add(end, 1)).size();
    if (const auto before = r.last_step_before(s.start_ns)) sum += before->dur_ns > 0;
    sum += r.steps_from(s, 4).size();
    sum += static_cast<std::uint64_t>(r.steps_from_until(s, ts::store::sat_add(end, 1)));
    r.each_numbered_step(s.step, s.step, [&](const ts::store::Step& n) {
      sum += static_cast<std::uint64_t>(n.dur_ns);
      return true;
    });
  }
  if (!all.empty()) {
    const ts::analysis::GapContext context = ts::analysis::gap_context(r);
    const ts::store::Step& mid = all[all.size() / 2];
    sum += ts::analysis::idle_gaps_in(
               r, context, {mid.start_ns, ts::store::sat_add(mid.start_ns, mid.dur_ns)}, {})
               .size();
  }
  for (const ts::store::Track& t : r.tracks()) {
    if (t.kind == ts::trace::TrackKind::counter) sum += r.counter(t.id, kMin, kMax).size();
    sum += r.events(range.start_ns, ts::store::sat_add(range.end_ns, 1), t.id).size();
  }

  if (const auto overview = ts::store::stored_overview(r)) sum += overview->events;
  ts::analysis::AnalysisOptions without_gaps;
  without_gaps.keep_gaps = false;
  if (const auto kept = ts::analysis::kept_report(r, without_gaps))
    sum += kept->per_step.size() + ts::analysis::to_text(*kept).size();

  const ts::analysis::Report report = ts::analysis::analyse(r);
  sum += ts::analysis::to_json(report).size() + ts::analysis::to_text(report).size() +
         ts::analysis::verdict_sentence(report).size();
  CountingBuf buf;
  std::ostream sink(&buf);
  const ts::io::ChromeTraceStats stats = ts::io::write_chrome_trace(r, sink);
  sum += buf.bytes + static_cast<std::uint64_t>(stats.total());
  if (sum == 42) std::fputc(' ', stderr);  // keeps the reads from being optimised away
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string& dir = ts::fuzz::scratch_dir("fuzz_store_reader");
  const std::string db = dir + "/trace.db";
  for (const char* suffix : ts::store::kCompanionSuffixes) std::remove((db + suffix).c_str());
#ifdef TS_FUZZ_SPLIT_WAL
  std::uint32_t n = 0;
  if (size >= 4) std::memcpy(&n, data, 4);  // little-endian hosts only: any split will do
  const std::size_t rest = size >= 4 ? size - 4 : 0;
  const std::size_t main_size = std::min<std::size_t>(n, rest);
  write_bytes(db, data + (size >= 4 ? 4 : size), main_size);
  write_bytes(db + "-wal", data + (size >= 4 ? 4 : size) + main_size, rest - main_size);
#else
  write_bytes(db, data, size);
#endif
  try {
    ts::store::Reader reader(db);
    read_everything(reader);
    // A staged trace: a snapshot reads what the reader read; a refresh of the unchanged file
    // takes nothing in.
    if (const auto snapshot = reader.snapshot_copy()) {
      const ts::store::Reader copy(db, snapshot);
      if (copy.event_count() != reader.event_count()) std::abort();
    }
    if (reader.refresh() == ts::store::Reader::Refresh::appended) std::abort();
  } catch (const ts::store::Error&) {
    // Refused or damaged: fine, as long as it is said in one sentence.
  }
  return 0;
}
