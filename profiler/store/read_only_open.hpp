// How a reader opens a trace it only reads without writing anything beside it, even in a folder
// it cannot write (a read-only mount, a colleague's results, a CI artifact).
//
// A finished trace is in rollback-journal mode and SQLite reads it as it is. A capture's file
// (running, killed or stopped by a full disk) is in write-ahead-log mode, where SQLite reads the
// log PATH-wal through an index PATH-shm that it creates when absent: in a read-only folder that
// fails ("unable to open database file"), and elsewhere a reader would leave PATH-shm and an
// empty PATH-wal behind. When the log holds nothing, everything is in the file itself and it is
// opened with SQLite's immutable=1 (no index, no locks, nothing created); a capture still
// running keeps its index, so a file with one in a folder that can take one is opened as usual
// and its new commits stay visible. When the log holds the last writes of a killed capture and
// the folder cannot take the index, no open can read them: that is one clear error.
#pragma once

#include <string>
#include <string_view>

#include "profiler/store/sqlite.hpp"

namespace ts::store {

// What lies around a trace file, as far as reading it without writing beside it goes.
struct TraceSurroundings {
  bool write_ahead_log_mode = false;  // the file's header says WAL (bytes 18 and 19 are 2)
  bool log_has_content = false;       // PATH-wal exists and is not empty
  bool index_present = false;         // PATH-shm exists
  bool folder_writable = true;        // the folder can take a new file (PATH-shm)
};

enum class ReadOpen {
  as_is,      // a plain read-only open: SQLite creates nothing, or finds the index it needs
  immutable,  // immutable=1: the whole trace is in the file, and no index is made
  refuse,     // the last writes are in PATH-wal and the folder cannot take PATH-shm
};

// The decision, from the facts alone (see the file comment).
ReadOpen choose_read_open(const TraceSurroundings& s);

// The facts for the file at `path`, from its header and the files beside it.
TraceSurroundings trace_surroundings(const std::string& path);

// The folder holding `path`: "." for a bare name, "/" for a file at the root.
std::string folder_of(const std::string& path);

// The one-line error for ReadOpen::refuse: the last writes are in PATH-wal, the folder is
// read-only (reason), and what to do (copy the trace and its -wal to a folder you can write).
std::string unreadable_log_message(const std::string& path);

// Opens `path` read-only on `db` as choose_read_open decides; throws Error(unreadable_log_message)
// for ReadOpen::refuse, and Error("<what> <path>: <why>") when SQLite cannot open it.
void open_read_only(Db& db, const std::string& path, std::string_view what);

}  // namespace ts::store
