// The levers table on hand-built traces: each rule fires on the figures it names, stays quiet
// without them, and never recommends what the trace shows is on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>

#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/store/writer.hpp"
#include "tests/profiler/test_util.hpp"

namespace {

namespace a = ts::analysis;
using ts::store::EventRow;
using ts::store::kNull;
using ts::trace::Category;
using ts::trace::TrackKind;

constexpr std::int64_t kT = 1'000'000'000;
constexpr std::int64_t kStepUs = 1000;
constexpr int kSteps = 4;
enum Track : std::uint32_t { kMain = 1, kCompute, kCopy, kMemory };

struct Ev {
  Track track;
  std::string name;
  Category category;
  std::int64_t start_us, end_us;  // inside each step
};

// kSteps steps of 1 ms on the main thread, each holding `per_step`, and in each step the
// samples (µs into the step, bytes) of a "GPU 0 memory allocated" counter.
a::Report analyse(const std::vector<Ev>& per_step,
                  const std::vector<std::pair<std::string, std::string>>& meta,
                  const std::vector<std::pair<std::int64_t, double>>& memory = {}) {
  ts::test::TempDir dir;
  const std::string path = dir.file("levers.db");
  {
    ts::store::Writer w(path);
    std::vector<std::pair<std::string, Category>> labels = {{"step", Category::step}};
    for (const Ev& e : per_step) labels.emplace_back(e.name, e.category);
    for (std::uint32_t i = 0; i < labels.size(); ++i) {
      w.put_string(i + 1, labels[i].first);
      w.put_label(i + 1, i + 1, labels[i].second);
    }
    w.put_track(kMain, "main", TrackKind::thread);
    w.put_track(kCompute, "gpu compute", TrackKind::device_queue);
    w.put_track(kCopy, "gpu copy", TrackKind::device_queue);
    w.put_track(kMemory, "GPU 0 memory allocated", TrackKind::counter);
    for (const auto& [k, v] : meta) w.put_meta(k, v);
    std::vector<ts::store::CounterRow> samples;
    for (int s = 0; s < kSteps; ++s)
      for (const auto& [us, bytes] : memory)
        samples.push_back({kMemory, kT + (s * kStepUs + us) * 1000, bytes});
    w.append(std::span<const ts::store::CounterRow>(samples));
    std::vector<EventRow> rows;
    for (int s = 0; s < kSteps; ++s) {
      const std::int64_t t = kT + s * kStepUs * 1000;
      rows.push_back({t, kStepUs * 1000, kMain, 1, s, kNull});
      for (std::uint32_t i = 0; i < per_step.size(); ++i) {
        const Ev& e = per_step[i];
        rows.push_back(
            {t + e.start_us * 1000, (e.end_us - e.start_us) * 1000, e.track, i + 2, s, kNull});
      }
    }
    std::sort(rows.begin(), rows.end(),
              [](const EventRow& x, const EventRow& y) { return x.start_ns < y.start_ns; });
    w.append(std::span<const EventRow>(rows));
    w.finish();
  }
  return a::analyse(ts::store::Reader(path));
}

const a::Lever* find(const a::Report& r, const std::string& id) {
  for (const a::Lever& l : r.levers)
    if (l.id == id) return &l;
  return nullptr;
}

bool any_contains(const std::vector<std::string>& v, const std::string& needle) {
  for (const auto& s : v)
    if (s.find(needle) != std::string::npos) return true;
  return false;
}

const std::vector<std::pair<std::string, std::string>> kKineto = {
    {"import.format", "kineto"}, {"engine.device", "Tesla V100-SXM2-16GB"}};

// The host runs Shampoo's step for 450 µs of each 1 ms step while the device idles.
std::vector<Ev> shampoo_step() {
  return {{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 480},
          {kMain, "Optimizer.step#Shampoo.step", Category::other, 500, 950},
          {kMain, "aten::mm", Category::host_compute, 520, 900}};
}

TEST(Levers, HostOverheadNamesWhatTheHostRanWhileTheDeviceIdled) {
  const a::Report r = analyse(shampoo_step(), kKineto);
  const a::Lever* host = find(r, "host_overhead");
  ASSERT_NE(host, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(host->points_at, "Optimizer.step#Shampoo.step"));
  EXPECT_TRUE(any_contains(host->evidence, "Optimizer.step#Shampoo.step 450.0 µs per step"))
      << a::to_text(r);
  EXPECT_TRUE(any_contains(host->evidence, "aten::mm 380.0 µs per step"));
  // Kernels of 480 µs are not launch-bound: no "fuse small operations".
  EXPECT_FALSE(any_contains(host->fix, "fuse small operations"));
  EXPECT_TRUE(any_contains(host->fix, "optimizer lever"));
  EXPECT_EQ(host->confidence, "modelled");
  EXPECT_GT(host->projection.speedup, 1.5);
  const a::Lever* opt = find(r, "optimizer");
  ASSERT_NE(opt, nullptr);
  EXPECT_TRUE(any_contains(opt->fix, "precondition_frequency"));
  EXPECT_TRUE(any_contains(opt->fix, "foreach=True"));
}

TEST(Levers, ShortKernelsAreLaunchOverhead) {
  std::vector<Ev> step;
  for (int i = 0; i < 40; ++i) {
    step.push_back({kMain, "cudaLaunchKernel", Category::launch, i * 25, i * 25 + 20});
    step.push_back({kCompute, "elementwise_kernel", Category::kernel, i * 25 + 20, i * 25 + 25});
  }
  const a::Report r = analyse(step, kKineto);
  const a::Lever* host = find(r, "host_overhead");
  ASSERT_NE(host, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(host->evidence, "40.0 kernels per step, 100.0 % of them under 10 µs"));
  EXPECT_TRUE(any_contains(host->fix, "fuse small operations (torch.compile"));
}

TEST(Levers, AComputeBoundRunGetsTheComputeLeversOnly) {
  const a::Report r =
      analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}}, kKineto);
  EXPECT_EQ(find(r, "host_overhead"), nullptr);
  EXPECT_EQ(find(r, "input_pipeline"), nullptr);
  EXPECT_EQ(find(r, "hardware"), nullptr);
  ASSERT_NE(find(r, "model_kernels"), nullptr);
  EXPECT_TRUE(any_contains(find(r, "model_kernels")->points_at, "volta_sgemm_128x64_nn"));
  // fp32 GEMMs on a V100: mixed precision, in PyTorch's words, ranked first.
  const a::Lever* amp = find(r, "mixed_precision");
  ASSERT_NE(amp, nullptr);
  EXPECT_TRUE(any_contains(amp->fix, "torch.autocast"));
  EXPECT_EQ(r.levers.front().id, "mixed_precision");
  EXPECT_NEAR(amp->projection.step_time_ms, 0.5, 1e-9);
}

TEST(Levers, MixedPrecisionAlreadyOnIsNotRecommended) {
  const a::Report r =
      analyse({{kCompute, "volta_h884gemm_64x64_ldg8_nn", Category::kernel, 0, 1000}}, kKineto);
  EXPECT_EQ(find(r, "mixed_precision"), nullptr);
  EXPECT_NE(find(r, "model_kernels"), nullptr);
}

TEST(Levers, MixedPrecisionOnTheCpuBackendIsItsCost) {
  const std::vector<std::pair<std::string, std::string>> ours = {{"engine.backend", "cpu"},
                                                                 {"engine.precision", "mixed"}};
  const a::Report r = analyse({{kMain, "convert batch to f16", Category::host_compute, 0, 300},
                               {kCompute, "gemm", Category::kernel, 300, 1000}},
                              ours);
  const a::Lever* amp = find(r, "mixed_precision");
  ASSERT_NE(amp, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(amp->already_on, "--precision mixed"));
  EXPECT_TRUE(any_contains(amp->fix, "--precision fp32"));
  EXPECT_TRUE(any_contains(amp->evidence, "30.0 % of step time"));

  // In fp32 on the CPU backend it is not recommended; the kernels lever says why.
  const a::Report fp32 = analyse({{kCompute, "gemm", Category::kernel, 0, 1000}},
                                 {{"engine.backend", "cpu"}, {"engine.precision", "fp32"}});
  EXPECT_EQ(find(fp32, "mixed_precision"), nullptr);
  ASSERT_NE(find(fp32, "model_kernels"), nullptr);
  EXPECT_TRUE(any_contains(find(fp32, "model_kernels")->evidence, "cannot help"));
}

std::vector<Ev> dataloader_step(const std::string& iterator, const std::string& copy) {
  return {{kMain, "enumerate(DataLoader)#" + iterator + ".__next__", Category::input_wait, 0, 400},
          {kCopy, copy, Category::h2d, 400, 420},
          {kCompute, "volta_h884gemm", Category::kernel, 420, 1000}};
}

TEST(Levers, InputPipelineRespectsWhatIsOn) {
  const a::Report on = analyse(
      dataloader_step("_MultiProcessingDataLoaderIter", "Memcpy HtoD (Pinned -> Device)"), kKineto);
  const a::Lever* input = find(on, "input_pipeline");
  ASSERT_NE(input, nullptr) << a::to_text(on);
  EXPECT_TRUE(any_contains(input->already_on, "multi-process DataLoader"));
  EXPECT_TRUE(any_contains(input->already_on, "pin_memory"));
  EXPECT_FALSE(any_contains(input->fix, "pin_memory=True"));
  EXPECT_FALSE(any_contains(input->fix, "num_workers > 0"));
  EXPECT_EQ(on.levers.front().id, "input_pipeline");

  const a::Report off = analyse(
      dataloader_step("_SingleProcessDataLoaderIter", "Memcpy HtoD (Pageable -> Device)"), kKineto);
  input = find(off, "input_pipeline");
  ASSERT_NE(input, nullptr);
  EXPECT_TRUE(input->already_on.empty());
  EXPECT_TRUE(any_contains(input->fix, "pin_memory=True"));
  EXPECT_TRUE(any_contains(input->fix, "num_workers > 0"));
}

TEST(Levers, AnUnderusedDeviceIsAHardwareLever) {
  const a::Report r = analyse({{kMain, "host work", Category::host_compute, 0, 800},
                               {kCompute, "gemm", Category::kernel, 800, 1000}},
                              {{"engine.backend", "opencl"}});
  const a::Lever* hw = find(r, "hardware");
  ASSERT_NE(hw, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(hw->evidence, "busy 20.0 % of step time"));
  EXPECT_DOUBLE_EQ(hw->projection.speedup, 1.0);
  // The text and JSON reports carry the table.
  EXPECT_NE(a::to_text(r).find("\nlevers\n"), std::string::npos);
  const auto json = nlohmann::json::parse(a::to_json(r));
  ASSERT_TRUE(json["levers"].is_array());
  EXPECT_EQ(json["levers"][0]["id"], r.levers[0].id);
  EXPECT_NEAR(json["levers"][0]["projection"]["speedup"].get<double>(),
              r.levers[0].projection.speedup, 0.01);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;

// A 16 GiB V100 whose kernels fill 300 µs of each 1 ms step.
std::vector<std::pair<std::string, std::string>> v100_16gb(const std::string& batch = "") {
  std::vector<std::pair<std::string, std::string>> meta = kKineto;
  meta.emplace_back("device.gpu.0.total_memory_bytes", std::to_string(16 * 1024LL * 1024 * 1024));
  if (!batch.empty()) meta.emplace_back("engine.batch", batch);
  return meta;
}
const std::vector<Ev> kThirtyPctBusy = {
    {kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 300}};

TEST(Levers, MemoryHeadroomOnAnUnderusedDeviceSaysHowLargeABatchFits) {
  // Peak 4 GiB of 16 (25 %): 90 % / 25 % = 3.6x the batch.
  const a::Report r =
      analyse(kThirtyPctBusy, v100_16gb("32"), {{0, 1 * kGiB}, {200, 4 * kGiB}, {900, 2 * kGiB}});
  const a::Lever* l = find(r, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(l->evidence, "4.00 GiB of 16.00 GiB (25.0 %)")) << l->evidence[0];
  EXPECT_TRUE(any_contains(l->evidence, "about 3.6x the batch would still fit"));
  EXPECT_TRUE(any_contains(l->evidence, "batch 32 -> about 115"));
  EXPECT_TRUE(any_contains(l->points_at, "GPU 0 memory allocated"));
  EXPECT_TRUE(any_contains(l->fix, "batch_size"));
  EXPECT_EQ(l->confidence, "modelled");
}

TEST(Levers, MemoryLeverStaysQuietWithoutHeadroomOrDeviceMemoryOrWhenBusy) {
  // 60 % used: less than twice the batch fits.
  EXPECT_EQ(find(analyse(kThirtyPctBusy, v100_16gb(), {{100, 9.6 * kGiB}}), "batch_memory"),
            nullptr);
  // The device's memory unknown.
  EXPECT_EQ(find(analyse(kThirtyPctBusy, kKineto, {{100, 1 * kGiB}}), "batch_memory"), nullptr);
  // A device busy the whole step, with long kernels: a larger batch is not the lever.
  EXPECT_EQ(find(analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}},
                         v100_16gb(), {{100, 1 * kGiB}}),
                 "batch_memory"),
            nullptr);
}

TEST(Levers, MemoryAbove90PctOfTheDeviceIsAWarning) {
  // 15 GiB of 16 (93.8 %), even on a busy device.
  const a::Report r = analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}},
                              v100_16gb(), {{100, 15 * kGiB}});
  const a::Lever* l = find(r, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(l->evidence, "(93.8 %), above 90.0 %"));
  EXPECT_TRUE(any_contains(l->fix, "torch.utils.checkpoint"));
}

}  // namespace
