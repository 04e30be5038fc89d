// Buffers written into a file on a thread of their own (profiler/store/write_behind.hpp), through
// a stand-in for SQLite's file handle that records each write and can be told to fail.
#include <gtest/gtest.h>
#include <sqlite3.h>

#include <cerrno>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <vector>

#include "profiler/store/write_behind.hpp"

namespace ts::store {
namespace {

// A sqlite3_file whose xWrite copies into `bytes`; the write at `fail_at` fails with ENOSPC.
struct FakeFile {
  sqlite3_file base{};
  std::mutex m;
  std::vector<std::uint8_t> bytes;
  std::vector<int> sizes;  // of each xWrite call
  std::int64_t fail_at = -1;
  // While closed, a write waits at the gate (a file whose pages come slowly).
  std::condition_variable cv;
  bool gate_closed = false;
  int calls = 0;  // xWrite calls begun
  void open_gate() {
    {
      const std::lock_guard lock(m);
      gate_closed = false;
    }
    cv.notify_all();
  }
};

int fake_write(sqlite3_file* f, const void* data, int n, sqlite3_int64 offset) {
  auto* file = reinterpret_cast<FakeFile*>(f);
  std::unique_lock lock(file->m);
  ++file->calls;
  file->cv.wait(lock, [file] { return !file->gate_closed; });
  if (offset == file->fail_at) {
    errno = ENOSPC;
    return SQLITE_IOERR_WRITE;
  }
  const auto end = static_cast<std::size_t>(offset) + static_cast<std::size_t>(n);
  if (file->bytes.size() < end) file->bytes.resize(end);
  const auto* p = static_cast<const std::uint8_t*>(data);
  std::copy(p, p + n, file->bytes.begin() + offset);
  file->sizes.push_back(n);
  return SQLITE_OK;
}

const sqlite3_io_methods kFakeMethods = [] {
  sqlite3_io_methods m{};
  m.iVersion = 1;
  m.xWrite = fake_write;
  return m;
}();

std::vector<std::uint8_t> filled(std::size_t n, std::uint8_t first) {
  std::vector<std::uint8_t> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(first + i);
  return v;
}

TEST(WriteBehind, WritesEachBufferWhereItGoesInPiecesAndHandsBackOneToFill) {
  FakeFile file;
  file.base.pMethods = &kFakeMethods;
  std::vector<std::uint8_t> want;
  {
    WriteBehind behind(&file.base, 1000);
    std::vector<std::uint8_t> buffer = filled(2500, 0);
    for (std::uint8_t k = 0; k < 20; ++k) {
      buffer = filled(2500, static_cast<std::uint8_t>(k * 7));
      const std::size_t bytes = k == 19 ? 1234 : 2500;  // the last one part full
      want.insert(want.end(), buffer.begin(), buffer.begin() + static_cast<std::ptrdiff_t>(bytes));
      ASSERT_EQ(behind.write(buffer, bytes, std::uint64_t{k} * 2500), "");
      EXPECT_EQ(buffer.size(), 2500u);  // a buffer to fill next, of the same size
    }
    EXPECT_EQ(behind.wait(), "");
  }
  EXPECT_EQ(file.bytes, want);
  for (const int n : file.sizes) EXPECT_LE(n, 1000);
}

TEST(WriteBehind, AFailedWriteIsToldOnceItIsKnownAndNothingIsWrittenAfterIt) {
  FakeFile file;
  file.base.pMethods = &kFakeMethods;
  file.fail_at = 2000;  // the third piece of the first buffer
  WriteBehind behind(&file.base, 1000);
  std::vector<std::uint8_t> buffer = filled(3000, 1);
  EXPECT_EQ(behind.write(buffer, 3000, 0), "");  // fails on the other thread
  const std::string error = behind.wait();
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  EXPECT_EQ(behind.write(buffer, 3000, 3000), error);
  EXPECT_EQ(behind.wait(), error);
  const std::lock_guard lock(file.m);
  EXPECT_EQ(file.bytes.size(), 2000u);  // the first two pieces, then nothing
}

// A write that takes long holds the caller up only once kInFlight buffers are behind: they are
// handed over while the first waits, and written after it in order.
TEST(WriteBehind, BuffersQueueBehindASlowWriteAndAreWrittenInOrder) {
  FakeFile file;
  file.base.pMethods = &kFakeMethods;
  file.gate_closed = true;
  std::vector<std::uint8_t> want;
  {
    WriteBehind behind(&file.base, 4096);
    for (std::size_t k = 0; k < WriteBehind::kInFlight; ++k) {
      std::vector<std::uint8_t> buffer = filled(300, static_cast<std::uint8_t>(k * 11));
      want.insert(want.end(), buffer.begin(), buffer.end());
      ASSERT_EQ(behind.write(buffer, 300, k * 300), "");  // never waits for the gate
    }
    {
      const std::lock_guard lock(file.m);
      EXPECT_LE(file.calls, 1);  // at most the first write has begun
    }
    file.open_gate();
    std::vector<std::uint8_t> last = filled(300, 99);
    want.insert(want.end(), last.begin(), last.end());
    ASSERT_EQ(behind.write(last, 300, WriteBehind::kInFlight * 300), "");
    EXPECT_EQ(behind.wait(), "");
  }
  EXPECT_EQ(file.bytes, want);
  EXPECT_EQ(file.calls, static_cast<int>(WriteBehind::kInFlight) + 1);
}

// A write that fails with buffers queued behind it: none of them is written, and the failure is
// told at the next hand-over and wait.
TEST(WriteBehind, NothingQueuedBehindAFailedWriteIsWritten) {
  FakeFile file;
  file.base.pMethods = &kFakeMethods;
  file.fail_at = 0;
  file.gate_closed = true;
  WriteBehind behind(&file.base, 4096);
  for (std::size_t k = 0; k < WriteBehind::kInFlight; ++k) {
    std::vector<std::uint8_t> buffer = filled(100, 1);
    ASSERT_EQ(behind.write(buffer, 100, k * 100), "");
  }
  file.open_gate();
  const std::string error = behind.wait();
  EXPECT_NE(error.find("No space left on device"), std::string::npos) << error;
  std::vector<std::uint8_t> buffer = filled(100, 1);
  EXPECT_EQ(behind.write(buffer, 100, 1000), error);
  const std::lock_guard lock(file.m);
  EXPECT_TRUE(file.bytes.empty());
  EXPECT_EQ(file.calls, 1);
}

}  // namespace
}  // namespace ts::store
