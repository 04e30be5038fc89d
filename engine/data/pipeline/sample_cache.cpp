#include "engine/data/pipeline/sample_cache.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "engine/data/dataset.hpp"

namespace ts {
namespace {

// File layout: header, then the states [count] bytes, then the samples [count, numel] f32.
// The header's `complete` byte is written last (seal), so a run killed while filling the cache
// leaves a file that the next run rebuilds.
constexpr char kMagic[8] = {'T', 'S', 'C', 'A', 'C', 'H', 'E', '1'};
struct Header {
  char magic[8];
  std::int64_t count, numel;
  std::uint64_t fingerprint_hash;
  std::uint8_t complete;
  std::uint8_t pad[7];
};
static_assert(sizeof(Header) == 40);

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
  return h;
}

[[noreturn]] void fail(const std::string& path, const std::string& what) {
  throw DatasetError("cache file '" + path + "': " + what + " (" + std::strerror(errno) + ")");
}

void pwrite_all(int fd, const void* data, std::size_t bytes, off_t offset,
                const std::string& path) {
  const char* p = static_cast<const char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pwrite(fd, p, bytes, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(path, "cannot be written");
    p += n;
    bytes -= static_cast<std::size_t>(n);
    offset += n;
  }
}

bool pread_all(int fd, void* data, std::size_t bytes, off_t offset) {
  char* p = static_cast<char*>(data);
  while (bytes > 0) {
    const ssize_t n = ::pread(fd, p, bytes, offset);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    bytes -= static_cast<std::size_t>(n);
    offset += n;
  }
  return true;
}

}  // namespace

SampleCache::SampleCache(std::int64_t count, std::int64_t numel)
    : count_(count),
      numel_(numel),
      states_(std::make_unique<std::atomic<std::uint8_t>[]>(static_cast<std::size_t>(count))) {
  for (std::int64_t i = 0; i < count; ++i) states_[static_cast<std::size_t>(i)].store(0);
}

SampleCache::~SampleCache() {
  if (fd_ >= 0) ::close(fd_);
}

std::unique_ptr<SampleCache> SampleCache::in_memory(std::int64_t count, std::int64_t numel) {
  std::unique_ptr<SampleCache> c(new SampleCache(count, numel));
  c->memory_.resize(static_cast<std::size_t>(count * numel));
  return c;
}

std::unique_ptr<SampleCache> SampleCache::in_file(const std::string& path, std::int64_t count,
                                                  std::int64_t numel,
                                                  const std::string& fingerprint) {
  std::unique_ptr<SampleCache> c(new SampleCache(count, numel));
  c->path_ = path;
  const std::uint64_t hash = fnv1a(fingerprint);
  const int existing = ::open(path.c_str(), O_RDWR | O_CLOEXEC);
  if (existing >= 0) {
    Header h{};
    std::vector<std::uint8_t> states(static_cast<std::size_t>(count));
    const bool usable = pread_all(existing, &h, sizeof h, 0) &&
                        std::memcmp(h.magic, kMagic, sizeof kMagic) == 0 && h.count == count &&
                        h.numel == numel && h.fingerprint_hash == hash && h.complete == 1 &&
                        pread_all(existing, states.data(), states.size(), sizeof h);
    if (usable) {
      c->fd_ = existing;
      c->reused_ = c->sealed_ = true;
      for (std::size_t i = 0; i < states.size(); ++i) c->states_[i].store(states[i] == 2 ? 2 : 1);
      c->settled_ = count;
      return c;
    }
    ::close(existing);
  }
  c->fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (c->fd_ < 0) fail(path, "cannot be created");
  Header h{};
  std::memcpy(h.magic, kMagic, sizeof kMagic);
  h.count = count;
  h.numel = numel;
  h.fingerprint_hash = hash;
  h.complete = 0;
  pwrite_all(c->fd_, &h, sizeof h, 0, path);
  const off_t size = static_cast<off_t>(sizeof(Header)) + count +
                     static_cast<off_t>(count * numel * static_cast<std::int64_t>(sizeof(float)));
  if (::ftruncate(c->fd_, size) != 0) fail(path, "cannot be sized");
  return c;
}

void SampleCache::read(std::int64_t index, float* out) const {
  const auto n = static_cast<std::size_t>(numel_);
  if (fd_ < 0) {
    std::memcpy(out, memory_.data() + static_cast<std::size_t>(index) * n, n * sizeof(float));
    return;
  }
  const off_t offset =
      static_cast<off_t>(sizeof(Header)) + count_ +
      static_cast<off_t>(index * numel_ * static_cast<std::int64_t>(sizeof(float)));
  if (!pread_all(fd_, out, n * sizeof(float), offset))
    fail(path_, "cannot be read at sample " + std::to_string(index));
}

void SampleCache::write(std::int64_t index, const float* sample) {
  const auto n = static_cast<std::size_t>(numel_);
  if (fd_ < 0) {
    std::memcpy(memory_.data() + static_cast<std::size_t>(index) * n, sample, n * sizeof(float));
  } else {
    const off_t offset =
        static_cast<off_t>(sizeof(Header)) + count_ +
        static_cast<off_t>(index * numel_ * static_cast<std::int64_t>(sizeof(float)));
    pwrite_all(fd_, sample, n * sizeof(float), offset, path_);
  }
  if (states_[static_cast<std::size_t>(index)].exchange(1, std::memory_order_release) == 0)
    settled_.fetch_add(1, std::memory_order_relaxed);
}

void SampleCache::mark_bad(std::int64_t index) {
  if (states_[static_cast<std::size_t>(index)].exchange(2, std::memory_order_release) == 0)
    settled_.fetch_add(1, std::memory_order_relaxed);
}

void SampleCache::seal() {
  if (fd_ < 0 || sealed_ || !complete()) return;
  std::vector<std::uint8_t> states(static_cast<std::size_t>(count_));
  for (std::size_t i = 0; i < states.size(); ++i) states[i] = states_[i].load();
  pwrite_all(fd_, states.data(), states.size(), sizeof(Header), path_);
  if (::fdatasync(fd_) != 0) fail(path_, "cannot be synced");
  const std::uint8_t one = 1;
  pwrite_all(fd_, &one, 1, offsetof(Header, complete), path_);
  sealed_ = true;
}

std::string SampleCache::describe() const {
  if (fd_ < 0) return "memory";
  return "file " + path_ + (reused_ ? " (reused)" : "");
}

}  // namespace ts
