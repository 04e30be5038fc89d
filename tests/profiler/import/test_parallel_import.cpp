// Files imported on several threads and written in file order: the in-order pipeline
// (common/parallel_files.hpp), and whole imports of several files with one thread and with
// several, which must write the same trace.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "profiler/import/common/parallel_files.hpp"
#include "profiler/store/events_checksum.hpp"
#include "profiler/synth/kineto_job.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;

// Records what the pipeline does: the order files are consumed in, and the most files in flight
// (produce started, consume not finished).
struct Recorder {
  std::mutex mutex;
  std::vector<std::size_t> consumed;
  std::vector<int> produced;  // per file: times produce ran
  std::atomic<int> in_flight{0};
  std::atomic<int> most_in_flight{0};
  explicit Recorder(std::size_t n) : produced(n, 0) {}

  void produce(std::size_t k) {
    const int now = ++in_flight;
    int most = most_in_flight.load();
    while (now > most && !most_in_flight.compare_exchange_weak(most, now)) {
    }
    // Files finish out of order: later ones are quicker.
    std::this_thread::sleep_for(std::chrono::microseconds(50 * ((k * 7) % 5)));
    std::lock_guard lock(mutex);
    ++produced[k];
  }
  void consume(std::size_t k) {
    {
      std::lock_guard lock(mutex);
      EXPECT_EQ(produced[k], 1) << "file " << k << " consumed before it was produced";
      consumed.push_back(k);
    }
    --in_flight;
  }
};

TEST(ParallelFiles, ConsumesInFileOrderWithinTheWindow) {
  constexpr std::size_t kFiles = 40;
  Recorder r(kFiles);
  InOrderOptions o;
  o.workers = 3;
  o.window = 4;
  produce_and_consume_in_order(
      kFiles, o, [&](std::size_t k) { r.produce(k); }, [&](std::size_t k) { r.consume(k); });
  ASSERT_EQ(r.consumed.size(), kFiles);
  for (std::size_t k = 0; k < kFiles; ++k) {
    EXPECT_EQ(r.consumed[k], k);
    EXPECT_EQ(r.produced[k], 1);
  }
  EXPECT_LE(r.most_in_flight.load(), 4);
  EXPECT_GE(r.most_in_flight.load(), 1);
}

TEST(ParallelFiles, WithoutWorkersProducesThenConsumesEachFileInTurn) {
  std::vector<std::string> log;
  InOrderOptions o;  // workers = 0
  produce_and_consume_in_order(
      3, o, [&](std::size_t k) { log.push_back("p" + std::to_string(k)); },
      [&](std::size_t k) { log.push_back("c" + std::to_string(k)); });
  EXPECT_EQ(log, (std::vector<std::string>{"p0", "c0", "p1", "c1", "p2", "c2"}));
}

TEST(ParallelFiles, AProduceErrorIsRethrownForTheFirstFailingFileInOrder) {
  constexpr std::size_t kFiles = 30;
  for (int round = 0; round < 20; ++round) {
    std::atomic<std::size_t> produced{0};
    std::vector<std::size_t> consumed;
    InOrderOptions o;
    o.workers = 4;
    o.window = 5;
    try {
      produce_and_consume_in_order(
          kFiles, o,
          [&](std::size_t k) {
            ++produced;
            // File 11 fails late, file 13 at once: 11 is still the one reported.
            if (k == 11) {
              std::this_thread::sleep_for(std::chrono::milliseconds(2));
              throw std::runtime_error("file 11 is bad");
            }
            if (k == 13) throw std::runtime_error("file 13 is bad");
          },
          [&](std::size_t k) { consumed.push_back(k); });
      FAIL() << "no error";
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(), "file 11 is bad");
    }
    for (std::size_t i = 0; i < consumed.size(); ++i) EXPECT_EQ(consumed[i], i);
    EXPECT_LE(consumed.size(), 11u);
    EXPECT_LE(produced.load(), 11u + o.window);  // nothing past the window is started
  }
}

TEST(ParallelFiles, AConsumeErrorStopsTheWorkers) {
  constexpr std::size_t kFiles = 100;
  std::atomic<std::size_t> produced{0};
  InOrderOptions o;
  o.workers = 2;
  o.window = 3;
  EXPECT_THROW(produce_and_consume_in_order(
                   kFiles, o, [&](std::size_t) { ++produced; },
                   [&](std::size_t k) {
                     if (k == 5) throw std::logic_error("cannot write file 5");
                   }),
               std::logic_error);
  EXPECT_LE(produced.load(), 5u + o.window);
}

// A job of several rank files, imported with `threads`; the trace's checksum (every table and
// index: events, tracks, processes, strings, meta).
store::EventsChecksum import_job(const ImportDir& dir, const std::string& job, int threads,
                                 const std::string& out_name) {
  ImportOptions o;
  o.threads = threads;
  const std::vector<std::string> sources{job};
  const ImportStats s = import_traces(sources, dir.file(out_name), o);
  EXPECT_EQ(s.processes, 6);
  const auto sum = store::events_checksum(dir.file(out_name));
  EXPECT_TRUE(sum.has_value());
  return sum.value_or(store::EventsChecksum{});
}

TEST(ParallelImport, SeveralThreadsWriteTheTraceOneThreadWrites) {
  ImportDir dir;
  synth::KinetoJobOptions job;
  job.ranks = 6;
  job.steps = 4;
  job.kernels_per_step = 12;
  job.threads = 1;
  synth::write_kineto_job(dir.file("job"), job);
  const store::EventsChecksum one = import_job(dir, dir.file("job"), 1, "one.db");
  for (const int threads : {2, 3, 8}) {
    const store::EventsChecksum many =
        import_job(dir, dir.file("job"), threads, "t" + std::to_string(threads) + ".db");
    EXPECT_EQ(many.checksum, one.checksum) << threads << " threads";
    EXPECT_EQ(many.bytes, one.bytes) << threads << " threads";
  }
  // And the processes are the ranks, in rank order.
  store::Reader r(dir.file("t3.db"));
  const auto events = test::all_events(r);
  EXPECT_FALSE(events.empty());
  EXPECT_EQ(test::meta_or(r, "import.processes"), "6");
}

TEST(ParallelImport, SeveralTensorFlowHostsWriteTheTraceOneThreadWrites) {
  ImportDir dir;
  const std::vector<std::string> sources{"tests/data/tensorflow/two_hosts"};
  ImportOptions o;
  o.threads = 1;
  import_traces(sources, dir.file("one.db"), o);
  o.threads = 4;
  import_traces(sources, dir.file("four.db"), o);
  const auto one = store::events_checksum(dir.file("one.db"));
  const auto four = store::events_checksum(dir.file("four.db"));
  ASSERT_TRUE(one && four);
  EXPECT_EQ(one->checksum, four->checksum);
}

TEST(ParallelImport, ABadFileEndsTheImportNamingTheFirstBadFile) {
  ImportDir dir;
  std::filesystem::create_directory(dir.file("job"));
  const std::string good =
      test::kineto_trace({test::x_event("cpu_op", "aten::mm", 1, 1, "100", "10")});
  for (int rank = 0; rank < 12; ++rank) {
    const std::string name = "job/rank-" + std::to_string(rank) + ".json";
    if (rank == 4)
      dir.write(name, "{\"traceEvents\": 12}");  // no array of events
    else if (rank == 9)
      dir.write(name, "{\"traceEvents\": [{\"ph\": \"X\", \"name\": ");  // cut before any event
    else
      dir.write(name, good);
  }
  for (const int threads : {1, 4}) {
    ImportOptions o;
    o.threads = threads;
    const std::vector<std::string> sources{dir.file("job")};
    try {
      import_traces(sources, dir.file("out.db"), o);
      FAIL() << "imported a directory with bad files";
    } catch (const ImportError& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("rank-4.json"), std::string::npos) << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << what;
    }
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.db")));
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.partial")));
  }
}

TEST(ParallelImport, ProgressIsReportedAfterEachFileInOrder) {
  ImportDir dir;
  synth::KinetoJobOptions job;
  job.ranks = 5;
  job.steps = 2;
  job.kernels_per_step = 6;
  job.threads = 1;
  synth::write_kineto_job(dir.file("job"), job);
  std::uint64_t on_disk = 0;
  for (const auto& f : std::filesystem::directory_iterator(dir.file("job")))
    on_disk += f.file_size();
  std::vector<ImportProgress> seen;
  ImportOptions o;
  o.threads = 3;
  o.progress = [&](const ImportProgress& p) { seen.push_back(p); };
  const std::vector<std::string> sources{dir.file("job")};
  import_traces(sources, dir.file("out.db"), o);
  // At the start, after each file but the last, then while the files' events are written (at
  // 0, then after each batch), then once the trace is finished.
  ASSERT_GE(seen.size(), 8u);
  for (std::size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(seen[i].files_done, i);
    EXPECT_EQ(seen[i].events, 0u);
    if (i > 0) {
      EXPECT_GT(seen[i].bytes_done, seen[i - 1].bytes_done);
    }
  }
  std::uint64_t written = 0;
  for (std::size_t i = 5; i + 1 < seen.size(); ++i) {
    EXPECT_EQ(seen[i].files_done, 5u);
    EXPECT_GT(seen[i].events, 0u);
    EXPECT_GE(seen[i].events_written, written);
    EXPECT_LE(seen[i].events_written, seen[i].events);
    EXPECT_FALSE(seen[i].finished);
    written = seen[i].events_written;
  }
  EXPECT_EQ(seen[5].events_written, 0u);
  EXPECT_EQ(written, seen[5].events);  // every event written
  for (std::size_t i = 0; i < seen.size(); ++i) {
    EXPECT_EQ(seen[i].files, 5u);
    EXPECT_EQ(seen[i].bytes, on_disk);
    if (i > 0) {
      EXPECT_GE(seen[i].seconds, seen[i - 1].seconds);
    }
  }
  EXPECT_TRUE(seen.back().finished);
  EXPECT_EQ(seen.back().bytes_done, on_disk);
}

}  // namespace
}  // namespace ts::import
