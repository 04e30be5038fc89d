#include "profiler/import_cache/fingerprint.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <system_error>
#include <thread>
#include <vector>

#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/import.hpp"
#include "profiler/store/content_hash.hpp"
#include "profiler/store/worker_threads.hpp"

namespace ts::import {

namespace fs = std::filesystem;

namespace {

// Bumped whenever an import of the same file would give different rows (a mapping change), so
// caches made by an older trainscope are made again.
// 2: the fingerprint holds a hash of each file's bytes instead of its modification time.
// 3: Kineto imports write the kernels' achieved occupancy (meta kernels.achieved_occupancy_pct).
// 4: a file's hash is the hash of its blocks' hashes (source_digests.hpp).
constexpr int kImportRevision = 4;

// Blocks of a file hashed by one thread at a time: a large file is hashed on every core.
constexpr std::size_t kBlocksPerWork = 8;

// A file of the source: what identifies it when listed, and its blocks' digests.
struct SourceFile {
  fs::path path;
  FileIdentity identity;
  std::vector<std::uint64_t> digests;
};

// Blocks [first, end) of a file, to be read and hashed.
struct Work {
  std::size_t file;
  std::size_t first, end;
};

// Hashes `w`'s blocks into their file's digests, reading them into `buffer`; false when the file
// cannot be read whole or is no longer the one listed.
bool hash_blocks(const Work& w, std::vector<SourceFile>& files, std::uint64_t block_bytes,
                 std::vector<char>& buffer) {
  SourceFile& f = files[w.file];
  try {
    const FileHandle file(f.path.string());
    if (file.identity() != f.identity) return false;
    for (std::size_t b = w.first; b < w.end; ++b) {
      const std::uint64_t begin = b * block_bytes;
      const auto n = static_cast<std::size_t>(std::min(block_bytes, f.identity.size - begin));
      buffer.resize(std::max(buffer.size(), n));
      if (file.read_at(begin, buffer.data(), n) != n) return false;  // it shrank meanwhile
      f.digests[b] = store::content_hash(buffer.data(), n);
    }
    return true;
  } catch (const ImportError&) {  // it cannot be opened or read
    return false;
  }
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

std::string source_fingerprint(const std::string& path, const std::string& options_key,
                               const SourceDigests* taken) {
  std::error_code ec;
  const fs::path abs = fs::absolute(path, ec);
  std::vector<fs::path> paths;
  if (ec || !source_files(abs, paths)) return {};
  const std::uint64_t block_bytes = taken != nullptr ? taken->block_bytes() : kSourceBlockBytes;
  // The blocks the import took are used as they are; the others are read, on every core.
  std::vector<SourceFile> files(paths.size());
  std::vector<Work> work;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    struct stat st {};
    if (::stat(paths[i].c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    SourceFile& f = files[i];
    f.path = std::move(paths[i]);
    f.identity = {st.st_dev, st.st_ino, static_cast<std::uint64_t>(st.st_size)};
    f.digests.resize(static_cast<std::size_t>((f.identity.size + block_bytes - 1) / block_bytes));
    const FileBlocks* known = taken != nullptr ? taken->find(f.identity) : nullptr;
    for (std::size_t b = 0; b < f.digests.size(); ++b) {
      const std::optional<std::uint64_t> d = known != nullptr ? known->get(b) : std::nullopt;
      if (d) {
        f.digests[b] = *d;
      } else if (!work.empty() && work.back().file == i && work.back().end == b &&
                 work.back().end - work.back().first < kBlocksPerWork) {
        ++work.back().end;
      } else {
        work.push_back({i, b, b + 1});
      }
    }
  }
  std::atomic<std::size_t> next{0};
  std::atomic<bool> unreadable{false};
  const auto hash_work = [&] {
    std::vector<char> buffer;
    for (std::size_t i; (i = next.fetch_add(1)) < work.size() && !unreadable;)
      if (!hash_blocks(work[i], files, block_bytes, buffer))
        unreadable = true;  // a file that cannot be read whole: no reuse
  };
  if (!work.empty())
    store::run_on_threads(
        std::max<std::size_t>(
            1, std::min<std::size_t>(std::thread::hardware_concurrency(), work.size())),
        hash_work);
  if (unreadable) return {};
  std::string out =
      "trainscope import " + std::to_string(kImportRevision) + "\t" + options_key + "\n";
  for (const SourceFile& f : files) {
    char digest[17];
    std::snprintf(digest, sizeof digest, "%016llx",
                  static_cast<unsigned long long>(file_digest(f.digests)));
    out += f.path.string() + "\t" + std::to_string(f.identity.size) + "\t" + digest + "\n";
  }
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
