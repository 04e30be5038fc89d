// libFuzzer harness for the merge of a distributed job's parts (profiler/store/job_merge.hpp,
// merge.hpp): the input is two part files, [4-byte little-endian length][rank 0's part][rank 1's
// part], written as JOB.rank0.part and JOB.rank1.part and merged with merge_job, as `trainscope
// merge` does; a merged trace is opened and analysed. A part may claim any rank, world size,
// clock offset or job id, or be no trace at all: a store::Error is fine, and so are warnings;
// a crash, a sanitizer report, a hang or an allocation past -rss_limit_mb is a finding.
// Seeds: the store reader's traces (make_store_seeds), paired by fuzz/run_store.sh --merge.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>

#include "fuzz/scratch_dir.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/job_merge.hpp"
#include "profiler/store/reader.hpp"

namespace {

namespace fs = std::filesystem;

void write(const std::string& path, const char* data, std::size_t size) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f.write(data, static_cast<std::streamsize>(size));
  if (!f) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  std::uint32_t first = 0;
  std::memcpy(&first, data, 4);
  const char* p = reinterpret_cast<const char*>(data) + 4;
  const std::size_t left = size - 4, take = std::min<std::size_t>(first, left);
  const std::string job = ts::fuzz::scratch_dir("fuzz_job_merge") + "/job.db";
  for (const std::string& f : {job, ts::store::part_path(job, 0), ts::store::part_path(job, 1)})
    for (const char* suffix : {"", "-journal", "-wal", "-shm"}) fs::remove(f + suffix);
  write(ts::store::part_path(job, 0), p, take);
  write(ts::store::part_path(job, 1), p + take, left - take);
  try {
    const ts::store::JobMerge merged = ts::store::merge_job(ts::store::find_parts(job), job);
    const ts::store::Reader reader(job);
    ts::analysis::AnalysisOptions o;
    o.threads = 1;
    (void)ts::analysis::analyse(reader, o);
    (void)merged;
  } catch (const ts::store::Error&) {
  }
  return 0;
}
