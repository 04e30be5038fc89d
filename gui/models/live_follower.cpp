#include "gui/models/live_follower.hpp"

namespace ts::gui {

std::shared_ptr<const store::Snapshot> LiveFollower::next() {
  using Refresh = store::Reader::Refresh;
  const Refresh r = reader_ ? reader_->refresh() : Refresh::reopen;
  if (r == Refresh::unchanged && snapshot_) return snapshot_;
  if (r == Refresh::reopen) {
    snapshot_.reset();
    reader_.reset();  // before the new one: one in-memory copy at a time
    state_->note_changed(INT64_MIN);
    reader_ = std::make_unique<store::Reader>(path_);
    ++opens_;
  } else {
    state_->note_changed(reader_->changed_from_ns());
  }
  snapshot_ = reader_->snapshot_copy();
  return snapshot_;
}

}  // namespace ts::gui
