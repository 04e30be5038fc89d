// libFuzzer harness for the Chrome/Kineto JSON importer: writes the input to a temporary file,
// imports it into a temporary trace, then opens the trace with store::Reader and reads every
// event, step, counter and meta row. Nothing may crash, hang or leak; an input that is not a
// trace must be an ImportError. Then it parses the file again in speculative parallel parts of
// 64 bytes (the split a 350 MB file gets at 16 MiB) and aborts unless that gives exactly what the
// sequential parse gave. The import takes the digests of the blocks it reads (64-byte blocks,
// so that a cut or an early end falls inside one): the fingerprint made from them must be the one
// a fresh reading of the file gives. Built by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and,
// as a regression test over the corpus, by tests/profiler/import/CMakeLists.txt (any compiler).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "profiler/import/common/source_digests.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/reader.hpp"
#include "read_imported.hpp"
#include "scratch_dir.hpp"
#include "split_parse_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = ts::fuzz::scratch_dir("fuzz_chrome_import");
  const std::string input = dir + "/input.json";
  const std::string db = dir + "/out.db";
  ts::fuzz::write_input(input, data, size);
  const std::vector<std::string> sources{input};
  ts::import::ImportOptions options;
  options.threads = 2;
  ts::import::SourceDigests digests(64);
  options.digests = &digests;
  bool imported = false;
  try {
    ts::import::import_traces(sources, db, options);
    imported = true;
  } catch (const ts::import::ImportError&) {
    // Not a trace: fine, as long as it is said in one sentence.
  }
  if (imported) {
    try {
      ts::fuzz::read_imported_trace(db);
    } catch (const ts::store::Error& e) {
      // The importer wrote a trace its own reader refuses: a bug.
      std::fprintf(stderr, "reader refused the imported trace: %s\n", e.what());
      std::abort();
    }
  }
  const ts::import::SourceDigests none(64);
  if (ts::import::source_fingerprint(input, "", &digests) !=
      ts::import::source_fingerprint(input, "", &none)) {
    std::fprintf(stderr, "the import's block digests give another fingerprint\n");
    std::abort();
  }
  ts::fuzz::compare_split_parse(input);
  return 0;
}
