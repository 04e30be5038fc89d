#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "engine/data/pipeline/pipeline.hpp"
#include "fake_source.hpp"

namespace ts {
namespace {

using test::FakeSource;
namespace fs = std::filesystem;

class PipelineCache : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("ts_cache_" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  PipelineOptions opts(CacheMode mode, int parallel) const {
    PipelineOptions o;
    o.batch_size = 7;
    o.parallel = parallel;
    o.prefetch = 2;
    o.cache = mode;
    o.cache_path = (dir_ / "samples.cache").string();
    return o;
  }

  static std::vector<HostBatch> epoch(Pipeline& p, int e) {
    p.start_epoch(e);
    std::vector<HostBatch> out;
    HostBatch b;
    while (p.next(b)) out.push_back(b);
    return out;
  }

  fs::path dir_;
};

TEST_F(PipelineCache, MemoryCacheLoadsEachSampleOnceAndServesTheSameData) {
  auto source = std::make_shared<FakeSource>(50);
  Pipeline uncached(source, opts(CacheMode::none, 2));
  const auto want = epoch(uncached, 1);
  source->loads_ = 0;
  Pipeline cached(source, opts(CacheMode::memory, 2));
  epoch(cached, 0);
  const auto got = epoch(cached, 1);
  EXPECT_EQ(source->loads_.load(), 50);
  EXPECT_EQ(cached.stats().samples_loaded, 50);
  EXPECT_EQ(cached.stats().cache_hits, 50);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].images, want[i].images);
    EXPECT_EQ(got[i].labels, want[i].labels);
  }
}

TEST_F(PipelineCache, FileCacheIsReusedByALaterRunAndRebuiltWhenItDoesNotMatch) {
  auto source = std::make_shared<FakeSource>(50);
  std::vector<HostBatch> first;
  {
    Pipeline p(source, opts(CacheMode::file, 2));
    epoch(p, 0);
    first = epoch(p, 1);
    EXPECT_EQ(p.stats().samples_loaded, 50);
  }
  source->loads_ = 0;
  {
    Pipeline p(source, opts(CacheMode::file, 1));
    EXPECT_NE(p.stats().cache.find("reused"), std::string::npos);
    epoch(p, 0);
    const auto again = epoch(p, 1);
    EXPECT_EQ(source->loads_.load(), 0);
    ASSERT_EQ(again.size(), first.size());
    for (std::size_t i = 0; i < again.size(); ++i) EXPECT_EQ(again[i].images, first[i].images);
  }
  // A different source (another size) must not reuse it.
  auto other = std::make_shared<FakeSource>(50, 5);
  Pipeline p(other, opts(CacheMode::file, 1));
  EXPECT_EQ(p.stats().cache.find("reused"), std::string::npos);
  epoch(p, 0);
  EXPECT_EQ(other->loads_.load(), 50);
}

TEST_F(PipelineCache, AnUnfinishedFileCacheIsRebuilt) {
  auto source = std::make_shared<FakeSource>(50);
  {
    Pipeline p(source, opts(CacheMode::file, 2));
    HostBatch b;
    ASSERT_TRUE(p.next(b));  // stops after one batch: the cache is incomplete
  }
  source->loads_ = 0;
  Pipeline p(source, opts(CacheMode::file, 2));
  EXPECT_EQ(p.stats().cache.find("reused"), std::string::npos);
  epoch(p, 0);
  EXPECT_EQ(source->loads_.load(), 50);
}

TEST_F(PipelineCache, AGarbageCacheFileIsRebuiltAndAnUnwritablePathFailsClearly) {
  { std::ofstream(dir_ / "samples.cache") << "not a cache"; }
  auto source = std::make_shared<FakeSource>(20);
  {
    Pipeline p(source, opts(CacheMode::file, 0));
    EXPECT_EQ(epoch(p, 0).size(), 3u);
  }
  PipelineOptions bad = opts(CacheMode::file, 0);
  bad.cache_path = (dir_ / "missing" / "x.cache").string();
  try {
    Pipeline p(source, bad);
    FAIL();
  } catch (const DatasetError& e) {
    EXPECT_NE(std::string(e.what()).find("missing/x.cache"), std::string::npos);
  }
}

}  // namespace
}  // namespace ts
