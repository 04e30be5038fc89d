// A map from integer ids (tracks, labels) to values for per-event lookups on hot paths: a
// vector for the small ids real traces use, a hash map above kDense (a hostile file may use any
// id). Values are default-constructed on first access.
#pragma once

#include <cstdint>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ts::gui {

template <class T>
class IdMap {
 public:
  static constexpr std::uint32_t kDense = 1 << 16;

  T& operator[](std::uint32_t id) {
    if (id >= kDense) return sparse_[id];
    if (id >= dense_.size()) dense_.resize(id + 1);
    if (!dense_[id]) dense_[id] = std::make_unique<T>();
    return *dense_[id];
  }
  T* find(std::uint32_t id) {
    if (id < kDense) return id < dense_.size() ? dense_[id].get() : nullptr;
    const auto it = sparse_.find(id);
    return it != sparse_.end() ? &it->second : nullptr;
  }
  template <class Fn>
  void for_each(Fn&& fn) {
    for (std::uint32_t id = 0; id < dense_.size(); ++id)
      if (dense_[id]) fn(id, *dense_[id]);
    for (auto& [id, v] : sparse_) fn(id, v);
  }

 private:
  std::vector<std::unique_ptr<T>> dense_;  // pointers: references stay valid as it grows
  std::unordered_map<std::uint32_t, T> sparse_;
};

}  // namespace ts::gui
