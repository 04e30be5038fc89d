// Digests of a trace file's bytes in fixed blocks, taken as an import reads them, so that the
// import cache's fingerprint of the source (profiler/import_cache/fingerprint.hpp) reads only
// the blocks the import did not read whole, instead of the whole source a second time.
//
// A file's digest is the hash of its blocks' digests in order (each block kSourceBlockBytes of
// the file, the last one shorter; content_hash.hpp's XXH64 throughout), so its blocks can be
// hashed in any order, on any thread: by the parts of a file parsed in parallel, and by the
// fingerprint's threads for a large file. A block is taken only when a sequential read passed
// over all of its bytes; a read that starts or stops inside a block leaves it to the fingerprint.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <tuple>
#include <vector>

#include "profiler/store/content_hash.hpp"

namespace ts::import {

inline constexpr std::uint64_t kSourceBlockBytes = std::uint64_t{8} << 20;

// A file as the digests know it: its device, inode and size when it was opened.
struct FileIdentity {
  dev_t device = 0;
  ino_t inode = 0;
  std::uint64_t size = 0;
  auto operator<=>(const FileIdentity&) const = default;
};

// The digest of a whole file from its blocks' digests, in order.
std::uint64_t file_digest(std::span<const std::uint64_t> block_digests);

// The blocks of one file; each may be given from any thread.
class FileBlocks {
 public:
  FileBlocks(std::uint64_t file_bytes, std::uint64_t block_bytes);
  std::uint64_t block_bytes() const { return block_bytes_; }
  std::uint64_t file_bytes() const { return file_bytes_; }
  std::size_t count() const { return digests_.size(); }
  void put(std::size_t block, std::uint64_t digest);
  std::optional<std::uint64_t> get(std::size_t block) const;
  std::size_t taken() const;

 private:
  std::uint64_t file_bytes_, block_bytes_;
  mutable std::mutex m_;
  std::vector<std::uint64_t> digests_;
  std::vector<bool> taken_;
};

// The files of one import, by identity.
class SourceDigests {
 public:
  explicit SourceDigests(std::uint64_t block_bytes = kSourceBlockBytes)
      : block_bytes_(block_bytes) {}
  std::uint64_t block_bytes() const { return block_bytes_; }
  // The blocks of the file `id` names, made on first use.
  FileBlocks& of(const FileIdentity& id);
  // Those of a file read before with the same identity; null when none was.
  const FileBlocks* find(const FileIdentity& id) const;

 private:
  std::uint64_t block_bytes_;
  mutable std::mutex m_;
  std::map<FileIdentity, std::unique_ptr<FileBlocks>> files_;
};

// Hashes the bytes of a sequential read of a file, from byte `begin` on, into its blocks.
class BlockHashing {
 public:
  // blocks: null hashes nothing.
  BlockHashing(FileBlocks* blocks, std::uint64_t begin);
  // The next bytes of the read (they follow those given before).
  void add(const char* bytes, std::size_t n);

 private:
  FileBlocks* blocks_;
  std::uint64_t pos_;
  bool whole_;  // the block pos_ lies in was read from its first byte
  store::ContentHash hash_;
};

}  // namespace ts::import
