// The private temporary directory of a harness process (one per process, under $TMPDIR), for the
// files each input is written to; removed at exit.
#pragma once

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <string>

namespace ts::fuzz {

// `name` prefixes the directory's name ("<name>_XXXXXX"); the first call's name is the one used.
// The string is never destroyed: the exit handler that removes the directory runs after the
// destructors of later statics.
inline const std::string& scratch_dir(const char* name) {
  static const std::string* dir = nullptr;
  if (dir == nullptr) {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / (std::string(name) + "_XXXXXX")).string();
    if (::mkdtemp(tmpl.data()) == nullptr) std::abort();
    dir = new std::string(tmpl);
    std::atexit([] {
      std::error_code ec;
      std::filesystem::remove_all(*dir, ec);
    });
  }
  return *dir;
}

}  // namespace ts::fuzz
