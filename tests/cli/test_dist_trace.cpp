// Sending a rank's trace part to rank 0 (cli/dist_trace.hpp: send_file, receive_file) between
// two threads standing in for the ranks: a file arrives byte for byte, in several chunks; a file
// the sender cannot read in full (here one that shrinks while it is sent) is never stored, and
// what rank 0 had at that path stays; a missing file sends nothing.
#include <gtest/gtest.h>

#include <condition_variable>
#include <cstring>
#include <deque>
#include <filesystem>
#include <functional>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>

#include "cli/dist_trace.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::test {
namespace {

// Point-to-point messages between the threads of one process, in order per (from, to, tag).
class Mailboxes {
 public:
  void put(int from, int to, int tag, std::string bytes) {
    {
      const std::lock_guard lock(mutex_);
      boxes_[{from, to, tag}].push_back(std::move(bytes));
    }
    ready_.notify_all();
  }
  std::string take(int from, int to, int tag) {
    std::unique_lock lock(mutex_);
    auto& box = boxes_[{from, to, tag}];
    ready_.wait(lock, [&] { return !box.empty(); });
    std::string bytes = std::move(box.front());
    box.pop_front();
    return bytes;
  }

 private:
  std::mutex mutex_;
  std::condition_variable ready_;
  std::map<std::tuple<int, int, int>, std::deque<std::string>> boxes_;
};

// Rank `rank` of two; only point to point. `after_send` runs after each message it sends.
class PairCommunicator final : public dist::Communicator {
 public:
  PairCommunicator(Mailboxes& boxes, int rank) : boxes_(boxes), rank_(rank) {}
  std::function<void()> after_send;

  int rank() const override { return rank_; }
  int size() const override { return 2; }
  std::string backend() const override { return "pair"; }
  void allreduce(float*, std::size_t, float) override { unused(); }
  void allreduce(double*, std::size_t) override { unused(); }
  void start_allreduce(float*, std::size_t) override { unused(); }
  bool progress() override { return true; }
  void wait_all() override {}
  void broadcast(void*, std::size_t, int) override { unused(); }
  void barrier() override { unused(); }
  std::vector<std::string> allgather(const std::string&) override { unused(); }
  void send(const void* data, std::size_t bytes, int to, int tag) override {
    boxes_.put(rank_, to, tag, std::string(static_cast<const char*>(data), bytes));
    if (after_send) after_send();
  }
  void recv(void* data, std::size_t bytes, int from, int tag) override {
    const std::string got = boxes_.take(from, rank_, tag);
    if (got.size() != bytes) throw std::logic_error("message of another size");
    std::memcpy(data, got.data(), bytes);
  }
  [[noreturn]] void abort(int) override { std::abort(); }

 private:
  [[noreturn]] static void unused() { throw std::logic_error("not used here"); }
  Mailboxes& boxes_;
  int rank_;
};

struct Transfer {
  std::string sent, received;  // what send_file and receive_file returned
};

// Rank 1 sends `from` and rank 0 stores it at `to`, each in its own thread.
Transfer transfer(const std::string& from, const std::string& to,
                  std::function<void()> after_send = {}) {
  Mailboxes boxes;
  PairCommunicator rank0(boxes, 0), rank1(boxes, 1);
  rank1.after_send = std::move(after_send);
  Transfer t;
  std::thread sender([&] { t.sent = cli::send_file(rank1, from, 0); });
  t.received = cli::receive_file(rank0, to, 1);
  sender.join();
  return t;
}

std::string bytes_of(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 131 + i / 4099) & 0xff);
  return s;
}

TEST(DistTrace, APartArrivesWholeInSeveralChunks) {
  TempDir dir;
  const std::string content = bytes_of((std::size_t{9} << 20) + 12345);  // three chunks
  write_file(dir.file("sent.part"), content);
  write_file(dir.file("got.part"), "an older file");
  write_file(dir.file("got.part-wal"), "its old -wal");
  const Transfer t = transfer(dir.file("sent.part"), dir.file("got.part"));
  EXPECT_EQ(t.sent, "");
  EXPECT_EQ(t.received, "");
  EXPECT_TRUE(read_file(dir.file("got.part")) == content);
  EXPECT_FALSE(std::filesystem::exists(dir.file("got.part-wal"))) << "the old file's -wal goes";
  EXPECT_FALSE(std::filesystem::exists(dir.file("got.part.recv")));
}

TEST(DistTrace, APartThatCannotBeReadInFullIsNeverStored) {
  TempDir dir;
  const std::string sent = dir.file("sent.part");
  write_file(sent, bytes_of((std::size_t{9} << 20) + 12345));
  write_file(dir.file("got.part"), "an older file");
  // Once the size is announced (the first message), the file shrinks to 5 MiB: the second
  // chunk comes short.
  int messages = 0;
  const Transfer t = transfer(sent, dir.file("got.part"), [&] {
    if (++messages == 1) std::filesystem::resize_file(sent, std::size_t{5} << 20);
  });
  const std::string where = "after 4194304 of 9449529 bytes";
  EXPECT_NE(t.sent.find("reading " + sent + " failed " + where + " (the file ended early)"),
            std::string::npos)
      << t.sent;
  EXPECT_NE(t.received.find("rank 1 could not read it " + where), std::string::npos) << t.received;
  EXPECT_EQ(read_file(dir.file("got.part")), "an older file") << "nothing replaces it";
  EXPECT_FALSE(std::filesystem::exists(dir.file("got.part.recv"))) << "the partial copy goes";
}

TEST(DistTrace, AMissingPartSendsNothing) {
  TempDir dir;
  const Transfer t = transfer(dir.file("absent.part"), dir.file("got.part"));
  EXPECT_EQ(t.sent, "");
  EXPECT_EQ(t.received, "");
  EXPECT_FALSE(std::filesystem::exists(dir.file("got.part")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("got.part.recv")));
}

}  // namespace
}  // namespace ts::test
