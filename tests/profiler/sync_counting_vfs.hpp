// A VFS that counts the syncs of every file SQLite opens while it stands as the default: what
// the durability tests count (test_durability.cpp, import/test_trace_source.cpp).
#pragma once

#include <sqlite3.h>

#include <atomic>

namespace ts::test {

// The default VFS, with every file's xSync counted; registered as the default while it lives.
class SyncCountingVfs {
 public:
  SyncCountingVfs() {
    real_ = sqlite3_vfs_find(nullptr);
    vfs_ = *real_;
    vfs_.zName = "sync_counting";
    vfs_.szOsFile = static_cast<int>(sizeof(File)) + real_->szOsFile;
    vfs_.xOpen = &open;
    syncs_ = 0;
    sqlite3_vfs_register(&vfs_, 1);
  }
  ~SyncCountingVfs() { sqlite3_vfs_unregister(&vfs_); }
  SyncCountingVfs(const SyncCountingVfs&) = delete;
  SyncCountingVfs& operator=(const SyncCountingVfs&) = delete;

  int syncs() const { return syncs_; }

 private:
  // Our file: its methods, then the real file's bytes.
  struct File {
    sqlite3_file base;
    sqlite3_io_methods methods;
    sqlite3_file* real() { return reinterpret_cast<sqlite3_file*>(this + 1); }
  };

  static int open(sqlite3_vfs*, sqlite3_filename name, sqlite3_file* f, int flags, int* out) {
    auto* file = reinterpret_cast<File*>(f);
    const int rc = real_->xOpen(real_, name, file->real(), flags, out);
    if (file->real()->pMethods == nullptr) {
      file->base.pMethods = nullptr;
      return rc;
    }
    // The real file's methods, each handed the real file; xSync counted first.
    file->methods = *file->real()->pMethods;
    wrap(file->methods);
    file->base.pMethods = &file->methods;
    return rc;
  }

  static sqlite3_file* real(sqlite3_file* f) { return reinterpret_cast<File*>(f)->real(); }

  static void wrap(sqlite3_io_methods& m) {
    m.xClose = [](sqlite3_file* f) { return real(f)->pMethods->xClose(real(f)); };
    m.xRead = [](sqlite3_file* f, void* p, int n, sqlite3_int64 o) {
      return real(f)->pMethods->xRead(real(f), p, n, o);
    };
    m.xWrite = [](sqlite3_file* f, const void* p, int n, sqlite3_int64 o) {
      return real(f)->pMethods->xWrite(real(f), p, n, o);
    };
    m.xTruncate = [](sqlite3_file* f, sqlite3_int64 n) {
      return real(f)->pMethods->xTruncate(real(f), n);
    };
    m.xSync = [](sqlite3_file* f, int flags) {
      ++syncs_;
      return real(f)->pMethods->xSync(real(f), flags);
    };
    m.xFileSize = [](sqlite3_file* f, sqlite3_int64* n) {
      return real(f)->pMethods->xFileSize(real(f), n);
    };
    m.xLock = [](sqlite3_file* f, int l) { return real(f)->pMethods->xLock(real(f), l); };
    m.xUnlock = [](sqlite3_file* f, int l) { return real(f)->pMethods->xUnlock(real(f), l); };
    m.xCheckReservedLock = [](sqlite3_file* f, int* out) {
      return real(f)->pMethods->xCheckReservedLock(real(f), out);
    };
    m.xFileControl = [](sqlite3_file* f, int op, void* arg) {
      return real(f)->pMethods->xFileControl(real(f), op, arg);
    };
    m.xSectorSize = [](sqlite3_file* f) { return real(f)->pMethods->xSectorSize(real(f)); };
    m.xDeviceCharacteristics = [](sqlite3_file* f) {
      return real(f)->pMethods->xDeviceCharacteristics(real(f));
    };
    if (m.iVersion < 2) return;
    m.xShmMap = [](sqlite3_file* f, int region, int size, int extend, void volatile** p) {
      return real(f)->pMethods->xShmMap(real(f), region, size, extend, p);
    };
    m.xShmLock = [](sqlite3_file* f, int offset, int n, int flags) {
      return real(f)->pMethods->xShmLock(real(f), offset, n, flags);
    };
    m.xShmBarrier = [](sqlite3_file* f) { real(f)->pMethods->xShmBarrier(real(f)); };
    m.xShmUnmap = [](sqlite3_file* f, int drop) {
      return real(f)->pMethods->xShmUnmap(real(f), drop);
    };
    if (m.iVersion < 3) return;
    m.xFetch = [](sqlite3_file* f, sqlite3_int64 offset, int n, void** p) {
      return real(f)->pMethods->xFetch(real(f), offset, n, p);
    };
    m.xUnfetch = [](sqlite3_file* f, sqlite3_int64 offset, void* p) {
      return real(f)->pMethods->xUnfetch(real(f), offset, p);
    };
  }

  static inline sqlite3_vfs* real_ = nullptr;
  static inline std::atomic<int> syncs_{0};
  sqlite3_vfs vfs_{};
};

}  // namespace ts::test
