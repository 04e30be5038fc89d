#include "profiler/import_cache/fingerprint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <vector>

#include "profiler/store/content_hash.hpp"

namespace ts::import {

namespace fs = std::filesystem;

namespace {

// Bumped whenever an import of the same file would give different rows (a mapping change), so
// caches made by an older trainscope are made again.
// 2: the fingerprint holds a hash of each file's bytes instead of its modification time.
// 3: Kineto imports write the kernels' achieved occupancy (meta kernels.achieved_occupancy_pct).
constexpr int kImportRevision = 3;

// "PATH\tSIZE\tHASH\n" of a regular file; empty when it cannot be read whole.
std::string file_line(const fs::path& p) {
  const int fd = ::open(p.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return {};
  struct stat st {};
  std::string line;
  if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
    store::ContentHash hash;
    std::vector<char> buf(std::size_t{1} << 20);
    std::uint64_t size = 0;
    ssize_t r;
    while ((r = ::read(fd, buf.data(), buf.size())) > 0) {
      hash.update(buf.data(), static_cast<std::size_t>(r));
      size += static_cast<std::uint64_t>(r);
    }
    if (r == 0) {
      char digest[17];
      std::snprintf(digest, sizeof digest, "%016llx",
                    static_cast<unsigned long long>(hash.digest()));
      line = p.string() + "\t" + std::to_string(size) + "\t" + digest + "\n";
    }
  }
  ::close(fd);
  return line;
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
    std::string line = file_line(p);
    if (line.empty()) return {};  // a file that cannot be read whole: never a reuse
    lines.push_back(std::move(line));
  }
  if (ec) return {};
  std::sort(lines.begin(), lines.end());
  for (const std::string& l : lines) out += l;
  return out;
}

}  // namespace ts::import
