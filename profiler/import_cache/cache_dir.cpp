#include "profiler/import_cache/cache_dir.hpp"

#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace ts::import {

std::string user_cache_dir(const std::string& override_dir) {
  if (!override_dir.empty()) return override_dir;
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return std::string(xdg) + "/trainscope";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0')
    return std::string(home) + "/.cache/trainscope";
  return "/tmp/trainscope-cache-" + std::to_string(::getuid());
}

std::string path_hash(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(h));
  return out;
}

}  // namespace ts::import
