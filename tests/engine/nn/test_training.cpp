// Whole-model behaviour: learning, backend agreement, mixed precision, optimizers, errors.
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

#include "backends.hpp"
#include "engine/data/batcher.hpp"
#include "engine/data/synthetic.hpp"
#include "engine/nn/loss_scale.hpp"
#include "engine/nn/models.hpp"
#include "engine/nn/progress.hpp"

namespace ts {
namespace {

std::unique_ptr<Sequential> compiled(Backend& be, const std::string& name, const Dataset& d,
                                     Precision precision = Precision::FP32,
                                     const std::string& optimizer = "adam") {
  auto model = make_model(name, Shape{d.height, d.width, d.channels}, 10);
  CompileOptions options;
  options.precision = precision;
  options.seed = 3;
  model->compile(be, make_optimizer(optimizer, 0.0f), options);
  return model;
}

// Loss of each of the first `steps` training steps (fixed order, no shuffling).
std::vector<double> step_losses(Sequential& model, const Dataset& d, int steps) {
  Batcher batcher(d, 32, false, 0);
  batcher.start_epoch(0);
  HostBatch batch;
  std::vector<double> losses;
  for (int s = 0; s < steps && batcher.next(batch); ++s) {
    const auto r = model.train_step(batch);
    losses.push_back(r.loss_sum / r.samples);
  }
  return losses;
}

class Training : public ::testing::TestWithParam<std::string> {};

TEST_P(Training, MlpLearnsSyntheticDigits) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(2000, 5);
  auto model = compiled(*be, "mlp", d);
  const double before = model->evaluate(d).accuracy;
  FitOptions fit;
  fit.epochs = 3;
  const FitResult r = model->fit(d, fit);
  ASSERT_EQ(r.epochs.size(), 3u);
  EXPECT_LT(r.epochs[2].loss, r.epochs[0].loss);
  EXPECT_LT(before, 0.3);
  EXPECT_GT(model->evaluate(d).accuracy, 0.8);
  EXPECT_GT(r.samples_per_s, 0.0);
}

TEST_P(Training, CnnLossDecreases) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(320, 6);
  auto model = compiled(*be, "cnn", d);
  const auto losses = step_losses(*model, d, 10);
  ASSERT_EQ(losses.size(), 10u);
  EXPECT_LT(losses.back(), losses.front());
}

TEST_P(Training, MixedPrecisionTrainsAndKeepsAFiniteScale) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(1000, 8);
  auto model = compiled(*be, "mlp", d, Precision::Mixed);
  FitOptions fit;
  fit.epochs = 2;
  const FitResult r = model->fit(d, fit);
  EXPECT_LT(r.epochs[1].loss, r.epochs[0].loss);
  EXPECT_GT(r.epochs[1].accuracy, 0.6);
  EXPECT_GE(r.final_loss_scale, 1.0f);
  // f16 activations: the result tracks fp32 training closely but not bit for bit.
  auto fp32 = compiled(*be, "mlp", d);
  const auto fp32_losses = step_losses(*fp32, d, 5);
  auto mixed = compiled(*be, "mlp", d, Precision::Mixed);
  const auto mixed_losses = step_losses(*mixed, d, 5);
  for (std::size_t i = 0; i < 5; ++i) EXPECT_NEAR(mixed_losses[i], fp32_losses[i], 0.05);
}

TEST_P(Training, SgdTrainsToo) {
  TS_BACKEND_OR_SKIP(be, GetParam());
  const Dataset d = make_synthetic_digits(640, 9);
  auto model = compiled(*be, "mlp", d, Precision::FP32, "sgd");
  const auto losses = step_losses(*model, d, 20);
  EXPECT_LT(losses.back(), losses.front());
}

INSTANTIATE_TEST_SUITE_P(Backends, Training, ::testing::Values("cpu", "opencl"),
                         [](const auto& info) { return info.param; });

TEST(BackendAgreement, CpuAndOpenClLossesMatchFor20Steps) {
  TS_BACKEND_OR_SKIP(cpu, "cpu");
  TS_BACKEND_OR_SKIP(cl, "opencl");
  const Dataset d = make_synthetic_digits(640, 12);
  for (const char* name : {"mlp", "cnn"}) {
    auto a = compiled(*cpu, name, d);
    auto b = compiled(*cl, name, d);
    const auto la = step_losses(*a, d, 20), lb = step_losses(*b, d, 20);
    ASSERT_EQ(la.size(), 20u);
    for (std::size_t i = 0; i < la.size(); ++i) EXPECT_NEAR(la[i], lb[i], 1e-3) << name << " " << i;
  }
}

TEST(LossScale, HalvesOnOverflowAndGrowsAfterInterval) {
  DynamicLossScale s(1024.0f, 3);
  EXPECT_FALSE(s.update(false));
  EXPECT_EQ(s.scale(), 512.0f);
  EXPECT_EQ(s.skipped_steps(), 1);
  EXPECT_TRUE(s.update(true));
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 512.0f);
  EXPECT_TRUE(s.update(true));
  EXPECT_EQ(s.scale(), 1024.0f);
}

TEST(MixedPrecision, OverflowingStepIsSkippedAndScaleHalved) {
  TS_BACKEND_OR_SKIP(be, "cpu");
  Dataset d = make_synthetic_digits(64, 2);
  // Near f16's maximum everywhere: the first layer's f16 activations overflow to inf.
  for (auto& v : d.images) v = 6e4f;
  auto model = compiled(*be, "mlp", d, Precision::Mixed);
  const auto before = model->parameters().read_master();
  Batcher batcher(d, 32, false, 0);
  batcher.start_epoch(0);
  HostBatch batch;
  ASSERT_TRUE(batcher.next(batch));
  const auto r = model->train_step(batch);
  EXPECT_FALSE(r.applied);
  EXPECT_EQ(model->loss_scale().scale(), 16384.0f);
  EXPECT_EQ(model->parameters().read_master(), before);
}

TEST(Models, RejectMismatchedData) {
  EXPECT_THROW(make_model("cnn", Shape{5, 5, 1}, 10), std::invalid_argument);
  EXPECT_THROW(make_model("resnet", Shape{28, 28, 1}, 10), std::invalid_argument);
  TS_BACKEND_OR_SKIP(be, "cpu");
  Dataset d = make_synthetic_digits(10, 1);
  auto model = compiled(*be, "mlp", d);
  Dataset wrong = d;
  wrong.height = 14;
  wrong.width = 14;
  EXPECT_THROW(model->check_dataset(wrong), std::invalid_argument);
  Dataset many = d;
  many.classes = 12;
  EXPECT_THROW(model->check_dataset(many), std::invalid_argument);
}

TEST(Loss, OneHotLabelsConvertAndRejectNonOneHot) {
  const std::vector<float> good{0, 1, 0, 1, 0, 0};
  EXPECT_EQ(labels_from_one_hot(good.data(), 2, 3), (std::vector<std::int32_t>{1, 0}));
  const std::vector<float> two_hot{0, 1, 1};
  EXPECT_THROW(labels_from_one_hot(two_hot.data(), 1, 3), std::invalid_argument);
  const std::vector<float> smoothed{0.1f, 0.9f, 0.0f};
  EXPECT_THROW(labels_from_one_hot(smoothed.data(), 1, 3), std::invalid_argument);
}

TEST(Progress, KerasStyleLine) {
  EXPECT_EQ(
      ProgressLine::format(313, 313, 2.0, 0.30131, 0.91432, true),
      "313/313 [==============================] - 2s 6ms/step - loss: 0.3013 - accuracy: 0.9143");
  EXPECT_NE(ProgressLine::format(313, 313, 0.1, 0.3, 0.9, true).find(" - 0s 319us/step - "),
            std::string::npos);
  const std::string mid = ProgressLine::format(10, 100, 1.0, 1.5, 0.5, false);
  EXPECT_NE(mid.find(" 10/100 [===>"), std::string::npos) << mid;
  EXPECT_NE(mid.find("ETA: 9s"), std::string::npos) << mid;
  std::ostringstream out;
  ProgressLine line(out, false);
  line.begin_epoch(1, 5, 313);
  line.update(10, 1.0, 0.5);  // not a terminal: no partial lines
  line.end_epoch(2.0, 0.3, 0.9);
  const std::string text = out.str();
  EXPECT_EQ(text.rfind("Epoch 1/5\n313/313 [", 0), 0u) << text;
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2);
}

}  // namespace
}  // namespace ts
