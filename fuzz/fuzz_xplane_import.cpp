// libFuzzer harness for the importer of TensorFlow profiles: writes the input to a temporary
// <host>.xplane.pb file, imports it into a temporary trace, then opens the trace with
// store::Reader and reads every event, step, counter and meta row. Nothing may crash, hang or
// leak; an input that is not a profile must be an ImportError. And the importer, which scans the
// XSpace's top level itself and parses one plane at a time, may accept only what protobuf's own
// parse of the whole XSpace accepts. Built by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and,
// as a regression test over the corpus, by tests/profiler/import/CMakeLists.txt (any compiler).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "profiler/import/import.hpp"
#include "profiler/import/xplane/xplane.pb.h"
#include "profiler/import/xplane/xplane_file.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/reader.hpp"
#include "read_imported.hpp"
#include "scratch_dir.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string dir = ts::fuzz::scratch_dir("fuzz_xplane_import");
  const std::string input = dir + "/host.xplane.pb";
  const std::string db = dir + "/out.db";
  ts::fuzz::write_input(input, data, size);
  // Most mutations are no XSpace: refused by the top-level scan, before the trace is created.
  // Checking that first spares the SQLite file of each (the harness runs several times faster).
  try {
    const ts::import::XSpaceFile file(input);
  } catch (const ts::import::ImportError&) {
    return 0;
  }
  const std::vector<std::string> sources{input};
  ts::import::ImportOptions options;
  options.threads = 2;
  bool imported = false;
  try {
    ts::import::import_traces(sources, db, options);
    imported = true;
  } catch (const ts::import::ImportError&) {
    // Not a profile: fine, as long as it is said in one sentence.
  }
  if (!imported) return 0;
  // Unless gzip: the importer inflates those first.
  const bool gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  tensorflow::profiler::XSpace space;
  if (!gzip && !space.ParseFromArray(data, static_cast<int>(size))) {
    std::fprintf(stderr, "imported bytes that protobuf does not parse as an XSpace\n");
    std::abort();
  }
  try {
    ts::fuzz::read_imported_trace(db);
  } catch (const ts::store::Error& e) {
    // The importer wrote a trace its own reader refuses: a bug.
    std::fprintf(stderr, "reader refused the imported trace: %s\n", e.what());
    std::abort();
  }
  return 0;
}
