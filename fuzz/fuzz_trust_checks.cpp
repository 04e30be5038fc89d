// libFuzzer harness for the checks that decide whether stored data is trusted: any bytes as a
// trace file go through store::events_checksum (twice: the same answer), then, when the file
// opens, through the kept analysis's seal check (kept_report.hpp: analyse_or_reuse); and the
// same bytes, put where the import cache of a small fixed PyTorch trace goes
// (SOURCE.trainscope.db), through open_trace_source. A kept analysis or a cache that is used must
// give the figures the events or the source give: a reused report's JSON equals a fresh
// analysis's, a reused cache's analysis equals that of a fresh import. A crash, a sanitizer
// report, a hang, a huge allocation or a broken property is a finding.
// Seeds: the store reader's (make_store_seeds writes a trace keeping its analysis) and, with
// TS_FUZZ_SEED_DIR set, the genuine cache of the fixed source written there on start.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/scratch_dir.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import_cache/trace_source.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/events_checksum.hpp"
#include "profiler/store/reader.hpp"

namespace {

namespace fs = std::filesystem;
namespace a = ts::analysis;

// Two steps on a CPU thread with a kernel each on a device stream.
constexpr const char* kSource = R"({"schemaVersion":1,"traceEvents":[
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#1","pid":1,"tid":1,"ts":1000,"dur":100},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1010,"dur":50},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1030,"dur":40,"args":{"correlation":5}},
{"ph":"X","cat":"user_annotation","name":"ProfilerStep#2","pid":1,"tid":1,"ts":1100,"dur":120},
{"ph":"X","cat":"cpu_op","name":"aten::mm","pid":1,"tid":1,"ts":1110,"dur":60},
{"ph":"X","cat":"kernel","name":"gemm","pid":0,"tid":7,"ts":1140,"dur":70,"args":{"correlation":6}}
]})";

void write(const std::string& path, const void* data, std::size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(static_cast<const char*>(data), static_cast<std::streamsize>(size));
  if (!f) std::abort();
}

a::AnalysisOptions options() {
  a::AnalysisOptions o;
  o.keep_gaps = false;
  o.threads = 1;
  return o;
}

std::string analysed_json(const std::string& trace) {
  const ts::store::Reader reader(trace);
  return a::to_json(a::analyse(reader, options()));
}

struct Fixture {
  std::string dir = ts::fuzz::scratch_dir("fuzz_trust_checks");
  std::string source = dir + "/source.json";
  std::string cache = ts::import::cache_path_beside(source);
  std::string expected;  // the fresh import's analysis
  Fixture() {
    write(source, kSource, std::strlen(kSource));
    ts::import::OpenOptions o;
    o.cache_dir = dir + "/cache";
    const ts::import::OpenedTrace t = ts::import::open_trace_source(source, o);
    if (!t.imported) std::abort();
    expected = analysed_json(t.path);
    if (const char* seeds = std::getenv("TS_FUZZ_SEED_DIR"))
      fs::copy_file(t.path, std::string(seeds) + "/genuine_cache.db",
                    fs::copy_options::overwrite_existing);
  }
};

const Fixture& fixture() {
  static const Fixture* f = new Fixture();  // never destroyed, as the scratch directory's name
  return *f;
}

void check_kept_analysis(const std::string& path) {
  const auto first = ts::store::events_checksum(path);
  const auto again = ts::store::events_checksum(path);
  if (first.has_value() != again.has_value()) std::abort();
  if (first && (first->checksum != again->checksum || first->bytes != again->bytes)) std::abort();
  try {
    const ts::store::Reader reader(path);
    a::KeptUse use;
    // Never kept anew (a huge threshold): only what the file holds is checked.
    const a::Report report = a::analyse_or_reuse(reader, options(), INT64_MAX, &use);
    if (use.outcome == a::KeptUse::Outcome::reused &&
        a::to_json(report) != a::to_json(a::analyse(reader, options())))
      std::abort();  // a kept report used that is not what the events give
    (void)use.line();
  } catch (const ts::store::Error&) {
  }
}

void check_import_cache(const std::uint8_t* data, std::size_t size) {
  const Fixture& f = fixture();
  write(f.cache, data, size);
  ts::import::OpenOptions o;
  o.cache_dir = f.dir + "/cache";
  try {
    const ts::import::OpenedTrace t = ts::import::open_trace_source(f.source, o);
    if (analysed_json(t.path) != f.expected) std::abort();  // reused or not: the source's figures
  } catch (const ts::import::ImportError&) {
  } catch (const ts::store::Error&) {
  }
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  (void)fixture();
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = fixture().dir + "/input.db";
  for (const char* suffix : {"", "-journal", "-wal", "-shm"}) fs::remove(path + suffix);
  write(path, data, size);
  check_kept_analysis(path);
  check_import_cache(data, size);
  return 0;
}
