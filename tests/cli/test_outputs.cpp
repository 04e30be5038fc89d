// The files the commands write never destroy what their name points at: a device or a FIFO is
// written to (and a failed write is one error, exit 2), a symbolic link keeps pointing at the
// file that gets the content, and a failed write leaves neither a half-written file nor the
// temporary one.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <poll.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <thread>

#include "run_command.hpp"

namespace ts::test {
namespace {

using Json = nlohmann::json;

namespace fs = std::filesystem;

const std::string kTrace = "traces/input_bound.db";
const std::string kPyTorch = "tests/data/pytorch/input_bound.pt.trace.json.gz";

std::size_t line_count(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

bool is_char_device(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISCHR(st.st_mode);
}

// One clear error: exit 2, one line on stderr that says what failed.
void expect_one_error(const CommandResult& r, const std::string& says) {
  EXPECT_EQ(r.status, 2) << r.out << r.err;
  EXPECT_EQ(line_count(r.err), 1u) << r.err;
  EXPECT_NE(r.err.find(says), std::string::npos) << r.err;
}

TEST(Outputs, AFullDeviceIsOneErrorAndStaysADevice) {
  if (!is_char_device("/dev/full")) GTEST_SKIP() << "no /dev/full";
  expect_one_error(run_trainscope("export " + kTrace + " --chrome /dev/full"),
                   "cannot write /dev/full: No space left on device");
  expect_one_error(run_trainscope("check " + kTrace + " --max-input-pct 100 --junit /dev/full"),
                   "cannot write --junit /dev/full: No space left on device");
  // A trace (SQLite) cannot go to a device: refused before anything is read or written.
  expect_one_error(run_trainscope("import " + kPyTorch + " -o /dev/full"), "not a regular file");
  expect_one_error(run_trainscope("merge " + kTrace + " -o /dev/full"), "not a regular file");
  EXPECT_TRUE(is_char_device("/dev/full")) << "an output replaced /dev/full";
}

TEST(Outputs, StandardOutputOnAFullDeviceIsOneError) {
  if (!is_char_device("/dev/full")) GTEST_SKIP() << "no /dev/full";
  TempDir dir;
  const std::string err = dir.file("err");
  for (const std::string& args :
       {"export " + kTrace + " --chrome -", "report " + kTrace, "report --json " + kTrace}) {
    const std::string cmd = TRAINSCOPE_BIN " " + args + " >/dev/full 2>" + err;
    const int raw = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(raw)) << args;
    EXPECT_EQ(WEXITSTATUS(raw), 2) << args;
    const std::string text = read_file(err);
    EXPECT_EQ(line_count(text), 1u) << args << ": " << text;
    EXPECT_NE(text.find("standard output: No space left on device"), std::string::npos)
        << args << ": " << text;
  }
}

// Past the file size limit (`ulimit -f`: a disk that fills up), an import of a job directory, its
// events spilled to a temporary file and merged, is one error and leaves no file behind.
TEST(Outputs, AnImportPastTheFileSizeLimitIsOneErrorAndLeavesNothing) {
  TempDir dir;
  const std::string err = dir.file("err");
  const std::string out = dir.file("out") + "/job.db";
  fs::create_directory(dir.file("out"));
  const std::string cmd = "ulimit -f 64 && " TRAINSCOPE_BIN
                          " import tests/data/pytorch/two_ranks -o " +
                          out + " 2>" + err + " >/dev/null";
  const int raw = std::system(("sh -c '" + cmd + "'").c_str());
  ASSERT_TRUE(WIFEXITED(raw)) << "killed by signal " << (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
  EXPECT_EQ(WEXITSTATUS(raw), 2);
  const std::string text = read_file(err);
  EXPECT_EQ(line_count(text), 1u) << text;
  EXPECT_NE(text.find("File too large"), std::string::npos) << text;
  EXPECT_TRUE(fs::is_empty(dir.file("out"))) << "left behind in " << dir.file("out");
}

// A single file's events go straight into the trace's pages: a write refused anywhere on the way
// (in SQLite's part, among the pages, at their end) is one error and leaves nothing behind.
TEST(Outputs, AFileSizeLimitAnywhereInAnImportIsOneErrorAndLeavesNothing) {
  int failed = 0, failed_in_pages = 0, imported = 0;
  // sh's ulimit -f counts blocks of 512 bytes.
  for (const int blocks : {192, 256, 320, 384, 448, 512, 640, 1024}) {
    TempDir dir;
    const std::string err = dir.file("err");
    const std::string out = dir.file("out") + "/one.db";
    fs::create_directory(dir.file("out"));
    const std::string cmd = "ulimit -f " + std::to_string(blocks) +
                            " && " TRAINSCOPE_BIN
                            " import tests/data/pytorch/gpu/two_ranks/rank-0.json.gz -o " +
                            out + " 2>" + err + " >/dev/null";
    const int raw = std::system(("sh -c '" + cmd + "'").c_str());
    ASSERT_TRUE(WIFEXITED(raw)) << blocks << " blocks: killed by signal "
                                << (WIFSIGNALED(raw) ? WTERMSIG(raw) : 0);
    if (WEXITSTATUS(raw) == 0) {
      ++imported;
      EXPECT_TRUE(fs::exists(out)) << blocks;
      continue;
    }
    ++failed;
    EXPECT_EQ(WEXITSTATUS(raw), 2) << blocks;
    const std::string text = read_file(err);
    EXPECT_EQ(line_count(text), 1u) << text;
    EXPECT_NE(text.find("File too large"), std::string::npos) << text;
    if (text.find("cannot append rows") != std::string::npos) ++failed_in_pages;
    EXPECT_TRUE(fs::is_empty(dir.file("out"))) << blocks << " blocks: left behind";
  }
  EXPECT_GT(failed, 0);
  EXPECT_GT(failed_in_pages, 0);
  EXPECT_GT(imported, 0);
}

TEST(Outputs, AFifoWithAReaderReceivesTheExport) {
  TempDir dir;
  const std::string fifo = dir.file("trace.fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  // The test holds a write end too, so that the reader sees the end of the data only once the
  // export has closed its own.
  const int in = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(in, 0);
  const int keep = ::open(fifo.c_str(), O_WRONLY);
  ASSERT_GE(keep, 0);
  std::string received;
  std::thread reader([&] {
    char buf[65536];
    for (;;) {
      pollfd p{in, POLLIN, 0};
      if (::poll(&p, 1, 1000) < 0) break;
      const ssize_t n = ::read(in, buf, sizeof buf);
      if (n == 0) break;
      if (n > 0) received.append(buf, static_cast<std::size_t>(n));
    }
  });
  const CommandResult r = run_trainscope("export " + kTrace + " --chrome " + fifo);
  ::close(keep);
  reader.join();
  ::close(in);
  EXPECT_EQ(r.status, 0) << r.err;
  struct stat st {};
  ASSERT_EQ(::lstat(fifo.c_str(), &st), 0);
  EXPECT_TRUE(S_ISFIFO(st.st_mode)) << "the FIFO was replaced";
  const Json j = Json::parse(received);
  EXPECT_FALSE(j.at("traceEvents").empty());
  EXPECT_FALSE(fs::exists(fifo + ".partial"));
}

// /dev/stdout when standard output is a pipe: the link ends in "pipe:[…]", which only the kernel
// can open, so the export writes to the name it was given.
TEST(Outputs, DevStdoutOnAPipeReceivesTheExport) {
  TempDir dir;
  const std::string out = dir.file("trace.json.gz");
  const CommandResult r = run_shell("bash -c 'set -o pipefail; " TRAINSCOPE_BIN " export " +
                                    kTrace + " --chrome /dev/stdout | gzip -c > " + out + "'");
  ASSERT_EQ(r.status, 0) << r.err;
  const CommandResult unzipped = run_shell("gzip -dc " + out);
  ASSERT_EQ(unzipped.status, 0) << unzipped.err;
  EXPECT_FALSE(Json::parse(unzipped.out).at("traceEvents").empty());
}

TEST(Outputs, ASymbolicLinkStaysALinkAndItsTargetGetsTheContent) {
  TempDir dir;
  fs::create_directory(dir.file("real"));
  const std::string target = dir.file("real/out.json");
  const std::string link = dir.file("out.json");
  fs::create_symlink("real/out.json", link);  // relative to the link's directory, dangling
  for (int run = 0; run < 2; ++run) {         // creates the target, then replaces it
    const CommandResult r = run_trainscope("export " + kTrace + " --chrome " + link);
    ASSERT_EQ(r.status, 0) << r.err;
    EXPECT_TRUE(fs::is_symlink(link));
    EXPECT_EQ(fs::read_symlink(link), "real/out.json");
    EXPECT_FALSE(Json::parse(read_file(target)).at("traceEvents").empty());
    EXPECT_FALSE(fs::exists(target + ".partial"));
  }

  const std::string xml_link = dir.file("junit.xml");
  fs::create_symlink(dir.file("real/junit.xml"), xml_link);
  const CommandResult c =
      run_trainscope("check " + kTrace + " --max-input-pct 100 --junit " + xml_link);
  ASSERT_EQ(c.status, 0) << c.err;
  EXPECT_TRUE(fs::is_symlink(xml_link));
  EXPECT_NE(read_file(dir.file("real/junit.xml")).find("<testsuites"), std::string::npos);

  const std::string db_link = dir.file("imported.db");
  fs::create_symlink(dir.file("real/imported.db"), db_link);
  const CommandResult i = run_trainscope("import " + kPyTorch + " -o " + db_link);
  ASSERT_EQ(i.status, 0) << i.err;
  EXPECT_TRUE(fs::is_symlink(db_link));
  EXPECT_EQ(run_trainscope("report " + dir.file("real/imported.db")).status, 0);
}

TEST(Outputs, AnOutputThatIsAnInputIsRefused) {
  TempDir dir;
  const std::string copy = dir.file("run.db");
  fs::copy_file(kTrace, copy);
  const std::string before = read_file(copy);
  expect_one_error(
      run_trainscope("check " + copy + " --max-input-pct 100 --junit " + dir.path() + "/./run.db"),
      "would overwrite");
  expect_one_error(run_trainscope("import " + kPyTorch + " -o " + kPyTorch), "would overwrite");
  EXPECT_EQ(read_file(copy), before);
}

// A small file system of its own (tmpfs, as root): an export that fills it fails with one error
// and leaves the file it would have replaced as it was, and no temporary file.
TEST(Outputs, AFullDiskLeavesTheOldFileAndNoPartialOne) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a small tmpfs needs root";
  TempDir dir;
  const std::string mnt = dir.file("small");
  fs::create_directory(mnt);
  if (::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=64k") != 0)
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  const std::string out = mnt + "/out.json";
  write_file(out, "old content");
  const CommandResult r = run_trainscope("export " + kTrace + " --chrome " + out);
  EXPECT_EQ(read_file(out), "old content");
  EXPECT_FALSE(fs::exists(out + ".partial"));
  ::umount2(mnt.c_str(), MNT_DETACH);
  expect_one_error(r, "No space left on device");
}

}  // namespace
}  // namespace ts::test
