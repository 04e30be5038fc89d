// fit() on an input pipeline: the same training whatever the pipeline's parallelism, prefetch
// or prefetch-to-device, the same as fit() on the in-memory dataset, and stopping on request.
#include <gtest/gtest.h>

#include <atomic>

#include "backends.hpp"
#include "engine/data/image_folder.hpp"
#include "engine/data/synthetic.hpp"
#include "engine/nn/models.hpp"

namespace ts {
namespace {

std::unique_ptr<Sequential> compiled(Backend& be, const Dataset& d, Precision precision) {
  auto model = make_model("mlp", Shape{d.height, d.width, d.channels}, 10);
  CompileOptions options;
  options.precision = precision;
  options.seed = 4;
  model->compile(be, make_optimizer("adam", 0.0f), options);
  return model;
}

PipelineOptions pipeline_options(int parallel, int prefetch, bool to_device) {
  PipelineOptions o;
  o.batch_size = 32;
  o.parallel = parallel;
  o.prefetch = prefetch;
  o.prefetch_to_device = to_device;
  o.seed = 11;
  o.max_parallel = 2;
  return o;
}

std::vector<double> epoch_losses(const FitResult& r) {
  std::vector<double> out;
  for (const auto& e : r.epochs) out.push_back(e.loss);
  return out;
}

class FitPipeline : public ::testing::TestWithParam<std::string> {};

TEST_P(FitPipeline, MatchesInMemoryFitWhateverTheParallelismPrefetchAndDeviceCopies) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(300, 3);
  FitOptions fit;
  fit.epochs = 2;
  fit.batch_size = 32;
  fit.seed = 11;
  std::vector<double> reference;
  {
    auto model = compiled(*be, d, Precision::FP32);
    reference = epoch_losses(model->fit(d, fit));
  }
  ASSERT_EQ(reference.size(), 2u);
  EXPECT_LT(reference[1], reference[0]);
  struct Case {
    int parallel, prefetch;
    bool to_device;
  };
  for (const Case c : {Case{0, 0, false}, Case{2, 3, false}, Case{0, 0, true},
                       Case{2, kAutotune, true}, Case{kAutotune, kAutotune, true}}) {
    auto model = compiled(*be, d, Precision::FP32);
    Pipeline input(std::make_shared<InMemorySource>(d),
                   pipeline_options(c.parallel, c.prefetch, c.to_device));
    const FitResult r = model->fit(input, fit);
    EXPECT_EQ(r.steps, 2 * 10);  // ceil(300 / 32) per epoch
    const auto losses = epoch_losses(r);
    ASSERT_EQ(losses.size(), 2u);
    for (std::size_t e = 0; e < 2; ++e)
      EXPECT_NEAR(losses[e], reference[e], 1e-6 * std::abs(reference[e]))
          << "parallel " << c.parallel << " prefetch " << c.prefetch << " to_device "
          << c.to_device;
  }
}

TEST_P(FitPipeline, MixedPrecisionWithPrefetchToDeviceTrainsTheSame) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(200, 5);
  FitOptions fit;
  fit.epochs = 2;
  std::vector<std::vector<double>> runs;
  for (bool to_device : {false, true}) {
    auto model = compiled(*be, d, Precision::Mixed);
    Pipeline input(std::make_shared<InMemorySource>(d), pipeline_options(1, 2, to_device));
    runs.push_back(epoch_losses(model->fit(input, fit)));
  }
  ASSERT_EQ(runs[0].size(), 2u);
  EXPECT_EQ(runs[0], runs[1]);
}

TEST_P(FitPipeline, StopsAfterTheStepDuringWhichItWasAsked) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(320, 7);
  auto model = compiled(*be, d, Precision::FP32);
  std::atomic<bool> stop{false};
  std::atomic<int> mapped{0};
  // Inline pipeline: batch k is mapped during step k; ask to stop while step 2 fetches.
  Pipeline input(std::make_shared<InMemorySource>(d), pipeline_options(0, 0, false),
                 [&](float*, std::int64_t, int, std::vector<float>&) {
                   if (++mapped == 3 * 32) stop = true;
                 });
  FitOptions fit;
  fit.epochs = 3;
  fit.stop = &stop;
  const FitResult r = model->fit(input, fit);
  EXPECT_TRUE(r.stopped_early);
  EXPECT_EQ(r.steps, 3);
  ASSERT_EQ(r.epochs.size(), 1u);
  EXPECT_EQ(r.epochs[0].samples, 96);
}

INSTANTIATE_TEST_SUITE_P(Backends, FitPipeline, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ts
