#include "profiler/import/common/source_digests.hpp"

#include <algorithm>

namespace ts::import {

std::uint64_t file_digest(std::span<const std::uint64_t> block_digests) {
  store::ContentHash hash;
  for (const std::uint64_t d : block_digests) hash.update_u64(d);
  return hash.digest();
}

FileBlocks::FileBlocks(std::uint64_t file_bytes, std::uint64_t block_bytes)
    : file_bytes_(file_bytes), block_bytes_(std::max<std::uint64_t>(block_bytes, 1)) {
  const std::uint64_t n = (file_bytes_ + block_bytes_ - 1) / block_bytes_;
  digests_.assign(static_cast<std::size_t>(n), 0);
  taken_.assign(static_cast<std::size_t>(n), false);
}

void FileBlocks::put(std::size_t block, std::uint64_t digest) {
  std::lock_guard lock(m_);
  if (block >= digests_.size()) return;
  digests_[block] = digest;
  taken_[block] = true;
}

std::optional<std::uint64_t> FileBlocks::get(std::size_t block) const {
  std::lock_guard lock(m_);
  if (block >= digests_.size() || !taken_[block]) return std::nullopt;
  return digests_[block];
}

std::size_t FileBlocks::taken() const {
  std::lock_guard lock(m_);
  return static_cast<std::size_t>(std::count(taken_.begin(), taken_.end(), true));
}

FileBlocks& SourceDigests::of(const FileIdentity& id) {
  std::lock_guard lock(m_);
  std::unique_ptr<FileBlocks>& blocks = files_[id];
  if (!blocks) blocks = std::make_unique<FileBlocks>(id.size, block_bytes_);
  return *blocks;
}

const FileBlocks* SourceDigests::find(const FileIdentity& id) const {
  std::lock_guard lock(m_);
  const auto it = files_.find(id);
  return it == files_.end() ? nullptr : it->second.get();
}

BlockHashing::BlockHashing(FileBlocks* blocks, std::uint64_t begin)
    : blocks_(blocks),
      pos_(begin),
      whole_(blocks != nullptr && begin % blocks->block_bytes() == 0) {}

void BlockHashing::add(const char* bytes, std::size_t n) {
  if (blocks_ == nullptr) return;
  const std::uint64_t block_bytes = blocks_->block_bytes();
  while (n > 0 && pos_ < blocks_->file_bytes()) {
    const std::uint64_t block = pos_ / block_bytes;
    const std::uint64_t block_end = std::min((block + 1) * block_bytes, blocks_->file_bytes());
    const auto take = static_cast<std::size_t>(std::min<std::uint64_t>(n, block_end - pos_));
    if (whole_) hash_.update(bytes, take);
    bytes += take;
    n -= take;
    pos_ += take;
    if (pos_ == block_end) {
      if (whole_) blocks_->put(static_cast<std::size_t>(block), hash_.digest());
      hash_ = store::ContentHash();
      whole_ = true;
    }
  }
}

}  // namespace ts::import
