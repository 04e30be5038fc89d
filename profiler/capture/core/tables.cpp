#include "profiler/capture/core/tables.hpp"

namespace ts::trace::core {

std::uint32_t StringTable::intern(std::string_view text) {
  std::lock_guard lock(mu_);
  const std::string key(text);
  if (auto it = ids_.find(key); it != ids_.end()) return it->second;
  texts_.push_back(key);
  const auto id = static_cast<std::uint32_t>(texts_.size());
  ids_.emplace(key, id);
  return id;
}

std::size_t StringTable::size() const {
  std::lock_guard lock(mu_);
  return texts_.size();
}

std::uint32_t StringTable::copy_since(std::uint32_t first, std::vector<std::string>& out) const {
  std::lock_guard lock(mu_);
  for (std::size_t i = first == 0 ? 0 : first - 1; i < texts_.size(); ++i) out.push_back(texts_[i]);
  return static_cast<std::uint32_t>(texts_.size() + 1);
}

std::uint32_t TrackTable::add_locked(std::string name, TrackKind kind, std::int64_t os_tid) {
  if (tracks_.size() >= kMaxTracks) return 0;
  const auto id = static_cast<std::uint32_t>(tracks_.size() + 1);
  tracks_.push_back({id, std::move(name), kind, os_tid});
  ++version_;
  return id;
}

std::uint32_t TrackTable::add_thread(std::string name, std::int64_t os_tid) {
  std::lock_guard lock(mu_);
  return add_locked(std::move(name), TrackKind::thread, os_tid);
}

std::uint32_t TrackTable::find_or_add(std::string_view name, TrackKind kind) {
  std::lock_guard lock(mu_);
  for (const TrackInfo& t : tracks_)
    if (t.kind == kind && t.name == name) return t.id;
  return add_locked(std::string(name), kind, 0);
}

void TrackTable::rename(std::uint32_t id, std::string_view name) {
  std::lock_guard lock(mu_);
  if (id == 0 || id > tracks_.size()) return;
  tracks_[id - 1].name = std::string(name);
  ++version_;
}

std::uint64_t TrackTable::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

std::vector<TrackInfo> TrackTable::snapshot() const {
  std::lock_guard lock(mu_);
  return tracks_;
}

void MetaTable::set(std::string_view key, std::string_view value) {
  std::lock_guard lock(mu_);
  values_[std::string(key)] = std::string(value);
  ++version_;
}

void MetaTable::erase(std::string_view key) {
  std::lock_guard lock(mu_);
  if (const auto it = values_.find(std::string(key)); it != values_.end()) {
    values_.erase(it);
    ++version_;
  }
}

std::uint64_t MetaTable::version() const {
  std::lock_guard lock(mu_);
  return version_;
}

std::map<std::string, std::string> MetaTable::snapshot() const {
  std::lock_guard lock(mu_);
  return values_;
}

}  // namespace ts::trace::core
