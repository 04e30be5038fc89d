// The levers table on hand-built traces: each rule fires on the figures it names, stays quiet
// without them, and never recommends what the trace shows is on.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <span>

#include "profiler/analysis/lever_facts.hpp"
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
// samples (µs into the step, bytes; negative: before the first step) of a memory counter.
a::Report analyse(const std::vector<Ev>& per_step,
                  const std::vector<std::pair<std::string, std::string>>& meta,
                  const std::vector<std::pair<std::int64_t, double>>& memory = {},
                  const std::string& memory_track = "GPU 0 memory allocated") {
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
    w.put_track(kMemory, memory_track, TrackKind::counter);
    for (const auto& [k, v] : meta) w.put_meta(k, v);
    std::vector<ts::store::CounterRow> samples;
    for (const auto& [us, bytes] : memory)
      if (us < 0) samples.push_back({kMemory, kT + us * 1000, bytes});
    for (int s = 0; s < kSteps; ++s)
      for (const auto& [us, bytes] : memory)
        if (us >= 0) samples.push_back({kMemory, kT + (s * kStepUs + us) * 1000, bytes});
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
  // The device's idle time under the conversion points there, not at launches: the CPU backend
  // has none to fuse.
  const a::Lever* host = find(r, "host_overhead");
  ASSERT_NE(host, nullptr);
  EXPECT_TRUE(any_contains(host->fix, "see the mixed precision lever"));
  EXPECT_FALSE(any_contains(host->fix, "fuse small operations"));

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
  EXPECT_TRUE(any_contains(l->evidence, "4.00 GiB of 16.00 GiB (25.0 %, GPU 0 memory allocated)"))
      << l->evidence[0];
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

// Mixed precision asks the device first: Kineto's compute capability, OpenCL's cl_khr_fp16.
TEST(Levers, MixedPrecisionReadsTheComputeCapability) {
  const std::vector<Ev> fp32_gemm = {{kCompute, "sgemm_128x64_nn", Category::kernel, 0, 1000}};
  // A name no list knows, compute capability 8.0: Tensor Cores.
  const a::Report ampere = analyse(fp32_gemm, {{"import.format", "kineto"},
                                               {"device.gpu.0.name", "Mystery GPU"},
                                               {"device.gpu.0.compute_major", "8"},
                                               {"device.gpu.0.compute_minor", "0"}});
  const a::Lever* amp = find(ampere, "mixed_precision");
  ASSERT_NE(amp, nullptr) << a::to_text(ampere);
  EXPECT_TRUE(any_contains(amp->evidence, "compute capability 8.0 (Mystery GPU): Tensor Cores"));
  // Compute capability 6.0 outweighs a name on the list: no Tensor Cores, and the kernels lever
  // says why not.
  const a::Report pascal = analyse(fp32_gemm, {{"import.format", "kineto"},
                                               {"engine.device", "Tesla V100 (mislabelled)"},
                                               {"device.gpu.0.compute_major", "6"}});
  EXPECT_EQ(find(pascal, "mixed_precision"), nullptr) << a::to_text(pascal);
  ASSERT_NE(find(pascal, "model_kernels"), nullptr);
  EXPECT_TRUE(any_contains(find(pascal, "model_kernels")->evidence, "no Tensor Cores"));
}

TEST(Levers, MixedPrecisionOnOpenClReadsClKhrFp16AndNeverRecommendsItOnPocl) {
  const std::vector<Ev> gemm = {{kCompute, "sgemm_NN", Category::kernel, 0, 1000}};
  const auto opencl = [](const std::string& platform, const std::string& type,
                         const std::string& fp16) {
    return std::vector<std::pair<std::string, std::string>>{{"engine.backend", "opencl"},
                                                            {"engine.precision", "fp32"},
                                                            {"device.opencl.platform", platform},
                                                            {"device.opencl.type", type},
                                                            {"device.opencl.fp16", fp16}};
  };
  const a::Report gpu = analyse(gemm, opencl("NVIDIA CUDA", "gpu", "yes"));
  const a::Lever* amp = find(gpu, "mixed_precision");
  ASSERT_NE(amp, nullptr) << a::to_text(gpu);
  EXPECT_TRUE(any_contains(amp->evidence, "cl_khr_fp16"));
  EXPECT_TRUE(any_contains(amp->fix, "--precision mixed"));
  EXPECT_EQ(find(analyse(gemm, opencl("NVIDIA CUDA", "gpu", "no")), "mixed_precision"), nullptr);
  const a::Report pocl = analyse(gemm, opencl("Portable Computing Language", "cpu", "yes"));
  EXPECT_EQ(find(pocl, "mixed_precision"), nullptr);
  ASSERT_NE(find(pocl, "model_kernels"), nullptr);
  EXPECT_TRUE(any_contains(find(pocl, "model_kernels")->evidence, "PoCL"));
}

// Our engine's memory counters: the CPU backend's tensors against the host's memory, the
// OpenCL device's against its global memory; TensorFlow's GPU allocator against the GPU's.
TEST(Levers, EngineMemoryCountersFeedTheBatchLever) {
  const std::vector<Ev> underused = {{kCompute, "gemm", Category::kernel, 0, 300}};
  // The CPU backend: 1 GiB of tensors, all allocated before the first step, of 16 GiB.
  const a::Report cpu = analyse(
      underused,
      {{"engine.backend", "cpu"}, {"engine.batch", "64"}, {"host.memory_bytes", "17179869184"}},
      {{-100, 1 * kGiB}}, "host memory (tensors)");
  const a::Lever* l = find(cpu, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(cpu);
  EXPECT_TRUE(any_contains(l->evidence, "Peak host memory per step is 1.00 GiB of 16.00 GiB"));
  // Counted from the value the steps start with: 90 % / 6.25 % = 14.4x.
  EXPECT_TRUE(
      any_contains(l->evidence, "about 14.4x the batch would still fit (batch 64 -> about 921)"))
      << l->evidence.back();
  EXPECT_TRUE(any_contains(l->fix, "--batch"));

  // OpenCL: "device memory <device>" against device.opencl.global_memory_bytes.
  const a::Report opencl =
      analyse(underused,
              {{"engine.backend", "opencl"}, {"device.opencl.global_memory_bytes", "8589934592"}},
              {{100, 2 * kGiB}}, "device memory Some GPU");
  l = find(opencl, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(opencl);
  EXPECT_TRUE(any_contains(l->evidence, "Peak device memory per step is 2.00 GiB of 8.00 GiB"));

  // TensorFlow's GPU allocator.
  const a::Report tf = analyse(
      underused, {{"import.format", "xplane"}, {"device.gpu.0.total_memory_bytes", "17179869184"}},
      {{100, 2 * kGiB}}, "GPU_0_bfc memory allocated");
  l = find(tf, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(tf);
  EXPECT_TRUE(any_contains(l->fix, "batch() size"));

  // A host allocator whose memory the trace does not give: no lever.
  EXPECT_EQ(find(analyse(underused, {{"import.format", "xplane"}}, {{100, 2 * kGiB}},
                         "mklcpu memory allocated"),
                 "batch_memory"),
            nullptr);
  // Memory that fits only 1.5x the batch: no lever; the kernels lever says how much fits.
  const a::Report tight = analyse({{kCompute, "gemm", Category::kernel, 0, 1000}},
                                  {{"engine.backend", "cpu"}, {"host.memory_bytes", "17179869184"}},
                                  {{100, 9.6 * kGiB}}, "host memory (tensors)");
  EXPECT_EQ(find(tight, "batch_memory"), nullptr);
  ASSERT_NE(find(tight, "model_kernels"), nullptr);
  EXPECT_TRUE(
      any_contains(find(tight, "model_kernels")->evidence, "1.5x the batch would still fit"));
}

TEST(Levers, LowAchievedOccupancyIsBatchEvidence) {
  // A device busy the whole step with long kernels, but at 23 % occupancy.
  std::vector<std::pair<std::string, std::string>> meta = v100_16gb("32");
  meta.emplace_back("kernels.achieved_occupancy_pct", "23");
  const a::Report r = analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}},
                              meta, {{100, 1 * kGiB}});
  ASSERT_TRUE(r.achieved_occupancy_pct.has_value());
  EXPECT_DOUBLE_EQ(*r.achieved_occupancy_pct, 23.0);
  const a::Lever* l = find(r, "batch_memory");
  ASSERT_NE(l, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(l->evidence, "23.0 % achieved occupancy, time-weighted"));
  EXPECT_TRUE(any_contains(find(r, "model_kernels")->evidence, "Kernels reach 23.0 %"));
  EXPECT_NE(a::to_text(r).find("achieved occupancy 23.0 %, time-weighted"), std::string::npos);
  EXPECT_EQ(nlohmann::json::parse(a::to_json(r))["achieved_occupancy_pct"], 23.0);
  // At 80 % occupancy the same device is not a batch lever.
  meta.back().second = "80";
  EXPECT_EQ(find(analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}}, meta,
                         {{100, 1 * kGiB}}),
                 "batch_memory"),
            nullptr);
}

TEST(Levers, DistributionMeasuresCommunicationComputationOverlap) {
  // An all-reduce 300-700 µs beside compute 0-400: 100 of its 400 µs overlap (25 %), 300 µs of
  // the step are communication alone.
  const a::Report low =
      analyse({{kCompute, "sgemm", Category::kernel, 0, 400},
               {kCopy, "ncclKernel_AllReduce_RING", Category::collective, 300, 700}},
              kKineto);
  ASSERT_TRUE(low.communication_overlap_pct.has_value()) << a::to_text(low);
  EXPECT_NEAR(*low.communication_overlap_pct, 25.0, 1e-9);
  const a::Lever* l = find(low, "distribution");
  ASSERT_NE(l, nullptr) << a::to_text(low);
  EXPECT_TRUE(any_contains(l->evidence, "Communication is 30.0 % of step time"));
  EXPECT_TRUE(any_contains(l->evidence, "25.0 % of the collective kernels' time overlaps"));
  EXPECT_TRUE(any_contains(l->points_at, "ncclKernel_AllReduce_RING"));
  EXPECT_TRUE(any_contains(l->fix, "bucket_cap_mb"));
  EXPECT_TRUE(l->already_on.empty());
  EXPECT_NE(a::to_text(low).find("25.0 % of collective kernel time overlaps compute kernels"),
            std::string::npos);
  EXPECT_NEAR(nlohmann::json::parse(a::to_json(low))["communication"]["overlap_pct"].get<double>(),
              25.0, 1e-9);
  // The model's kernels lever leaves the collective out.
  EXPECT_FALSE(any_contains(find(low, "model_kernels")->points_at, "nccl"));

  // Mostly overlapped (300 of 400 µs): on already, and not recommended again.
  const a::Report high =
      analyse({{kCompute, "sgemm", Category::kernel, 0, 600},
               {kCopy, "ncclKernel_AllReduce_RING", Category::collective, 300, 700}},
              kKineto);
  l = find(high, "distribution");
  ASSERT_NE(l, nullptr) << a::to_text(high);
  EXPECT_TRUE(any_contains(l->already_on, "communication overlapped with compute (75.0 %"));
  EXPECT_FALSE(any_contains(l->fix, "bucket_cap_mb"));

  // Fully hidden behind compute: no exposed communication, no lever.
  const a::Report hidden =
      analyse({{kCompute, "sgemm", Category::kernel, 0, 1000},
               {kCopy, "ncclKernel_AllReduce_RING", Category::collective, 200, 400}},
              kKineto);
  EXPECT_EQ(find(hidden, "distribution"), nullptr);
  EXPECT_NEAR(hidden.communication_overlap_pct.value_or(0), 100.0, 1e-9);
  // No collectives: no overlap figure.
  EXPECT_FALSE(analyse(kThirtyPctBusy, kKineto).communication_overlap_pct.has_value());
}

TEST(Levers, AHostOnlyTraceNamesItsTopHostOperators) {
  const std::vector<std::pair<std::string, std::string>> kineto = {{"import.format", "kineto"}};
  const a::Report r = analyse({{kMain, "ProfilerStep#1 forward", Category::other, 0, 900},
                               {kMain, "aten::conv2d", Category::host_compute, 50, 650},
                               {kMain, "aten::relu", Category::host_compute, 700, 850}},
                              kineto);
  ASSERT_FALSE(r.device.has_device);
  const a::Lever* l = find(r, "host_compute");
  ASSERT_NE(l, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(l->evidence, "no device events"));
  EXPECT_TRUE(any_contains(l->evidence, "aten::conv2d 600.0 µs per step (60.0 %)"));
  EXPECT_TRUE(any_contains(l->points_at, "aten::conv2d"));
  EXPECT_NEAR(l->projection.step_time_ms, 0.7, 1e-9);  // half of conv2d's 600 µs
  EXPECT_TRUE(any_contains(l->fix, "torch.compile"));
  // Input wait is the input lever's, not the host's.
  const a::Report waiting =
      analyse({{kMain, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__",
                Category::input_wait, 0, 940},
               {kMain, "aten::add", Category::host_compute, 940, 990}},
              kineto);
  EXPECT_EQ(find(waiting, "host_compute"), nullptr) << a::to_text(waiting);
  EXPECT_NE(find(waiting, "input_pipeline"), nullptr);
  // With a device, the host-overhead lever speaks instead.
  EXPECT_EQ(find(analyse(shampoo_step(), kKineto), "host_compute"), nullptr);
}

TEST(Levers, MemoryCountersAreMatchedWithTheSizeOfTheirMemory) {
  const auto key = [](std::string_view track) {
    bool host = false;
    const std::optional<std::string> k = a::memory_counter_capacity_key(track, &host);
    return k ? *k + (host ? " (host)" : "") : std::string("none");
  };
  EXPECT_EQ(key("GPU 3 memory allocated"), "device.gpu.3.total_memory_bytes");
  EXPECT_EQ(key("GPU 3 memory reserved"), "none");
  EXPECT_EQ(key("device memory NVIDIA A100"), "device.opencl.global_memory_bytes");
  EXPECT_EQ(key("host memory (tensors)"), "host.memory_bytes (host)");
  EXPECT_EQ(key("GPU_1_bfc memory allocated"), "device.gpu.1.total_memory_bytes");
  EXPECT_EQ(key("mklcpu memory allocated"), "host.memory_bytes (host)");
  EXPECT_EQ(key("CPU memory allocated"), "host.memory_bytes (host)");
  EXPECT_EQ(key("prefetch buffer fill"), "none");
  EXPECT_EQ(key(" memory allocated"), "none");
}

TEST(Levers, UnrecordedTimeGivesItsShareAndLongestStretches) {
  // 800 µs of each 1 ms step with nothing recorded on the host or the device.
  const a::Report r = analyse({{kMain, "cudaLaunchKernel", Category::launch, 0, 100},
                               {kCompute, "triton_poi_fused_add_0", Category::kernel, 100, 200}},
                              kKineto);
  const a::Lever* gap = find(r, "unrecorded_time");
  ASSERT_NE(gap, nullptr) << a::to_text(r);
  EXPECT_TRUE(any_contains(gap->evidence, "80.0 % of step time (800.0 µs per step)"))
      << a::to_text(r);
  EXPECT_TRUE(any_contains(gap->evidence, "Longest stretches: 800.0 µs at +200.0 µs in step "));
  EXPECT_TRUE(any_contains(gap->evidence, "Triton kernels ran"));
  EXPECT_TRUE(any_contains(gap->fix, "with_stack=True"));
  EXPECT_TRUE(any_contains(gap->fix, "torch.profiler.schedule"));
  EXPECT_EQ(gap->confidence, "heuristic");
  EXPECT_NEAR(gap->projection.step_time_ms, 0.2, 1e-5);
  EXPECT_EQ(r.levers.front().id, "unrecorded_time");
  // TensorFlow's words for the same gaps.
  const a::Report tf = analyse({{kMain, "launch", Category::launch, 0, 100},
                                {kCompute, "matmul", Category::kernel, 100, 200}},
                               {{"import.format", "xplane"}});
  ASSERT_NE(find(tf, "unrecorded_time"), nullptr);
  EXPECT_TRUE(any_contains(find(tf, "unrecorded_time")->fix, "python_tracer_level"));
}

TEST(Levers, UnrecordedTimeStaysQuietUnderAFifthOfTheStep) {
  // Shampoo's step leaves 70 µs of 1 ms unrecorded; a busy device none.
  EXPECT_EQ(find(analyse(shampoo_step(), kKineto), "unrecorded_time"), nullptr);
  EXPECT_EQ(find(analyse({{kCompute, "volta_sgemm_128x64_nn", Category::kernel, 0, 1000}}, kKineto),
                 "unrecorded_time"),
            nullptr);
  // 190 µs unrecorded (19 %): under the 20 % the lever needs.
  EXPECT_EQ(find(analyse({{kMain, "aten::mm", Category::host_compute, 0, 810}}, kKineto),
                 "unrecorded_time"),
            nullptr);
}

}  // namespace
