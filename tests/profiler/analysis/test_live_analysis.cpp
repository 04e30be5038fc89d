// LiveAnalysis (live_analysis.hpp): reload after reload of a capture still running, its report
// equals analyse() of the same trace, field for field and gap for gap, while it reads only the
// events after the pass it kept; events committed late, a change in the analysed steps and a new
// trainer thread make it read everything again.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "profiler/analysis/live_analysis.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using ts::store::EventRow;
using ts::trace::Category;

constexpr std::uint32_t kTrainer = 1, kDevice = 2, kCopy = 3, kWorker = 4, kSecondTrainer = 5;
constexpr std::int64_t kStepNs = 1'000'000;

// A capture still running: a staged writer taking steps of about 1 ms (an input wait, launches, a
// sync), their kernels and copies on device queues, a worker's read and decode zones; each step's
// device events can be held back and committed with a later commit, as a capture collecting
// device events late does.
class Capture {
 public:
  explicit Capture(const std::string& path) : w_(path, staged()) {
    const std::pair<const char*, Category> labels[] = {{"step", Category::step},
                                                       {"wait", Category::input_wait},
                                                       {"launch", Category::launch},
                                                       {"sync", Category::sync},
                                                       {"gemm", Category::kernel},
                                                       {"relu", Category::kernel},
                                                       {"h2d", Category::h2d},
                                                       {"read", Category::input_read},
                                                       {"decode", Category::input_decode}};
    std::uint32_t id = 1;
    for (const auto& [name, category] : labels) {
      w_.put_string(id, name);
      w_.put_label(id, id, category);
      ++id;
    }
    w_.put_track(kTrainer, "trainer", ts::trace::TrackKind::thread, 1);
    w_.put_track(kDevice, "gpu0 compute", ts::trace::TrackKind::device_queue);
    w_.put_track(kCopy, "gpu0 copy", ts::trace::TrackKind::device_queue);
    w_.put_track(kWorker, "worker", ts::trace::TrackKind::thread, 2);
    w_.put_meta("engine.batch", "32");
    w_.commit();
  }

  // `n` steps on `trainer`; device events of every `late_every`-th step wait for the next commit.
  void steps(int n, int late_every = 0, std::uint32_t trainer = kTrainer) {
    std::vector<EventRow> now, held;
    for (int i = 0; i < n; ++i, ++step_) {
      const std::int64_t t = t_;
      const std::int64_t wait = 20'000 + static_cast<std::int64_t>(rng_() % 300'000);
      now.push_back({t, kStepNs + wait, trainer, 1, step_});
      now.push_back({t + 1'000, wait, trainer, 2, step_});
      now.push_back({t - 400'000, 350'000, kWorker, 8, step_});
      now.push_back({t - 300'000, 200'000, kWorker, 9, step_});
      std::vector<EventRow>& device = late_every > 0 && step_ % late_every == 0 ? held : now;
      const std::int64_t k0 = t + wait + 10'000;
      device.push_back({k0, 40'000, kCopy, 7, step_, 4096});
      for (int k = 0; k < 4; ++k) {
        const std::int64_t launch = k0 + 50'000 + k * 200'000;
        now.push_back(
            {launch, 5'000, trainer, 3, step_, ts::store::kNull, ts::store::kNull, step_ * 10 + k});
        device.push_back({launch + 20'000 + static_cast<std::int64_t>(rng_() % 30'000),
                          120'000 + static_cast<std::int64_t>(rng_() % 40'000), kDevice,
                          static_cast<std::uint32_t>(5 + k % 2), step_, ts::store::kNull, 256,
                          step_ * 10 + k});
      }
      now.push_back({t + wait + kStepNs - 60'000, 50'000, trainer, 4, step_});
      t_ += kStepNs + wait + 5'000;
    }
    commit(now);
    late_.insert(late_.end(), held.begin(), held.end());
  }
  // Commits what was held back.
  void late() {
    commit(late_);
    late_.clear();
  }
  void meta(const char* key, const char* value) {
    w_.put_meta(key, value);
    w_.commit();
  }
  void new_trainer() { w_.put_track(kSecondTrainer, "trainer 2", ts::trace::TrackKind::thread, 3); }

 private:
  static ts::store::WriterOptions staged() {
    ts::store::WriterOptions o;
    o.staged = true;
    return o;
  }
  void commit(std::vector<EventRow> rows) {
    w_.append(std::span<const EventRow>(rows));
    w_.commit();
  }

  ts::store::Writer w_;
  std::mt19937_64 rng_{7};
  std::int64_t t_ = 1'000'000'000;
  std::int64_t step_ = 0;
  std::vector<EventRow> late_;
};

// The live report equals the whole analysis of the same trace.
void expect_same(const a::Report& live, const a::Report& whole) {
  EXPECT_EQ(a::to_json(live), a::to_json(whole));
  EXPECT_EQ(a::encode_report(live), a::encode_report(whole));
  ASSERT_EQ(live.device.gaps.size(), whole.device.gaps.size());
  for (std::size_t i = 0; i < live.device.gaps.size(); ++i) {
    ASSERT_EQ(live.device.gaps[i].start_ns, whole.device.gaps[i].start_ns) << i;
    ASSERT_EQ(live.device.gaps[i].end_ns, whole.device.gaps[i].end_ns) << i;
    ASSERT_EQ(live.device.gaps[i].cause, whole.device.gaps[i].cause) << i;
  }
}

class LiveAnalysisTest : public ::testing::TestWithParam<bool> {
 protected:
  // A reload: the reader takes in what was committed, and both analyses run.
  std::size_t reload() {
    if (!reader_) {
      reader_ = std::make_unique<ts::store::Reader>(path_);
    } else {
      reader_->refresh();
      live_.note_changed(reader_->changed_from_ns());
    }
    a::AnalysisOptions o;
    o.keep_gaps = GetParam();
    o.threads = 2;  // parts even on a short trace
    const a::Report whole = a::analyse(*reader_, o);
    expect_same(live_.analyse(*reader_, o), whole);
    return live_.reused_steps();
  }

  ts::test::TempDir dir_;
  std::string path_ = dir_.file("live.db");
  Capture capture_{path_};
  std::unique_ptr<ts::store::Reader> reader_;
  a::LiveAnalysis live_{20'000'000};  // keeps all but the last 20 ms of steps
};

TEST_P(LiveAnalysisTest, EqualsTheWholeAnalysisReadingOnlyWhatIsNew) {
  capture_.steps(40);
  EXPECT_EQ(reload(), 0u);  // the first reload reads everything
  std::size_t reused = 0;
  for (int r = 0; r < 6; ++r) {
    capture_.steps(30);
    const std::size_t now = reload();
    EXPECT_GT(now, reused) << "reload " << r << " keeps more each time";
    reused = now;
  }
  // Nothing new: the kept pass (moved up by the last reload) and the last milliseconds again.
  EXPECT_GE(reload(), reused);
}

TEST_P(LiveAnalysisTest, EventsCommittedLateAreNeverMissed) {
  capture_.steps(60);
  reload();
  for (int r = 0; r < 4; ++r) {
    capture_.steps(25, 5);  // every fifth step's device events come a commit later
    reload();
    capture_.late();
    reload();
  }
  // Held back long enough to reach before the kept pass: everything is read again, correctly.
  capture_.steps(40, 3);
  capture_.steps(40);
  reload();
  capture_.late();
  EXPECT_EQ(reload(), 0u);
}

TEST_P(LiveAnalysisTest, ChangesInTheAnalysedStepsOrTracksReadEverything) {
  capture_.steps(4);  // up to 5 steps, none is warm-up
  reload();
  capture_.steps(30);  // now the first is: the windows changed
  EXPECT_EQ(reload(), 0u);
  capture_.steps(30);
  EXPECT_GT(reload(), 0u);
  // A run caching its input: once a second epoch starts, the first one fills the cache and is
  // warm-up, so kernels the kept pass counted are left out now.
  capture_.meta("pipeline.cache", "memory");
  capture_.meta("fit.epoch_first_steps", "0");
  capture_.steps(30);
  reload();
  capture_.steps(30);
  EXPECT_GT(reload(), 0u);
  capture_.meta("fit.epoch_first_steps", "0,98");
  capture_.steps(30);
  EXPECT_EQ(reload(), 0u);
  capture_.steps(30);
  EXPECT_GT(reload(), 0u);
  capture_.new_trainer();  // a thread that will hold steps: the tracks' roles change
  capture_.steps(3, 0, kSecondTrainer);
  reload();
  capture_.steps(30);
  reload();
}

INSTANTIATE_TEST_SUITE_P(Gaps, LiveAnalysisTest, ::testing::Bool(),
                         [](const auto& info) { return info.param ? "listed" : "counted"; });

}  // namespace
