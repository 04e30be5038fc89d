#include "profiler/import_cache/trace_source.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>

#include "profiler/import_cache/cache_dir.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::import {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFingerprintKey = "import.fingerprint";

std::string options_key(const ImportOptions& o) {
  std::string key =
      o.step_marker.empty() ? std::string("default steps") : "step marker " + o.step_marker;
  if (!o.tf_run.empty()) key += ", run " + o.tf_run;
  return key;
}

// The fingerprint an earlier import stored, or "" when `cache` is missing or not a trainscope
// trace (or not readable).
std::string stored_fingerprint(const std::string& cache) {
  if (sniff(cache) != SourceKind::trainscope_trace) return {};
  try {
    store::Db db;
    db.open(cache, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, "cannot read trace");
    store::Stmt st(db, "SELECT value FROM meta WHERE key = ?", "cannot read trace");
    st.bind(1, kFingerprintKey);
    return st.step() ? st.col_text(0) : std::string();
  } catch (const store::Error&) {
    return {};
  }
}

bool writable_dir(const fs::path& dir) {
  return ::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0;
}

// Where the cache of `path` goes: beside it when possible, else in the user's cache directory.
std::string cache_location(const std::string& path, const OpenOptions& o) {
  const std::string beside = cache_path_beside(path);
  const fs::path dir = fs::path(beside).parent_path();
  std::error_code ec;
  const bool taken = fs::exists(beside, ec) && sniff(beside) != SourceKind::trainscope_trace;
  if (writable_dir(dir) && !taken) return beside;
  const std::string cache_dir = user_cache_dir(o.cache_dir);
  fs::create_directories(cache_dir, ec);
  if (!writable_dir(cache_dir))
    throw ImportError("cannot keep the import of " + path + ": neither " + dir.string() +
                      " nor the cache directory " + cache_dir + " is writable");
  const fs::path abs = fs::absolute(path, ec);
  return cache_dir + "/" + fs::path(path).filename().string() + "-" + path_hash(abs.string()) +
         ".trainscope.db";
}

void store_fingerprint(const std::string& trace, const std::string& fingerprint) {
  try {
    store::Db db;
    db.open(trace, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, "cannot write trace");
    store::Stmt st(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)", "cannot write trace");
    st.bind(1, kFingerprintKey);
    st.bind(2, fingerprint);
    st.run();
  } catch (const store::Error& e) {
    throw ImportError(e.what());
  }
}

}  // namespace

std::string cache_path_beside(const std::string& path) {
  fs::path p(path);
  std::error_code ec;
  if (fs::is_directory(p, ec)) {
    while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "dir/" -> "dir"
    const std::string name = p.filename().string();
    return (p / ((name.empty() || name == "." || name == ".." ? std::string("trace") : name) +
                 ".trainscope.db"))
        .string();
  }
  return path + ".trainscope.db";
}

OpenedTrace open_trace_source(const std::string& path, const OpenOptions& options) {
  OpenedTrace out;
  out.source = path;
  out.path = path;
  const SourceKind kind = sniff(path);
  if (kind == SourceKind::unknown)  // say what it is, not "not an SQLite database"
    if (const std::string why = why_not_a_trace(path); !why.empty()) throw ImportError(why);
  if (kind == SourceKind::trainscope_trace || kind == SourceKind::unknown) return out;

  const std::string fingerprint = source_fingerprint(path, options_key(options.import));
  const std::string cache = cache_location(path, options);
  if (!fingerprint.empty() && stored_fingerprint(cache) == fingerprint) {
    out.path = cache;
    out.reused = true;
    return out;
  }
  const std::string temp = cache + ".tmp-" + std::to_string(::getpid()) + "-" +
                           path_hash(std::to_string(std::random_device{}()));
  const std::string sources[] = {path};
  try {
    out.stats = import_traces(sources, temp, options.import);
    store_fingerprint(temp, fingerprint);
  } catch (...) {
    std::remove(temp.c_str());
    std::remove((temp + ".partial").c_str());
    throw;
  }
  if (std::rename(temp.c_str(), cache.c_str()) != 0) {
    const int err = errno;
    std::remove(temp.c_str());
    throw ImportError("cannot keep the import of " + path + " as " + cache + ": " +
                      std::strerror(err));
  }
  out.path = cache;
  out.imported = true;
  return out;
}

}  // namespace ts::import
