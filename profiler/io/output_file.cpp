#include "profiler/io/output_file.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <optional>
#include <streambuf>
#include <utility>
#include <vector>

#include "profiler/json/writer.hpp"
#include "profiler/store/drop_behind.hpp"

namespace ts::io {

namespace {

using json::WriteError;

[[noreturn]] void fail(const std::string& name, int err) {
  throw WriteError("cannot write " + name + ": " + std::strerror(err != 0 ? err : EIO));
}

// A stream buffer on a file descriptor that keeps the errno of the first failed write (an
// ofstream only says that something failed). A new regular file is written past the page cache
// (store::DropBehind): it is synced at its end anyway.
class FdBuf final : public std::streambuf {
 public:
  FdBuf(int fd, bool new_file) : fd_(fd), buf_(std::size_t{1} << 16) {
    if (new_file) drop_behind_.emplace(fd);
    setp(buf_.data(), buf_.data() + buf_.size());
  }
  int error() const { return error_; }

 protected:
  int_type overflow(int_type c) override {
    if (!drain()) return traits_type::eof();
    if (!traits_type::eq_int_type(c, traits_type::eof())) {
      *pptr() = traits_type::to_char_type(c);
      pbump(1);
    }
    return traits_type::not_eof(c);
  }
  int sync() override { return drain() ? 0 : -1; }

 private:
  bool drain() {
    if (error_ != 0) return false;
    for (const char* p = pbase(); p < pptr();) {
      const ssize_t n = ::write(fd_, p, static_cast<std::size_t>(pptr() - p));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        error_ = n < 0 ? errno : EIO;
        return false;
      }
      p += n;
      written_ += static_cast<std::uint64_t>(n);
    }
    if (drop_behind_) drop_behind_->written(written_);
    setp(buf_.data(), buf_.data() + buf_.size());
    return true;
  }

  int fd_;
  int error_ = 0;
  std::vector<char> buf_;
  std::uint64_t written_ = 0;
  std::optional<store::DropBehind> drop_behind_;
};

// Runs `write` into `fd` and flushes: 0, or the errno of the first failed write. `new_file`: `fd`
// is a regular file created for this output, written from its start.
int write_fd(int fd, const std::function<void(std::ostream&)>& write, bool new_file = false) {
  FdBuf buf(fd, new_file);
  std::ostream out(&buf);
  try {
    write(out);
  } catch (const WriteError&) {
    if (buf.error() == 0) throw;
    return buf.error();
  }
  out.flush();
  if (buf.error() != 0) return buf.error();
  return out ? 0 : EIO;
}

// `path` with symbolic links at its end followed (a link to a link, a dangling link: the file it
// would create).
std::string follow_links(std::string path) {
  for (int hops = 0; hops < 40; ++hops) {
    struct stat st {};
    if (::lstat(path.c_str(), &st) != 0 || !S_ISLNK(st.st_mode)) return path;
    std::vector<char> target(static_cast<std::size_t>(st.st_size > 0 ? st.st_size : 255) + 2);
    const ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0 || static_cast<std::size_t>(n) >= target.size()) return path;
    const std::string to(target.data(), static_cast<std::size_t>(n));
    const std::size_t slash = path.rfind('/');
    path = to.front() == '/' || slash == std::string::npos ? to : path.substr(0, slash + 1) + to;
  }
  throw WriteError("cannot write " + path + ": " + std::strerror(ELOOP));
}

// A file the process closes on every path out.
struct Fd {
  int fd;
  explicit Fd(int f) : fd(f) {}
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int release() { return std::exchange(fd, -1); }
};

void write_in_place(const std::string& name, const std::string& target,
                    const std::function<void(std::ostream&)>& write) {
  Fd file(::open(target.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY));
  if (file.fd < 0) fail(name, errno);
  if (const int err = write_fd(file.fd, write)) fail(name, err);
  if (::close(file.release()) != 0) fail(name, errno);
}

void write_and_rename(const std::string& name, const std::string& target, const struct stat* old,
                      const std::function<void(std::ostream&)>& write) {
  const std::string partial = target + ".partial";
  ::unlink(partial.c_str());  // never write through whatever a crashed run left there
  Fd file(::open(partial.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666));
  if (file.fd < 0) fail(name, errno);
  if (old != nullptr) (void)::fchmod(file.fd, old->st_mode & 07777);  // keep the file's mode
  int err = 0;
  try {
    err = write_fd(file.fd, write, true);
    if (err == 0 && ::fsync(file.fd) != 0 && errno != EINVAL && errno != ENOTSUP) err = errno;
    if (::close(file.release()) != 0 && err == 0) err = errno;
  } catch (...) {
    ::unlink(partial.c_str());
    throw;
  }
  if (err == 0 && ::rename(partial.c_str(), target.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(partial.c_str());
    fail(name, err);
  }
}

}  // namespace

void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::string& name) {
  const std::string& named = name.empty() ? path : name;
  if (path == "-") {
    std::cout.flush();
    if (const int err = write_fd(STDOUT_FILENO, write))
      fail(name.empty() ? "to standard output" : name, err);
    return;
  }
  // A device, FIFO or socket is opened by the name given, the kernel resolving any link: the
  // link /dev/stdout -> /proc/self/fd/1 -> "pipe:[…]" names no path that could be followed by hand.
  if (struct stat direct{};
      ::stat(path.c_str(), &direct) == 0 && !S_ISREG(direct.st_mode) && !S_ISDIR(direct.st_mode))
    return write_in_place(named, path, write);
  const std::string target = follow_links(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0) return write_and_rename(named, target, nullptr, write);
  if (S_ISDIR(st.st_mode)) fail(named, EISDIR);
  if (S_ISREG(st.st_mode)) return write_and_rename(named, target, &st, write);
  write_in_place(named, target, write);
}

std::string regular_output_path(const std::string& path) {
  const std::string target = follow_links(path);
  struct stat st {};
  if (::stat(target.c_str(), &st) != 0 || S_ISREG(st.st_mode)) return target;
  if (S_ISDIR(st.st_mode)) fail(path, EISDIR);
  throw WriteError("cannot write " + path +
                   ": it exists and is not a regular file (a device or a FIFO), which a "
                   "trace cannot be written to");
}

bool same_output(const std::string& a, const std::string& b) {
  std::error_code ec;
  if (std::filesystem::equivalent(a, b, ec)) return true;
  const auto resolved = [&ec](const std::string& p) {
    return std::filesystem::weakly_canonical(std::filesystem::absolute(follow_links(p), ec), ec);
  };
  const auto ca = resolved(a);
  if (ec) return a == b;
  const auto cb = resolved(b);
  return !ec && ca == cb;
}

}  // namespace ts::io
