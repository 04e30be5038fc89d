#include "profiler/import_cache/trace_source.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <random>
#include <system_error>
#include <vector>

#include "profiler/import_cache/cache_dir.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/store/content_hash.hpp"
#include "profiler/store/events_checksum.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::import {

namespace fs = std::filesystem;

namespace {

constexpr const char* kFingerprintKey = "import.fingerprint";
constexpr const char* kSealKey = "import.seal";

// The seal binding a cache to its fingerprint: a hash of the fingerprint, the checksum of the
// cache's stored tables but meta (profiler/store/events_checksum.hpp) and its meta rows but the
// seal. A trace planted as the cache, or a cache with the fingerprint row of another copied in,
// does not match it. Empty when the cache's pages cannot be checked. Read inside a transaction
// of `db` that wrote nothing yet.
std::string cache_seal(const store::Db& db, const std::string& fingerprint) {
  const std::optional<store::EventsChecksum> tables = store::events_checksum(db, {"meta"});
  if (!tables) return {};
  store::ContentHash hash(tables->checksum);
  auto add = [&hash](const std::string& s) {
    hash.update_u64(s.size());
    hash.update(s);
  };
  add(fingerprint);
  store::Stmt meta(db, "SELECT key, value FROM meta WHERE key <> ? ORDER BY key",
                   "cannot read trace");
  meta.bind(1, kSealKey);
  while (meta.step()) {
    add(meta.col_text(0));
    add(meta.col_text(1));
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash.digest()));
  return out;
}

// Opens the trace at `path` as a reader of a file that may be hostile.
void open_guarded(store::Db& db, const std::string& path, int flags, std::string_view what) {
  db.open(path, flags | SQLITE_OPEN_NOMUTEX, what);
  sqlite3_busy_timeout(db.get(), 2000);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_DEFENSIVE, 1, nullptr);
  sqlite3_db_config(db.get(), SQLITE_DBCONFIG_ENABLE_TRIGGER, 0, nullptr);
  db.exec("PRAGMA trusted_schema=OFF", what);
}

std::string options_key(const ImportOptions& o) {
  std::string key =
      o.step_marker.empty() ? std::string("default steps") : "step marker " + o.step_marker;
  if (!o.tf_run.empty()) key += ", run " + o.tf_run;
  return key;
}

// Whether `cache` is an import of the source whose fingerprint is `fingerprint`: it stores that
// fingerprint and its seal holds. False when it is missing, not a trainscope trace or not
// readable. `stored`: the fingerprint it stores ("" for none).
bool made_from(const std::string& cache, const std::string& fingerprint, std::string& stored) {
  if (sniff(cache) != SourceKind::trainscope_trace) return false;
  try {
    store::Db db;
    open_guarded(db, cache, SQLITE_OPEN_READONLY, "cannot read trace");
    // The shared lock, held to the end: no commit to the cache while its pages are read.
    db.exec("BEGIN", "cannot read trace");
    store::Stmt st(db, "SELECT key, value FROM meta WHERE key IN (?, ?)", "cannot read trace");
    st.bind(1, kFingerprintKey);
    st.bind(2, kSealKey);
    std::string seal;
    while (st.step()) (st.col_text(0) == kFingerprintKey ? stored : seal) = st.col_text(1);
    st.reset();
    return stored == fingerprint && !seal.empty() && cache_seal(db, fingerprint) == seal;
  } catch (const store::Error&) {
    return false;
  }
}

// Why a cache that stores the fingerprint `stored` is not the import of the source whose
// fingerprint is `now`, as far as their first lines ("trainscope import REVISION\tOPTIONS") tell.
OpenedTrace::Why why_replaced(std::string_view stored, std::string_view now) {
  const auto head = [](std::string_view f) { return f.substr(0, f.find('\n')); };
  const auto revision = [](std::string_view h) { return h.substr(0, h.find('\t')); };
  constexpr std::string_view kImport = "trainscope import ";
  if (!stored.starts_with(kImport) || head(stored) == head(now))
    return OpenedTrace::Why::source_or_file;
  return revision(head(stored)) != revision(head(now)) ? OpenedTrace::Why::other_revision
                                                       : OpenedTrace::Why::other_options;
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
  if (!writable_dir(cache_dir)) return {};  // neither: a temporary file (temporary_location)
  const fs::path abs = fs::absolute(path, ec);
  return cache_dir + "/" + fs::path(path).filename().string() + "-" + path_hash(abs.string()) +
         ".trainscope.db";
}

// A file in a private temporary folder for an import that no folder can keep, removed with
// its folder when the process exits. Throws ImportError when even that cannot be made.
std::string temporary_location(const std::string& path) {
  static std::vector<std::string>* folders = nullptr;  // never destroyed: read at exit
  std::error_code ec;
  std::string tmpl = (fs::temp_directory_path(ec) / "trainscope-import-XXXXXX").string();
  if (ec || ::mkdtemp(tmpl.data()) == nullptr)
    throw ImportError("cannot import " + path + ": neither its folder, the cache directory nor " +
                      "the temporary folder can take the import (" + std::strerror(errno) + ")");
  if (folders == nullptr) {
    folders = new std::vector<std::string>();
    std::atexit([] {
      for (const std::string& f : *folders) {
        std::error_code ignored;
        fs::remove_all(f, ignored);
      }
    });
  }
  folders->push_back(tmpl);
  return tmpl + "/" + fs::path(path).filename().string() + ".trainscope.db";
}

// Stores the fingerprint, then the seal over the trace with it.
void store_fingerprint(const std::string& trace, const std::string& fingerprint) {
  try {
    store::Db db;
    open_guarded(db, trace, SQLITE_OPEN_READWRITE, "cannot write trace");
    store::set_durability(db, store::Durability::not_synced);  // an import: sqlite.hpp
    const auto put = [&db](const char* key, const std::string& value) {
      store::Stmt st(db, "INSERT OR REPLACE INTO meta VALUES (?, ?)", "cannot write trace");
      st.bind(1, key);
      st.bind(2, value);
      st.run();
    };
    put(kFingerprintKey, fingerprint);
    db.exec("BEGIN IMMEDIATE", "cannot write trace");
    const std::string seal = cache_seal(db, fingerprint);
    if (!seal.empty()) put(kSealKey, seal);
    db.exec("COMMIT", "cannot write trace");
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

  const std::string key = options_key(options.import);
  std::string cache = cache_location(path, options);
  if (cache.empty()) {
    cache = temporary_location(path);
    out.temporary = true;
  }
  // The source is hashed once: before the import when a cache is there to be checked, else
  // after it. Its state before and after tells whether it changed in between.
  const std::string state = source_state(path);
  out.replaced = sniff(cache) == SourceKind::trainscope_trace;
  std::string fingerprint;
  if (out.replaced) {
    fingerprint = source_fingerprint(path, key);
    std::string stored;
    if (!fingerprint.empty() && made_from(cache, fingerprint, stored)) {
      out.path = cache;
      out.replaced = false;
      out.reused = true;
      return out;
    }
    out.why_replaced = why_replaced(stored, fingerprint);
  }
  const std::string temp = cache + ".tmp-" + std::to_string(::getpid()) + "-" +
                           path_hash(std::to_string(std::random_device{}()));
  const std::string sources[] = {path};
  try {
    // The import takes the digests of what it reads, for the fingerprint after it.
    SourceDigests digests;
    ImportOptions import = options.import;
    import.digests = &digests;
    out.stats = import_traces(sources, temp, import);
    // A source that changed while it was imported or hashed gets no fingerprint: imported
    // again next time.
    if (fingerprint.empty() && !state.empty())
      fingerprint = source_fingerprint(path, key, &digests);
    if (!fingerprint.empty() && !state.empty() && source_state(path) == state)
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
