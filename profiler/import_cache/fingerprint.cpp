#include "profiler/import_cache/fingerprint.hpp"

#include <algorithm>
#include <filesystem>
#include <system_error>
#include <vector>

namespace ts::import {

namespace fs = std::filesystem;

namespace {

// Bumped whenever an import of the same file would give different rows (a mapping change), so
// caches made by an older trainscope are made again.
constexpr int kImportRevision = 1;

std::string file_line(const fs::path& p) {
  std::error_code ec;
  const auto size = fs::file_size(p, ec);
  if (ec) return {};
  const auto time = fs::last_write_time(p, ec);
  if (ec) return {};
  return p.string() + "\t" + std::to_string(size) + "\t" +
         std::to_string(time.time_since_epoch().count()) + "\n";
}

}  // namespace

std::string source_fingerprint(const std::string& path, const std::string& options_key) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  if (ec) return {};
  std::string out =
      "trainscope import " + std::to_string(kImportRevision) + "\t" + options_key + "\n";
  if (!fs::is_directory(abs, ec)) {
    const std::string line = file_line(abs);
    return line.empty() ? std::string() : out + line;
  }
  // Every regular file below the directory, except the caches trainscope itself keeps there.
  std::vector<std::string> lines;
  for (auto it = fs::recursive_directory_iterator(abs, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    const fs::path& p = it->path();
    if (!it->is_regular_file(ec)) continue;
    const std::string name = p.filename().string();
    if (name.find(".trainscope.db") != std::string::npos || name.rfind(".trainscope-", 0) == 0)
      continue;
    lines.push_back(file_line(p));
  }
  if (ec) return {};
  std::sort(lines.begin(), lines.end());
  for (const std::string& l : lines) out += l;
  return out;
}

}  // namespace ts::import
