// The files write_output writes: a large new file goes to the disk as it is written instead of
// staying in the page cache (store::DropBehind), with the same content.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdint>
#include <string>
#include <vector>

#include "profiler/io/output_file.hpp"
#include "profiler/store/drop_behind.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

using ts::test::TempDir;

// The bytes of the file at `path` held in the page cache (mincore), or -1.
long long cached_bytes(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return -1;
  struct stat st {};
  ::fstat(fd, &st);
  const auto size = static_cast<std::size_t>(st.st_size);
  void* map = size > 0 ? ::mmap(nullptr, size, PROT_READ, MAP_SHARED, fd, 0) : MAP_FAILED;
  ::close(fd);
  if (map == MAP_FAILED) return -1;
  const auto page = static_cast<std::size_t>(::sysconf(_SC_PAGESIZE));
  std::vector<unsigned char> in((size + page - 1) / page);
  long long cached = -1;
  if (::mincore(map, size, in.data()) == 0) {
    cached = 0;
    for (const unsigned char c : in) cached += (c & 1) != 0 ? static_cast<long long>(page) : 0;
  }
  ::munmap(map, size);
  return cached;
}

// Whether this file system drops a file's written-back pages when asked (tmpfs and some others
// keep them): a file written, synced and dropped is then no longer cached.
bool drops_written_pages(const TempDir& dir) {
  const std::string probe = dir.file("probe");
  ts::test::write_file(probe, std::string(std::size_t{1} << 20, 'p'));
  const int fd = ::open(probe.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return false;
  ::fsync(fd);
  ::posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  ::close(fd);
  return cached_bytes(probe) == 0;
}

TEST(OutputFile, ALargeNewFileIsWrittenPastThePageCacheWithItsContent) {
  TempDir dir;
  if (!drops_written_pages(dir)) GTEST_SKIP() << "this file system keeps dropped pages cached";
  const std::string path = dir.file("big.json");
  // Lines numbered so that a byte out of place shows.
  constexpr std::size_t kLines = 600'000;
  std::string expected;
  ts::io::write_output(path, [&](std::ostream& out) {
    for (std::size_t i = 0; i < kLines; ++i) {
      std::string line = "{\"line\": " + std::to_string(i) + ", \"pad\": \"";
      line.append(64 + i % 37, 'x');
      line += "\"}\n";
      out << line;
      expected += line;
    }
  });
  ASSERT_GT(expected.size(), 6 * ts::store::DropBehind::kWindowBytes);
  const long long cached = cached_bytes(path);  // before reading it back caches it
  ASSERT_GE(cached, 0);
  EXPECT_EQ(ts::test::read_file(path), expected);
  // At most the three windows in flight and the stream's buffer stay cached.
  EXPECT_LE(static_cast<std::uint64_t>(cached), 3 * ts::store::DropBehind::kWindowBytes + (1 << 20))
      << "of " << expected.size() << " bytes";
}

TEST(OutputFile, ASmallFileAndAnExistingFileKeepTheirContent) {
  TempDir dir;
  const std::string path = dir.file("small.txt");
  ts::io::write_output(path, [](std::ostream& out) { out << "first\n"; });
  ts::io::write_output(path, [](std::ostream& out) { out << "second\n"; });
  EXPECT_EQ(ts::test::read_file(path), "second\n");
}

TEST(DropBehind, AFileThatCannotIsLeftAloneAndStillWritten) {
  int pipe_fds[2];
  ASSERT_EQ(::pipe(pipe_fds), 0);
  ts::store::DropBehind drop(pipe_fds[1]);
  drop.written(4 * ts::store::DropBehind::kWindowBytes);  // a pipe has no writeback: turned off
  drop.written(8 * ts::store::DropBehind::kWindowBytes);
  EXPECT_EQ(::write(pipe_fds[1], "x", 1), 1);
  char c = 0;
  EXPECT_EQ(::read(pipe_fds[0], &c, 1), 1);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
}

}  // namespace
