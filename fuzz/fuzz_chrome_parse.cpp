// libFuzzer harness for the Chrome/Kineto JSON tokenizer alone: the input, written to a file,
// is parsed sequentially and in speculative parallel parts (parse_file.hpp), which must agree.
// No trace is written, so it runs about a hundred times faster than fuzz_chrome_import (which
// also imports into SQLite and reads the trace back): this one reaches millions of inputs.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "split_parse_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string input = [] {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "fuzz_chrome_parse_XXXXXX").string();
    const int fd = ::mkstemp(tmpl.data());
    if (fd < 0) std::abort();
    ::close(fd);
    return tmpl;
  }();
  if (FILE* f = std::fopen(input.c_str(), "wb")) {
    if (size > 0) std::fwrite(data, 1, size, f);
    std::fclose(f);
  } else {
    std::abort();
  }
  ts::fuzz::compare_split_parse(input);
  return 0;
}
