// Follows a trace that is still being captured, for a window's live reloads. One reader of the
// file is kept and refreshed at each reload, so that it reads only what the capture committed
// since (store::Reader::refresh); each reload's session then reads a snapshot of it (its view,
// summary, analysis and window loads), and none of them indexes the capture's staged events
// again. Without it, every reader of every reload indexed every staged event.
#pragma once

#include <memory>
#include <string>

#include "gui/models/live_state.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

class LiveFollower {
 public:
  explicit LiveFollower(std::string path) : path_(std::move(path)) {}

  // Brings the reader up to date (the first call opens it) and returns a snapshot of what it
  // read: the last one again when nothing changed; null when the file's readers read it
  // directly (the capture has staged nothing yet, or it stopped). Throws store::Error.
  std::shared_ptr<const store::Snapshot> next();

  // The analysis and summary of the reloads' snapshots, told at each next() what is new since
  // the last: the sessions reading them go over only that (TraceSession's `live`).
  const std::shared_ptr<LiveState>& state() const { return state_; }

  // Staged blocks the reader indexed since it opened the file (tests, status).
  std::uint64_t blocks_indexed() const { return reader_ ? reader_->blocks_indexed() : 0; }
  // Times the file had to be opened again (the capture stopped, or the file was replaced).
  int opens() const { return opens_; }

 private:
  std::string path_;
  std::unique_ptr<store::Reader> reader_;
  std::shared_ptr<const store::Snapshot> snapshot_;
  std::shared_ptr<LiveState> state_ = std::make_shared<LiveState>();
  int opens_ = 0;
};

}  // namespace ts::gui
