// engine/dist without MPI: the single-process communicator, the gradient reducer, and the
// data-parallel fit loop with ranks as threads (ThreadCommunicator): N ranks at batch B train
// as one process at batch N·B, with identical weights on every rank, whatever each rank's
// pipeline, its backend, the allreduce mode, or a last step that leaves a rank without samples.
#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <thread>

#include "engine/backend/cpu/cpu_backend.hpp"
#include "engine/data/pipeline/make_source.hpp"
#include "engine/dist/communicator.hpp"
#include "engine/dist/gradient_reducer.hpp"
#include "engine/nn/models.hpp"
#include "tests/engine/dist/thread_communicator.hpp"
#ifdef TRAINSCOPE_WITH_OPENCL
#include "engine/backend/opencl/opencl_backend.hpp"
#endif

namespace ts {
namespace {

using dist::AllreduceMode;
using dist::GradientReducer;

TEST(LocalCommunicator, IsOneRankThatOnlyScales) {
  dist::LocalCommunicator c;
  EXPECT_EQ(c.rank(), 0);
  EXPECT_EQ(c.size(), 1);
  std::vector<float> v{1, 2, 4};
  c.allreduce(v.data(), v.size(), 0.5f);
  EXPECT_EQ(v, (std::vector<float>{0.5f, 1, 2}));
  double d[2] = {3, 4};
  c.allreduce(d, 2);
  EXPECT_EQ(d[1], 4);
  EXPECT_EQ(c.allgather("x"), std::vector<std::string>{"x"});
  char b = 0;
  EXPECT_THROW(c.send(&b, 1, 1, 0), std::logic_error);
}

TEST(GradientReducer, ParsesItsModes) {
  EXPECT_EQ(dist::parse_allreduce_mode("blocking"), AllreduceMode::blocking);
  EXPECT_EQ(dist::parse_allreduce_mode("bucketed"), AllreduceMode::bucketed);
  EXPECT_THROW(dist::parse_allreduce_mode("ring"), std::invalid_argument);
}

// Two ranks reduce a 100-float buffer whose final part grows as "backward" passes layers.
std::vector<std::vector<float>> reduce_on_two_ranks(AllreduceMode mode, std::vector<int>* buckets) {
  test::ThreadGroup group(2);
  std::vector<std::vector<float>> data(2, std::vector<float>(100));
  std::vector<std::thread> ranks;
  if (buckets) buckets->assign(2, 0);
  for (int r = 0; r < 2; ++r)
    ranks.emplace_back([&, r] {
      test::ThreadCommunicator comm(group, r);
      GradientReducer reducer(comm, mode, 16 * sizeof(float));
      std::vector<float>& g = data[static_cast<std::size_t>(r)];
      for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<float>((r + 1) * i);
      // Rank 0 holds 3/4 of the step's samples, rank 1 a quarter: weights 1.5 and 0.5.
      reducer.begin(g.data(), g.size(), r == 0 ? 1.5f : 0.5f, 0.5f);
      for (const std::size_t from : {100u, 80u, 50u, 10u}) reducer.ready(from);
      reducer.finish();
      if (buckets) (*buckets)[static_cast<std::size_t>(r)] = comm.started();
      EXPECT_EQ(reducer.stats().steps, 1);
      EXPECT_EQ(reducer.stats().bytes, 400);
    });
  for (auto& t : ranks) t.join();
  return data;
}

TEST(GradientReducer, BlockingAndBucketedGiveTheSameWeightedAverageOnEveryRank) {
  std::vector<int> buckets;
  const auto blocking = reduce_on_two_ranks(AllreduceMode::blocking, nullptr);
  const auto bucketed = reduce_on_two_ranks(AllreduceMode::bucketed, &buckets);
  for (std::size_t i = 0; i < 100; ++i) {
    const float expected =
        0.5f * (1.5f * static_cast<float>(i) + 0.5f * 2.0f * static_cast<float>(i));
    EXPECT_FLOAT_EQ(blocking[0][i], expected) << i;
    EXPECT_EQ(blocking[0][i], blocking[1][i]);
    EXPECT_EQ(bucketed[0][i], blocking[0][i]);
    EXPECT_EQ(bucketed[1][i], blocking[1][i]);
  }
  // [80,100) [50,80) [10,50) as the layers finish, then [0,10) in finish().
  EXPECT_EQ(buckets, (std::vector<int>{4, 4}));
}

// ---- the fit loop with ranks as threads ----------------------------------------------------

struct RankRun {
  std::vector<double> losses;
  std::vector<float> weights;
  std::uint64_t checksum = 0;
  FitResult fit;
};

struct Job {
  std::int64_t samples = 300;
  std::int64_t batch = 32;  // per rank
  int epochs = 2;
  AllreduceMode mode = AllreduceMode::blocking;
  bool rank0_to_device = false;  // rank 0 prefetches to the device, the others do not
  Precision precision = Precision::FP32;
};

RankRun train(Backend& be, const Job& s, int rank, int ranks, dist::Communicator* comm,
              std::int64_t batch) {
  const auto source = make_sample_source("synthetic:" + std::to_string(s.samples), 5);
  auto model = make_model("mlp", Shape{28, 28, 1}, 10);
  CompileOptions compile;
  compile.seed = 9;
  compile.precision = s.precision;
  model->compile(be, make_optimizer("adam", 0.0f), compile);
  PipelineOptions po = naive_pipeline(batch);
  po.seed = 13;
  po.shard_index = rank;
  po.shard_count = ranks;
  po.prefetch_to_device = s.rank0_to_device && rank == 0;
  Pipeline input(source, po);
  FitOptions fit;
  fit.epochs = s.epochs;
  fit.data_parallel.comm = comm;
  fit.data_parallel.allreduce = s.mode;
  fit.data_parallel.bucket_bytes = 4096;
  RankRun run;
  run.fit = model->fit(input, fit);
  for (const auto& e : run.fit.epochs) run.losses.push_back(e.loss);
  run.weights = model->parameters().read_master();
  run.checksum = model->parameter_checksum();
  if (comm != nullptr) model->verify_replicas(*comm);
  return run;
}

// Rank 0 on `backend0` (the CPU when null), the others on their own CPU backends.
std::vector<RankRun> train_parallel(const Job& s, int ranks, Backend* backend0 = nullptr) {
  test::ThreadGroup group(ranks);
  std::vector<RankRun> runs(static_cast<std::size_t>(ranks));
  std::vector<std::thread> threads;
  for (int r = 0; r < ranks; ++r)
    threads.emplace_back([&, r] {
      test::ThreadCommunicator comm(group, r);
      std::unique_ptr<Backend> own = make_cpu_backend(1);
      Backend& be = r == 0 && backend0 != nullptr ? *backend0 : *own;
      runs[static_cast<std::size_t>(r)] = train(be, s, r, ranks, &comm, s.batch);
    });
  for (auto& t : threads) t.join();
  return runs;
}

RankRun train_single(const Job& s, int ranks) {
  auto be = make_cpu_backend(1);
  return train(*be, s, 0, 1, nullptr, s.batch * ranks);
}

void expect_same_training(const std::vector<RankRun>& parallel, const RankRun& single) {
  ASSERT_EQ(parallel[0].losses.size(), single.losses.size());
  for (std::size_t e = 0; e < single.losses.size(); ++e)
    EXPECT_NEAR(parallel[0].losses[e], single.losses[e], 1e-5 * single.losses[e]) << "epoch " << e;
  for (const RankRun& r : parallel) {
    EXPECT_EQ(r.checksum, parallel[0].checksum) << "every rank ends with the same weights";
    EXPECT_EQ(r.losses, parallel[0].losses) << "every rank reports the job's epoch figures";
  }
  double worst = 0;
  for (std::size_t i = 0; i < single.weights.size(); ++i)
    worst =
        std::max(worst, static_cast<double>(std::fabs(parallel[0].weights[i] - single.weights[i])));
  EXPECT_LT(worst, 1e-4) << "the weights match one process at the combined batch";
}

TEST(DataParallelFit, TwoRanksAtBatchBTrainAsOneProcessAtBatch2B) {
  Job s;  // 300 samples: the last step has 44, 32 on rank 0 and 12 on rank 1
  const auto parallel = train_parallel(s, 2);
  const RankRun single = train_single(s, 2);
  expect_same_training(parallel, single);
  EXPECT_EQ(parallel[0].fit.world_size, 2);
  EXPECT_EQ(parallel[0].fit.steps, 10);
  EXPECT_EQ(parallel[0].fit.reduce.steps, 10);
  EXPECT_EQ(parallel[0].fit.reduce.bytes, 10 * 101770 * 4);
}

TEST(DataParallelFit, ARankWithNoSampleInTheLastStepStillTakesIt) {
  Job s;
  s.samples = 280;  // the last step's 24 samples all go to rank 0; ranks 1 and 2 take it empty
  s.batch = 16;
  const auto parallel = train_parallel(s, 3);
  expect_same_training(parallel, train_single(s, 3));
  for (const RankRun& r : parallel) EXPECT_EQ(r.fit.steps, 2 * 6);
}

TEST(DataParallelFit, BucketedAllreduceAndMixedPipelinesTrainTheSame) {
  Job s;
  s.mode = AllreduceMode::bucketed;
  s.rank0_to_device = true;  // an MPMD-like job: rank 0's pipeline differs
  const auto parallel = train_parallel(s, 2);
  expect_same_training(parallel, train_single(s, 2));
  EXPECT_GT(parallel[0].fit.reduce.buckets, parallel[0].fit.reduce.steps)
      << "the first layer's gradients go in a bucket of their own";
}

TEST(DataParallelFit, MixedPrecisionRanksKeepOneLossScaleAndOneSetOfWeights) {
  Job s;
  s.precision = Precision::Mixed;
  const auto parallel = train_parallel(s, 2);
  EXPECT_EQ(parallel[0].checksum, parallel[1].checksum);
  EXPECT_EQ(parallel[0].fit.final_loss_scale, parallel[1].fit.final_loss_scale);
  EXPECT_LT(parallel[0].losses.back(), parallel[0].losses.front());
}

TEST(DataParallelFit, ADeviceRankReducesAHostCopyOfItsGradients) {
#ifdef TRAINSCOPE_WITH_OPENCL
  if (list_opencl_devices().empty()) GTEST_SKIP() << "no OpenCL device";
  auto cl = make_opencl_backend(0);
  for (const AllreduceMode mode : {AllreduceMode::blocking, AllreduceMode::bucketed}) {
    Job s;
    s.mode = mode;
    s.rank0_to_device = true;
    const auto parallel = train_parallel(s, 2, cl.get());
    EXPECT_EQ(parallel[0].checksum, parallel[1].checksum) << dist::mode_name(mode);
    EXPECT_GT(parallel[0].fit.gradient_copy_seconds, 0.0);
    EXPECT_EQ(parallel[1].fit.gradient_copy_seconds, 0.0) << "the CPU backend reduces in place";
    const RankRun single = train_single(s, 2);
    EXPECT_NEAR(parallel[0].losses.back(), single.losses.back(), 1e-3 * single.losses.back());
  }
#else
  GTEST_SKIP() << "built without OpenCL";
#endif
}

TEST(DataParallelFit, ACommunicatorOfOneRankIsASingleProcess) {
  test::ThreadGroup group(1);
  test::ThreadCommunicator one(group, 0);
  auto be = make_cpu_backend(1);
  const RankRun run = train(*be, Job{}, 0, 1, &one, 32);
  EXPECT_EQ(run.fit.world_size, 1);
  EXPECT_EQ(run.fit.reduce.steps, 0);
}

TEST(DataParallelFit, RefusesAPipelineThatIsNotThisRanksShard) {
  test::ThreadGroup group(2);
  std::vector<std::thread> threads;
  for (int r = 0; r < 2; ++r)
    threads.emplace_back([&, r] {
      test::ThreadCommunicator comm(group, r);
      auto be = make_cpu_backend(1);
      EXPECT_THROW(train(*be, Job{}, 0, 1, &comm, 32), std::invalid_argument);
    });
  for (auto& t : threads) t.join();
}

}  // namespace
}  // namespace ts
