#include "profiler/import_cache/fingerprint.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <system_error>
#include <thread>
#include <vector>

#include "profiler/store/content_hash.hpp"
#include "profiler/store/worker_threads.hpp"

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

// The regular files below `abs` (itself, when a file) that describe a source: every one but
// the caches trainscope itself keeps there, at most 4 folders deep, in path order. False when
// the folder cannot be listed.
bool source_files(const fs::path& abs, std::vector<fs::path>& files) {
  std::error_code ec;
  if (!fs::is_directory(abs, ec)) {
    files.push_back(abs);
    return true;
  }
  for (auto it = fs::recursive_directory_iterator(abs, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() > 4) it.disable_recursion_pending();
    const fs::path& p = it->path();
    if (!it->is_regular_file(ec)) continue;
    const std::string name = p.filename().string();
    if (name.find(".trainscope.db") != std::string::npos || name.rfind(".trainscope-", 0) == 0)
      continue;
    files.push_back(p);
  }
  if (ec) return false;
  std::sort(files.begin(), files.end(),
            [](const fs::path& a, const fs::path& b) { return a.native() < b.native(); });
  return true;
}

// "PATH\tSIZE\tMODIFIED\tCHANGED\tINODE\n" of a file; empty when it cannot be stat'ed.
std::string state_line(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
  char line[160];
  std::snprintf(line, sizeof line, "\t%lld\t%lld.%09ld\t%lld.%09ld\t%llu\n",
                static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                st.st_mtim.tv_nsec, static_cast<long long>(st.st_ctim.tv_sec), st.st_ctim.tv_nsec,
                static_cast<unsigned long long>(st.st_ino));
  return p.string() + line;
}

}  // namespace

std::string source_fingerprint(const std::string& path, const std::string& options_key) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  std::vector<fs::path> files;
  if (ec || !source_files(abs, files)) return {};
  // Files are hashed on every core, each by the next thread free.
  std::vector<std::string> lines(files.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> unreadable{false};
  const auto work = [&] {
    for (std::size_t i; (i = next.fetch_add(1)) < files.size() && !unreadable;) {
      lines[i] = file_line(files[i]);
      if (lines[i].empty()) unreadable = true;  // a file that cannot be read whole: no reuse
    }
  };
  store::run_on_threads(
      std::max<std::size_t>(
          1, std::min<std::size_t>(std::thread::hardware_concurrency(), files.size())),
      work);
  if (unreadable) return {};
  std::string out =
      "trainscope import " + std::to_string(kImportRevision) + "\t" + options_key + "\n";
  for (const std::string& l : lines) out += l;
  return out;
}

std::string source_state(const std::string& path) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  std::vector<fs::path> files;
  if (ec || !source_files(abs, files)) return {};
  std::string out;
  for (const fs::path& f : files) {
    const std::string line = state_line(f);
    if (line.empty()) return {};
    out += line;
  }
  return out;
}

}  // namespace ts::import
