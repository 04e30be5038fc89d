#include "profiler/import/common/event_runs.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "profiler/store/error.hpp"

namespace ts::import {

namespace {

// A block in the file: its coded size (4 bytes, little-endian), then its bytes.
constexpr std::size_t kFrameBytes = 4;
// Coded blocks are written to the file in writes of about this size.
constexpr std::size_t kWriteBytes = std::size_t{4} << 20;
// Rows are coded this many at a time, so that a block is cut close to its size.
constexpr std::size_t kCodeRows = 256;
// How far ahead of a run's next row its rows are fetched into the cache while merging.
constexpr std::size_t kPrefetchRows = 4;

// "cannot write the import's temporary file of events /out/.trainscope-events-ab12Cd: No space
// left on device" (the file is unlinked: the folder is what the user can act on).
std::string system_error(const std::string& what, const std::string& path, int error) {
  return what + " the import's temporary file of events " + path + ": " + std::strerror(error);
}

}  // namespace

// One run read back a block at a time.
class EventRuns::Cursor {
 public:
  Cursor(const EventRuns& runs, const Run& run) : runs_(runs), at_(run.begin), end_(run.end) {
    load();
  }
  bool valid() const { return next_ < block_.events.size(); }
  const store::EventRow& row() const { return block_.events[next_]; }
  void advance() {
    if (++next_ == block_.events.size()) load();
    // A merge takes a row of each run in turn, so no run's next rows are still cached when it
    // comes round again (hundreds of runs are more streams than the hardware prefetches); the
    // rows a few ahead are asked for now.
    if (next_ + kPrefetchRows < block_.events.size())
      __builtin_prefetch(&block_.events[next_ + kPrefetchRows]);
  }

 private:
  // The next block of the run that holds a row (none: the run is done).
  void load() {
    block_.clear();
    next_ = 0;
    while (block_.events.empty() && at_ < end_) {
      unsigned char frame[kFrameBytes];
      if (end_ - at_ < kFrameBytes) damaged();
      runs_.read_at(at_, frame, kFrameBytes);
      const std::uint32_t size =
          static_cast<std::uint32_t>(frame[0]) | static_cast<std::uint32_t>(frame[1]) << 8 |
          static_cast<std::uint32_t>(frame[2]) << 16 | static_cast<std::uint32_t>(frame[3]) << 24;
      at_ += kFrameBytes;
      if (size > end_ - at_) damaged();
      coded_.resize(size);
      runs_.read_at(at_, coded_.data(), size);
      at_ += size;
      if (!store::decode_block(coded_, block_)) damaged();
    }
  }
  [[noreturn]] void damaged() const {
    throw store::Error("the import's temporary file of events (" + runs_.path_ +
                       ") reads back damaged");
  }

  const EventRuns& runs_;
  std::uint64_t at_, end_;
  std::vector<unsigned char> coded_;
  store::DecodedBlock block_;
  std::size_t next_ = 0;
};

EventRuns::EventRuns(const std::string& folder, std::size_t block_bytes, std::size_t merge_width)
    : path_((folder.empty() ? std::string(".") : folder) + "/.trainscope-events-XXXXXX"),
      block_bytes_(std::max<std::size_t>(block_bytes, 1024)),
      merge_width_(std::max<std::size_t>(merge_width, 2)) {
  fd_ = ::mkstemp(path_.data());
  if (fd_ < 0) throw store::Error(system_error("cannot create", path_, errno));
  ::unlink(path_.c_str());
}

EventRuns::~EventRuns() {
  if (fd_ >= 0) ::close(fd_);
}

void EventRuns::add(std::span<const store::EventRow> rows) {
  for (std::size_t i = 0; i < rows.size(); i += kCodeRows) {
    const std::span<const store::EventRow> part =
        rows.subspan(i, std::min(kCodeRows, rows.size() - i));
    block_.append(part);
    if (block_.size() >= block_bytes_) cut_block();
  }
  run_rows_ += rows.size();
}

void EventRuns::end_run() {
  cut_block();
  write_out(true);
  if (run_rows_ > 0) runs_.push_back({run_begin_, file_end_});
  rows_ += run_rows_;
  run_rows_ = 0;
  run_begin_ = file_end_;
}

void EventRuns::cut_block() {
  if (block_.empty()) return;
  const std::vector<unsigned char>& coded = block_.bytes();
  const auto size = static_cast<std::uint32_t>(coded.size());
  const unsigned char frame[kFrameBytes] = {
      static_cast<unsigned char>(size), static_cast<unsigned char>(size >> 8),
      static_cast<unsigned char>(size >> 16), static_cast<unsigned char>(size >> 24)};
  out_.insert(out_.end(), frame, frame + kFrameBytes);
  out_.insert(out_.end(), coded.begin(), coded.end());
  block_.clear();
  write_out(false);
}

void EventRuns::write_out(bool all) {
  if (out_.empty() || (!all && out_.size() < kWriteBytes)) return;
  std::size_t done = 0;
  while (done < out_.size()) {
    const ssize_t n =
        ::pwrite(fd_, out_.data() + done, out_.size() - done, static_cast<off_t>(file_end_ + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw store::Error(system_error("cannot write", path_, n < 0 ? errno : ENOSPC));
    done += static_cast<std::size_t>(n);
  }
  file_end_ += out_.size();
  out_.clear();
}

void EventRuns::read_at(std::uint64_t offset, void* into, std::size_t bytes) const {
  auto* p = static_cast<unsigned char*>(into);
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = ::pread(fd_, p + done, bytes - done, static_cast<off_t>(offset + done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw store::Error(system_error("cannot read", path_, n < 0 ? errno : EIO));
    done += static_cast<std::size_t>(n);
  }
}

void EventRuns::merge(std::int64_t first, std::int64_t last,
                      const std::function<void(std::span<const store::EventRow>)>& out) {
  narrow();
  merge_runs(runs_, first, last, out);
}

void EventRuns::narrow() {
  while (runs_.size() > merge_width_) {
    std::vector<Run> longer;
    for (std::size_t i = 0; i < runs_.size(); i += merge_width_) {
      const std::span<const Run> group(runs_.data() + i, std::min(merge_width_, runs_.size() - i));
      merge_runs(group, INT64_MIN, INT64_MAX,
                 [&](std::span<const store::EventRow> rows) { add(rows); });
      cut_block();
      write_out(true);
      longer.push_back({run_begin_, file_end_});
      run_rows_ = 0;  // counted in rows_ when they were first added
      run_begin_ = file_end_;
    }
    runs_ = std::move(longer);
  }
}

namespace {

// A tournament of losers over the runs' next rows (Knuth's "tree of losers"): each internal
// node keeps the run that lost the match played there, so advancing the winning run replays
// only the matches on its path to the root, about log2(runs) comparisons of keys held in one
// array (a binary heap takes twice as many, each reading two runs' blocks).
class LoserTree {
 public:
  // The key of a run's next row: start, then track, then the run's index (ties go to the
  // earlier run), as one unsigned 128-bit number; a run that is done sorts after every row.
  using Key = unsigned __int128;
  static constexpr Key kDone = ~Key{0};
  static Key key_of(const store::EventRow& r, std::uint32_t run) {
    const std::uint64_t start = static_cast<std::uint64_t>(r.start_ns) ^ (std::uint64_t{1} << 63);
    return Key{start} << 64 | (static_cast<std::uint64_t>(r.track) << 32 | run);
  }

  explicit LoserTree(std::vector<Key> keys) : keys_(std::move(keys)), loser_(keys_.size()) {
    const std::size_t n = keys_.size();
    if (n == 0) return;
    // Leaves sit at n..2n-1; node v plays the winners of nodes 2v and 2v+1.
    std::vector<std::uint32_t> won(2 * n);
    for (std::size_t i = 0; i < n; ++i) won[n + i] = static_cast<std::uint32_t>(i);
    for (std::size_t v = n - 1; v >= 1; --v) {
      const std::uint32_t a = won[2 * v], b = won[2 * v + 1];
      const bool a_first = keys_[a] < keys_[b];
      won[v] = a_first ? a : b;
      loser_[v] = a_first ? b : a;
    }
    winner_ = won[1];
  }
  bool empty() const { return keys_.empty() || keys_[winner_] == kDone; }
  std::uint32_t winner() const { return winner_; }
  // The winner's run moved on to a row of key `k` (kDone: it is done). The matches on its path
  // are played without branches: which of two keys comes first is not predictable.
  void replace_winner(Key k) {
    keys_[winner_] = k;
    std::uint32_t w = winner_;
    for (std::size_t v = (keys_.size() + w) / 2; v >= 1; v /= 2) {
      const std::uint32_t l = loser_[v];
      const bool l_first = keys_[l] < keys_[w];
      loser_[v] = l_first ? w : l;
      w = l_first ? l : w;
    }
    winner_ = w;
  }

 private:
  std::vector<Key> keys_;
  std::vector<std::uint32_t> loser_;
  std::uint32_t winner_ = 0;
};

}  // namespace

void EventRuns::merge_runs(std::span<const Run> runs, std::int64_t first, std::int64_t last,
                           const std::function<void(std::span<const store::EventRow>)>& out) const {
  std::vector<Cursor> cursors;
  cursors.reserve(runs.size());
  std::vector<LoserTree::Key> keys;
  keys.reserve(runs.size());
  // The key of run k's next row, or a done run's when it has none in [first, last].
  const auto next_key = [&](std::uint32_t k) {
    const Cursor& c = cursors[k];
    return c.valid() && c.row().start_ns <= last ? LoserTree::key_of(c.row(), k) : LoserTree::kDone;
  };
  for (const Run& run : runs) {
    Cursor& c = cursors.emplace_back(*this, run);
    while (c.valid() && c.row().start_ns < first) c.advance();
    keys.push_back(next_key(static_cast<std::uint32_t>(cursors.size() - 1)));
  }
  LoserTree tree(std::move(keys));
  std::vector<store::EventRow> batch;
  batch.reserve(kBatchRows);
  while (!tree.empty()) {
    const std::uint32_t k = tree.winner();
    Cursor& c = cursors[k];
    batch.push_back(c.row());
    c.advance();
    tree.replace_winner(next_key(k));
    if (batch.size() == kBatchRows) {
      out(batch);
      batch.clear();
    }
  }
  if (!batch.empty()) out(batch);
}

}  // namespace ts::import
