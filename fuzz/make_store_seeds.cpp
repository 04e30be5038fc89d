// Writes the seeds of fuzz_store_reader, fuzz_store_reader_wal, fuzz_event_block,
// fuzz_analysis_rows and fuzz_report_codec into <dir>/store_reader, <dir>/store_reader_wal,
// <dir>/event_block, <dir>/analysis_rows and <dir>/report_codec: small traces (1 KiB pages) of two
// processes with steps, input stages, copies, kernels with arguments, counters and meta, finished
// (also keeping its analysis, under this build's key), and staged as a killed capture leaves them
// (its blocks in the file, or in the -wal file next to it); the blocks themselves; such traces as
// writer calls (analysis_rows.hpp); and a kept report's parts. fuzz/run_store.sh runs it.
//   make_store_seeds <dir>
#include <sqlite3.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "analysis_rows.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/event_block.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "trainscope/meta_keys.hpp"

namespace {

namespace fs = std::filesystem;
using ts::store::CounterRow;
using ts::store::EventRow;
using ts::store::kNull;
using ts::trace::Category;
using ts::trace::TrackKind;

// W: a store::Writer, or a fuzz::RowsEncoder.
template <class W>
void dictionary(W& w) {
  const char* names[] = {"",     "step",          "next batch",       "decode",   "cudaMemcpyAsync",
                         "gemm", "ncclAllReduce", "cudaLaunchKernel", "model.py", "prefetch fill"};
  for (std::uint32_t i = 1; i < std::size(names); ++i) w.put_string(i, names[i]);
  w.put_label(1, 1, Category::step);
  w.put_label(2, 2, Category::input_wait, 8, 42);
  w.put_label(3, 3, Category::input_decode);
  w.put_label(4, 4, Category::h2d);
  w.put_label(5, 5, Category::kernel);
  w.put_label(6, 6, Category::collective);
  w.put_label(7, 7, Category::launch);
  w.put_process(1, "rank 0", 0, 100, "node-a");
  w.put_process(2, "rank 1", 1, 101, "node-b");
  for (std::uint32_t p = 0; p < 2; ++p) {
    const std::uint32_t t = 1 + 4 * p;
    w.put_track(t, "trainer", TrackKind::thread, 4242 + p, p + 1);
    w.put_track(t + 1, "worker", TrackKind::thread, 5252 + p, p + 1);
    w.put_track(t + 2, "gpu stream 7", TrackKind::device_queue, kNull, p + 1);
    w.put_track(t + 3, "prefetch fill", TrackKind::counter, kNull, p + 1);
  }
  w.put_meta("clock.origin_ns", "1000000000");
  w.put_meta("model", "resnet");
  w.put_meta("batch", "32");
  w.put_meta("pipeline.parallel", "2");
  w.put_meta("host.cores", "8");
}

// Six 1 ms steps per process from t = 1 s.
std::pair<std::vector<EventRow>, std::vector<CounterRow>> step_rows() {
  std::vector<EventRow> rows;
  std::vector<CounterRow> counters;
  for (std::uint32_t p = 0; p < 2; ++p) {
    const std::uint32_t t = 1 + 4 * p;
    for (std::int64_t s = 0; s < 6; ++s) {
      const std::int64_t base = 1'000'000'000 + s * 1'000'000 + p * 1000;
      rows.push_back({base, 1'000'000, t, 1, s});
      rows.push_back({base + 1000, 200'000, t, 2, s});
      rows.push_back({base + 2000, 150'000, t + 1, 3, s});
      rows.push_back({base + 210'000, 40'000, t, 7, s, kNull, kNull, s * 10 + p});
      rows.push_back({base + 220'000, 30'000, t + 2, 4, s, 4 << 20});
      rows.push_back({base + 260'000, 500'000, t + 2, 5, s, kNull, 256, s * 10 + p});
      rows.push_back({base + 800'000, 100'000, t + 2, 6, s, 1 << 20});
      counters.push_back({t + 3, base + 5000, static_cast<double>(s % 3)});
    }
  }
  return {rows, counters};
}

template <class W>
void events(W& w) {
  const auto [rows, counters] = step_rows();
  w.append(std::span<const EventRow>(rows));
  w.append(std::span<const CounterRow>(counters));
}

std::string bytes_of(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void put(const fs::path& p, const std::string& bytes) {
  std::ofstream(p, std::ios::binary) << bytes;
}

// The seeds of fuzz_analysis_rows (analysis_rows.hpp): the same traces as writer calls, with
// the counters and meta the analysis reads besides; read finished, staged, and committed but
// not finished; with each kind of analysis options; with the tracks in no process; and with a
// name longer than the reader's cap.
void rows_seeds(const fs::path& dir) {
  auto trace = [](std::uint8_t flags, std::uint64_t option, bool processes = true) {
    ts::fuzz::RowsEncoder e(flags, option);
    dictionary(e);
    e.put_track(9, "prefetch buffer fill", TrackKind::counter, kNull, 1);
    e.put_track(10, "host CPU (cores busy)", TrackKind::counter, kNull, 1);
    if (!processes)
      for (std::uint32_t t = 1; t <= 10; ++t) e.put_track(t, "thread", TrackKind::thread);
    e.put_meta(ts::meta_key::kEngineBatch, "32");
    e.put_meta(ts::meta_key::kPipelineCache, "memory");
    e.put_meta(ts::meta_key::kFitEpochFirstSteps, "0,3");
    events(e);
    e.commit();
    std::vector<CounterRow> counters;
    for (std::int64_t i = 0; i < 12; ++i) {
      counters.push_back({9, 1'000'000'000 + i * 500'000, static_cast<double>(i % 4)});
      counters.push_back({10, 1'000'000'000 + i * 500'000, 1.5 + static_cast<double>(i % 3)});
    }
    e.append(std::span<const CounterRow>(counters));
    return e.bytes();
  };
  put(dir / "seed_finished", trace(0, 0));
  put(dir / "seed_staged", trace(1, 0));
  put(dir / "seed_killed_plain", trace(2, 0));
  put(dir / "seed_killed_staged", trace(3, 0));
  put(dir / "seed_skip_warmup_2", trace(1 << 2, 2));
  put(dir / "seed_steps_1_to_4", trace(2 << 2, 1 * 256 + 4));
  put(dir / "seed_threads_3", trace(3 << 2, 3));
  put(dir / "seed_no_processes", trace(0, 0, false));
  // Then string 1 ("step") becomes "é" (2 bytes) repeated 35 000 times: 70 000 bytes.
  put(dir / "seed_long_name", trace(0, 0) + std::string("\x00\x01\x00\xb8\x91\x02\x02\xc3\xa9", 9));
}

// The input of fuzz_store_reader_wal: the main file's length (4 bytes, little-endian), the main
// file, the -wal file.
std::string split(const std::string& main_file, const std::string& log) {
  const auto n = static_cast<std::uint32_t>(main_file.size());
  const char len[4] = {static_cast<char>(n), static_cast<char>(n >> 8), static_cast<char>(n >> 16),
                       static_cast<char>(n >> 24)};
  return std::string(len, 4) + main_file + log;
}

// VACUUM INTO from a second connection: the committed state of a trace still open for writing,
// as one file.
void snapshot(const fs::path& from, const fs::path& to) {
  sqlite3* db = nullptr;
  sqlite3_open_v2(from.c_str(), &db, SQLITE_OPEN_READONLY, nullptr);
  fs::remove(to);
  const std::string sql = "VACUUM INTO '" + to.string() + "'";
  if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr) != SQLITE_OK)
    std::fprintf(stderr, "make_store_seeds: %s\n", sqlite3_errmsg(db));
  sqlite3_close(db);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: make_store_seeds <dir>\n");
    return 2;
  }
  const fs::path dir = argv[1];
  const fs::path reader = dir / "store_reader", wal = dir / "store_reader_wal",
                 blocks = dir / "event_block", rows = dir / "analysis_rows",
                 codec = dir / "report_codec", scratch = dir / "scratch";
  for (const fs::path& d : {reader, wal, blocks, rows, codec, scratch}) fs::create_directories(d);
  ts::store::WriterOptions small;
  small.page_size = 1024;
  small.cache_mib = 1;

  {  // finished
    ts::store::Writer w((scratch / "finished.db").string(), small);
    dictionary(w);
    events(w);
    w.finish();
  }
  fs::copy_file(scratch / "finished.db", reader / "seed_finished",
                fs::copy_options::overwrite_existing);
  {  // finished, keeping its analysis (made by this build, so the harness reads it back)
    fs::copy_file(scratch / "finished.db", scratch / "kept.db",
                  fs::copy_options::overwrite_existing);
    ts::analysis::AnalysisOptions options;
    options.keep_gaps = false;
    ts::analysis::Report report;
    {
      const ts::store::Reader r((scratch / "kept.db").string());
      report = ts::analysis::analyse(r, options);
      if (!ts::analysis::keep_report(r, report, options))
        std::fprintf(stderr, "make_store_seeds: cannot keep the analysis\n");
    }
    fs::copy_file(scratch / "kept.db", reader / "seed_finished_kept",
                  fs::copy_options::overwrite_existing);
    // The report's own parts, for fuzz_report_codec: [4-byte length][part] each.
    std::string framed;
    for (const std::string& part : ts::analysis::encode_report(report)) {
      const auto n = static_cast<std::uint32_t>(part.size());
      framed += std::string{static_cast<char>(n), static_cast<char>(n >> 8),
                            static_cast<char>(n >> 16), static_cast<char>(n >> 24)};
      framed += part;
    }
    put(codec / "seed_finished", framed);
  }
  {  // killed while capturing: blocks committed in the -wal file
    ts::store::WriterOptions staged = small;
    staged.staged = true;
    ts::store::Writer w((scratch / "staged.db").string(), staged);
    dictionary(w);
    events(w);
    w.commit();
    put(wal / "seed_staged_with_wal",
        split(bytes_of(scratch / "staged.db"), bytes_of(scratch / "staged.db-wal")));
    snapshot(scratch / "staged.db", scratch / "staged_snapshot.db");
    fs::copy_file(scratch / "staged_snapshot.db", reader / "seed_staged",
                  fs::copy_options::overwrite_existing);
    put(wal / "seed_finished", split(bytes_of(scratch / "finished.db"), ""));
  }
  {
    ts::store::BlockEncoder e;
    std::vector<EventRow> rows{{1'000'000'000, 1'000'000, 1, 1, 0},
                               {1'000'001'000, 200'000, 1, 2, 0, 4096, 64, 7},
                               {999'000'000, 5, 3, 5, -1, kNull, kNull, -9},
                               {-5, 0, 0xFFFFFFFFu, 0, kNull, 1, kNull, kNull}};
    std::vector<CounterRow> counters{{4, 1'000'000'500, 2.5}, {4, -1, -0.0}};
    e.append(std::span<const EventRow>(rows));
    e.append(std::span<const CounterRow>(counters));
    e.append(std::span<const EventRow>(rows).first(2));
    put(blocks / "seed_mixed", std::string(e.bytes().begin(), e.bytes().end()));
    e.clear();
    put(blocks / "seed_empty", std::string(e.bytes().begin(), e.bytes().end()));
  }
  rows_seeds(rows);
  fs::remove_all(scratch);
  return 0;
}
