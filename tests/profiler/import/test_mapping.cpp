// Each mapping rule of README.md on small hand-written traces, checked through store::Reader.
#include <gtest/gtest.h>

#include <algorithm>
#include <set>

#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::EventView;
using test::ImportDir;
using test::x_event;
using trace::Category;
using trace::TrackKind;

const EventView& get(const std::vector<EventView>& v, const std::string& name) {
  const EventView* e = test::find_event(v, name);
  if (e == nullptr) throw std::runtime_error("no event " + name);
  return *e;
}

std::string meta_line(const std::string& pid, const std::string& tid, const std::string& what,
                      const std::string& args) {
  return "{\"ph\":\"M\",\"name\":\"" + what + "\",\"pid\":" + pid + ",\"tid\":" + tid +
         ",\"ts\":0,\"args\":" + args + "}";
}

// One training step of a Kineto trace with a schedule, two threads and one GPU.
std::string step_trace() {
  return test::kineto_trace(
      {meta_line("10", "10", "thread_name", "{\"name\":\"thread 10 (python)\"}"),
       meta_line("0", "0", "process_labels", "{\"labels\":\"GPU 0\"}"),
       x_event("user_annotation", "ProfilerStep#5", 10, 10, "1000", "100"),
       x_event("user_annotation", "ProfilerStep#6", 10, 10, "1100", "100"),
       x_event("gpu_user_annotation", "ProfilerStep#5", 0, 7, "1000", "150"),
       x_event("user_annotation", "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", 10,
               10, "1001", "10"),
       x_event("cpu_op", "aten::mm", 10, 10, "1040", "30"),
       x_event("cuda_runtime", "cudaLaunchKernel", 10, 10, "1050", "5",
               "{\"correlation\":42,\"cbid\":211}"),
       x_event("kernel", "gemm", 0, 7, "1150", "20",
               "{\"device\":0,\"stream\":7,\"correlation\":42}"),
       x_event("kernel", "fill", 0, 7, "1120", "5", "{\"device\":0,\"stream\":7}"),
       x_event("cpu_op", "autograd::engine::evaluate_function: MulBackward0", 10, 11, "1060", "10"),
       x_event("user_annotation", "Optimizer.step#SGD.step", 10, 10, "1180", "10"),
       x_event("cuda_runtime", "cudaStreamSynchronize", 10, 10, "1191", "5",
               "{\"correlation\":43}"),
       x_event("cuda_sync", "Stream Sync", 0, 1000007, "1192", "3",
               "{\"stream\":7,\"correlation\":43}"),
       x_event("Trace", "PyTorch Profiler (0)", 10, 10, "900", "400"),
       "{\"ph\":\"i\",\"s\":\"g\",\"name\":\"Iteration Start: PyTorch "
       "Profiler\",\"pid\":\"Traces\",\"tid\":\"T\",\"ts\":900}",
       "{\"ph\":\"s\",\"id\":42,\"pid\":10,\"tid\":10,\"ts\":1050,\"cat\":\"ac2g\",\"name\":"
       "\"ac2g\"}"},
      "\"deviceProperties\":[{\"id\":0,\"name\":\"NVIDIA A100\"},{\"id\":1,\"name\":\"NVIDIA "
      "A100\"}]");
}

// Step markers' names are not stored while parsing when PyTorch wrote them (ProfilerStep#N):
// they come back whole, and names only like them (a leading zero, a number past 2^31 - 1) are
// read as before.
TEST(ImportMapping, StepMarkerNamesComeBackWhole) {
  ImportDir dir;
  test::import_text(
      dir, test::kineto_trace(
               {x_event("user_annotation", "ProfilerStep#0", 10, 10, "1000", "100"),
                x_event("user_annotation", "ProfilerStep#07", 10, 10, "1100", "100"),
                x_event("user_annotation", "ProfilerStep#2147483647", 10, 10, "1200", "100"),
                x_event("user_annotation", "ProfilerStep#2147483648", 10, 10, "1210", "10")}));
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  EXPECT_EQ(get(ev, "ProfilerStep#0").e.step, 0);
  EXPECT_EQ(get(ev, "ProfilerStep#0").category, Category::step);
  EXPECT_EQ(get(ev, "ProfilerStep#7").e.step, 7);  // the numbered label's name: N as a number
  EXPECT_EQ(get(ev, "ProfilerStep#2147483647").e.step, 2147483647);
  EXPECT_NE(get(ev, "ProfilerStep#2147483648").category, Category::step);
  EXPECT_EQ(get(ev, "ProfilerStep#2147483648").e.step, 2147483647);  // inside that step
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 3u);
  EXPECT_EQ(steps[2].step, 2147483647);
}

TEST(ImportMapping, StepsTracksCategoriesAndCorrelation) {
  ImportDir dir;
  const ImportStats stats = test::import_text(dir, step_trace());
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);

  EXPECT_EQ(get(ev, "ProfilerStep#5").category, Category::step);
  EXPECT_EQ(get(ev, "ProfilerStep#5").e.step, 5);
  EXPECT_EQ(get(ev, "ProfilerStep#5").kind, TrackKind::thread);  // the device copy is dropped
  EXPECT_EQ(std::count_if(ev.begin(), ev.end(),
                          [](const EventView& e) { return e.name == "ProfilerStep#5"; }),
            1);
  // The markers share one numbered label; their names come back whole from the step.
  EXPECT_EQ(get(ev, "ProfilerStep#6").e.label, get(ev, "ProfilerStep#5").e.label);
  EXPECT_EQ(r.label(get(ev, "ProfilerStep#5").e.label).name, "ProfilerStep#");
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].step, 5);
  EXPECT_EQ(steps[0].start_ns, 1000000);
  EXPECT_EQ(steps[0].dur_ns, 100000);
  EXPECT_EQ(steps[1].step, 6);

  const EventView& loader = get(ev, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__");
  EXPECT_EQ(loader.category, Category::input_wait);
  EXPECT_EQ(loader.e.step, 5);
  EXPECT_EQ(get(ev, "aten::mm").category, Category::host_compute);
  EXPECT_EQ(get(ev, "Optimizer.step#SGD.step").category, Category::optimizer);
  EXPECT_EQ(get(ev, "Optimizer.step#SGD.step").e.step, 6);

  const EventView& launch = get(ev, "cudaLaunchKernel");
  EXPECT_EQ(launch.category, Category::launch);
  EXPECT_EQ(launch.correlation, 42);
  const EventView& gemm = get(ev, "gemm");
  EXPECT_EQ(gemm.category, Category::kernel);
  EXPECT_EQ(gemm.kind, TrackKind::device_queue);
  EXPECT_EQ(gemm.track, "GPU 0 stream 7");
  EXPECT_EQ(gemm.correlation, 42);
  EXPECT_EQ(gemm.e.step, 5);             // its launch's step, although it runs during step 6
  EXPECT_EQ(get(ev, "fill").e.step, 6);  // no launch: by time

  const EventView& backward = get(ev, "autograd::engine::evaluate_function: MulBackward0");
  EXPECT_EQ(backward.track, "pid 10 tid 11");
  EXPECT_EQ(backward.e.step, 5);  // host events of any thread, by time
  EXPECT_EQ(get(ev, "aten::mm").track, "thread 10 (python)");

  EXPECT_EQ(get(ev, "cudaStreamSynchronize").category, Category::sync);
  const EventView& sync = get(ev, "Stream Sync");
  EXPECT_EQ(sync.category, Category::sync);
  EXPECT_EQ(sync.track, "GPU 0 sync");
  EXPECT_EQ(sync.kind, TrackKind::thread);  // evidence, never device busy
  EXPECT_EQ(sync.correlation, 43);

  EXPECT_EQ(stats.skipped.at("gpu_annotation"), 1u);
  EXPECT_EQ(stats.skipped.at("trace_span"), 1u);
  EXPECT_EQ(stats.skipped.at("instant_event"), 1u);
  EXPECT_EQ(stats.skipped.at("flow"), 1u);
  EXPECT_EQ(stats.processes, 1);
  EXPECT_EQ(stats.events_written, ev.size());

  // Host thread tracks with the os tid; one process row that every track belongs to.
  ASSERT_EQ(r.processes().size(), 1u);
  EXPECT_EQ(r.processes()[0].name, "trace.json");
  EXPECT_EQ(r.processes()[0].rank, store::kNull);
  EXPECT_EQ(r.processes()[0].pid, 10);
  for (const store::Track& t : r.tracks()) EXPECT_EQ(t.process, r.processes()[0].id) << t.name;
  const store::Track* main = nullptr;
  for (const store::Track& t : r.tracks())
    if (t.name == "thread 10 (python)") main = &t;
  ASSERT_NE(main, nullptr);
  EXPECT_EQ(main->os_tid, 10);

  EXPECT_EQ(r.meta("import.format"), "kineto");
  EXPECT_EQ(r.meta("engine.model"), "PyTorch trace");
  EXPECT_EQ(r.meta("engine.device"), "NVIDIA A100");
  EXPECT_EQ(r.meta("clock.origin_ns"), "1000000");
  EXPECT_EQ(r.meta("clock.alignment"), "absolute timestamps as recorded (no alignment)");
  EXPECT_EQ(r.meta("import.events"), std::to_string(ev.size()));
  EXPECT_EQ(r.meta("import.skipped.gpu_annotation"), "1");
  EXPECT_EQ(r.meta("import.source"), dir.file("trace.json"));
  EXPECT_NE(r.meta("import.bytes").value_or("0"), "0");
  EXPECT_EQ(r.meta("steps.source").value_or("").rfind("ProfilerStep#N markers", 0), 0u);
  EXPECT_EQ(stats.steps_source, r.meta("steps.source"));
  // Both host threads hold the trainer's work (the autograd thread runs backward).
  std::set<std::string> trainer;
  const std::string list = r.meta("analysis.trainer_tracks").value_or("");
  for (const store::Track& t : r.tracks())
    if (test::in_id_list(list, t.id)) trainer.insert(t.name);
  EXPECT_EQ(trainer, (std::set<std::string>{"thread 10 (python)", "pid 10 tid 11"}));
}

TEST(ImportMapping, CopiesMemsetsAndCollectives) {
  ImportDir dir;
  test::import_text(
      dir, test::kineto_trace({
               x_event("gpu_memcpy", "Memcpy HtoD (Pinned -> Device)", 0, 7, "10", "2",
                       "{\"bytes\":4096,\"correlation\":1}"),
               x_event("gpu_memcpy", "Memcpy DtoH (Device -> Pageable)", 0, 7, "20", "2",
                       "{\"bytes\":8}"),
               x_event("gpu_memcpy", "Memcpy DtoD (Device -> Device)", 0, 7, "30", "2",
                       "{\"bytes\":64}"),
               x_event("Memcpy", "Memcpy HtoD (Host -> Device)", 2, 0, "40", "2",
                       "{\"device\":2,\"stream\":0,\"kind\":\"HtoD\"}"),
               x_event("gpu_memcpy", "Memcpy", 2, 0, "45", "2", "{\"kind\":\"DtoH\"}"),
               x_event("gpu_memset", "Memset (Device)", 0, 7, "50", "1", "{\"bytes\":8}"),
               x_event("kernel", "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)", 0, 21,
                       "60", "9", "{\"In msg nelems\":1024,\"dtype\":\"Float\"}"),
               x_event("Kernel", "ncclDevKernel_SendRecv(x)", 0, 21, "70", "9"),
               x_event("kernel", "void at::native::elementwise_kernel<128>()", 0, 7, "80", "3"),
               x_event("user_annotation", "nccl:all_reduce", 10, 10, "60", "5"),
               x_event("user_annotation", "gloo:all_reduce", 10, 12, "60", "5"),
               x_event("cpu_op", "record_param_comms", 10, 10, "61", "3"),
               x_event("python_function", "torch/nn/modules/module.py(1501): _call_impl", 10, 10,
                       "62", "1"),
           }));
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  EXPECT_EQ(get(ev, "Memcpy HtoD (Pinned -> Device)").category, Category::h2d);
  EXPECT_EQ(get(ev, "Memcpy HtoD (Pinned -> Device)").e.bytes, 4096);
  EXPECT_EQ(get(ev, "Memcpy DtoH (Device -> Pageable)").category, Category::d2h);
  EXPECT_EQ(get(ev, "Memcpy DtoD (Device -> Device)").category, Category::kernel);  // device busy
  EXPECT_EQ(get(ev, "Memcpy HtoD (Host -> Device)").category, Category::h2d);  // ROCm: no bytes
  EXPECT_EQ(get(ev, "Memcpy HtoD (Host -> Device)").e.bytes, store::kNull);
  EXPECT_EQ(get(ev, "Memcpy HtoD (Host -> Device)").track, "GPU 2 stream 0");
  EXPECT_EQ(get(ev, "Memcpy").category, Category::d2h);  // the kind from args
  EXPECT_EQ(get(ev, "Memset (Device)").category, Category::kernel);
  const EventView& nccl = get(ev, "ncclKernel_AllReduce_RING_LL_Sum_float(ncclWorkElem)");
  EXPECT_EQ(nccl.category, Category::collective);
  EXPECT_EQ(nccl.e.bytes, 4096);  // 1024 floats
  EXPECT_EQ(nccl.kind, TrackKind::device_queue);
  EXPECT_EQ(get(ev, "ncclDevKernel_SendRecv(x)").category, Category::collective);
  EXPECT_EQ(get(ev, "ncclDevKernel_SendRecv(x)").e.bytes, store::kNull);
  EXPECT_EQ(get(ev, "void at::native::elementwise_kernel<128>()").category, Category::kernel);
  EXPECT_EQ(get(ev, "nccl:all_reduce").category, Category::collective);
  EXPECT_EQ(get(ev, "gloo:all_reduce").category, Category::collective);
  EXPECT_EQ(get(ev, "record_param_comms").category, Category::collective);
  EXPECT_EQ(get(ev, "torch/nn/modules/module.py(1501): _call_impl").category,
            Category::host_compute);
  EXPECT_EQ(r.meta("steps.source").value_or("").rfind("none:", 0), 0u);
  EXPECT_EQ(r.meta("analysis.trainer_tracks"), "");  // no steps: no trainer
}

TEST(ImportMapping, RuntimeCallsAreLaunchesOrSyncs) {
  const std::vector<std::pair<std::string, Category>> calls = {
      {"cudaLaunchKernel", Category::launch},
      {"cudaLaunchKernelExC_v11060", Category::launch},
      {"cuLaunchKernel", Category::launch},
      {"cudaGraphLaunch", Category::launch},
      {"cudaMemcpyAsync", Category::launch},
      {"cudaMemsetAsync", Category::launch},
      {"hipLaunchKernel", Category::launch},
      {"hipExtModuleLaunchKernel", Category::launch},
      {"hipMemcpyAsync", Category::launch},
      {"cudaGetDeviceCount", Category::launch},
      {"cudaStreamWaitEvent", Category::launch},
      {"cudaDeviceSynchronize", Category::sync},
      {"cudaStreamSynchronize", Category::sync},
      {"cudaEventSynchronize", Category::sync},
      {"cudaMemcpy", Category::sync},
      {"cudaMemcpy2D", Category::sync},
      {"cudaMemcpy_v3020", Category::sync},
      {"cuCtxSynchronize", Category::sync},
      {"cuStreamSynchronize", Category::sync},
      {"hipDeviceSynchronize", Category::sync},
      {"hipStreamSynchronize", Category::sync},
      {"hipMemcpyWithStream", Category::sync},
      {"hipEventSynchronize", Category::sync}};
  std::vector<std::string> events;
  int t = 0;
  for (const auto& [name, cat] : calls) {
    events.push_back(x_event(t % 3 == 0   ? "cuda_runtime"
                             : t % 3 == 1 ? "Runtime"
                                          : "cuda_driver",
                             name, 1, 1, std::to_string(100 + 10 * t), "2"));
    ++t;
  }
  ImportDir dir;
  test::import_text(dir, test::kineto_trace(events));
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  for (const auto& [name, cat] : calls) EXPECT_EQ(get(ev, name).category, cat) << name;
}

TEST(ImportMapping, CountersFromMemoryInstantsAndCounterEvents) {
  ImportDir dir;
  test::import_text(
      dir, test::kineto_trace({
               x_event("cpu_op", "aten::empty", 1, 1, "5", "1"),
               "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,"
               "\"tid\":1,\"ts\":10,"
               "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Addr\":1,\"Bytes\":512,\"Total "
               "Allocated\":2048,\"Total Reserved\":4096}}",
               "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"name\":\"[memory]\",\"pid\":1,"
               "\"tid\":1,\"ts\":12,"
               "\"args\":{\"Device Type\":1,\"Device Id\":0,\"Total Allocated\":1024}}",
               "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":11,"
               "\"args\":{\"Device Type\":0,\"Device Id\":-1,\"Total Allocated\":100}}",
               "{\"ph\":\"C\",\"name\":\"queue\",\"pid\":1,\"ts\":20,\"args\":{\"depth\":3,"
               "\"bytes\":7.5}}",
               "{\"name\":\"queue\",\"args\":{\"depth\":4},\"ts\":30,\"pid\":1,\"ph\":\"C\"}",
               "{\"ph\":\"C\",\"name\":\"bad\",\"pid\":1,\"ts\":31,\"args\":{\"v\":NaN}}",
           }));
  store::Reader r(dir.file("out.db"));
  std::map<std::string, std::vector<std::pair<std::int64_t, double>>> series;
  for (const store::Track& t : r.tracks()) {
    if (t.kind != TrackKind::counter) continue;
    for (const store::CounterSample& s : r.counter(t.id, 0, 1'000'000))
      series[t.name].emplace_back(s.ts_ns, s.value);
  }
  using S = std::vector<std::pair<std::int64_t, double>>;
  EXPECT_EQ(series["GPU 0 memory allocated"], (S{{10000, 2048}, {12000, 1024}}));
  EXPECT_EQ(series["GPU 0 memory reserved"], (S{{10000, 4096}}));
  EXPECT_EQ(series["CPU memory allocated"], (S{{11000, 100}}));
  EXPECT_EQ(series["queue depth"], (S{{20000, 3}, {30000, 4}}));
  EXPECT_EQ(series["queue bytes"], (S{{20000, 7.5}}));
  EXPECT_EQ(r.meta("import.skipped.invalid_counter"), "1");
}

std::string memory_delta(int ts, int device_type, int device_id, long long bytes) {
  return "{\"ph\":\"i\",\"cat\":\"cpu_instant_event\",\"s\":\"t\",\"name\":\"[memory]\","
         "\"pid\":1,\"tid\":1,\"ts\":" +
         std::to_string(ts) + ",\"args\":{\"Device Type\":" + std::to_string(device_type) +
         ",\"Device Id\":" + std::to_string(device_id) +
         ",\"Addr\":7,\"Bytes\":" + std::to_string(bytes) + "}}";
}

// The older form holds each allocation's Bytes only: summed per device in time order, whatever
// the file's order.
TEST(ImportMapping, MemoryBytesDeltasAreSummedPerDeviceInTimeOrder) {
  ImportDir dir;
  test::import_text(dir, test::kineto_trace({
                             x_event("cpu_op", "aten::empty", 1, 1, "5", "1"),
                             memory_delta(30, 1, 0, -1000),
                             memory_delta(10, 1, 0, 1000),
                             memory_delta(20, 1, 0, 500),
                             memory_delta(15, 1, 1, 64),
                             memory_delta(12, 0, -1, 8),
                             "{\"ph\":\"i\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,"
                             "\"ts\":40,\"args\":{\"Device Type\":1,\"Device Id\":0}}",
                         }));
  store::Reader r(dir.file("out.db"));
  std::map<std::string, std::vector<std::pair<std::int64_t, double>>> series;
  for (const store::Track& t : r.tracks()) {
    if (t.kind != TrackKind::counter) continue;
    for (const store::CounterSample& s : r.counter(t.id, 0, 1'000'000))
      series[t.name].emplace_back(s.ts_ns, s.value);
  }
  using S = std::vector<std::pair<std::int64_t, double>>;
  EXPECT_EQ(series["GPU 0 memory allocated"], (S{{10000, 1000}, {20000, 1500}, {30000, 500}}));
  EXPECT_EQ(series["GPU 1 memory allocated"], (S{{15000, 64}}));
  EXPECT_EQ(series["CPU memory allocated"], (S{{12000, 8}}));
  EXPECT_EQ(series.count("GPU 0 memory reserved"), 0u);
  // A [memory] event with neither Bytes nor Total Allocated says nothing.
  EXPECT_EQ(r.meta("import.skipped.invalid_counter"), "1");
}

TEST(ImportMapping, DevicePropertiesGoToMeta) {
  ImportDir dir;
  test::import_text(
      dir, test::kineto_trace({x_event("cpu_op", "aten::empty", 1, 1, "5", "1")},
                              "\"deviceProperties\":[{\"id\":0,\"name\":\"Tesla V100\","
                              "\"totalGlobalMem\":16945512448,\"computeMajor\":7,"
                              "\"computeMinor\":0,\"numSms\":80},"
                              "{\"id\":1,\"name\":\"Tesla V100\",\"totalGlobalMem\":\"x\"}]"));
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(r.meta("engine.device"), "Tesla V100");
  EXPECT_EQ(r.meta("device.gpu.0.name"), "Tesla V100");
  EXPECT_EQ(r.meta("device.gpu.0.total_memory_bytes"), "16945512448");
  EXPECT_EQ(r.meta("device.gpu.0.compute_major"), "7");
  EXPECT_EQ(r.meta("device.gpu.0.compute_minor"), "0");
  EXPECT_EQ(r.meta("device.gpu.1.name"), "Tesla V100");
  EXPECT_FALSE(r.meta("device.gpu.1.total_memory_bytes").has_value());  // not a number
}

TEST(ImportMapping, KernelsAchievedOccupancyIsTimeWeightedIntoMeta) {
  ImportDir dir;
  const std::string occupancy = "{\"device\":0,\"stream\":7,\"est. achieved occupancy %\":";
  // 30 µs at 20 % and 10 µs at 60 %: (30 x 20 + 10 x 60) / 40 = 30 %. A value out of range and
  // an event without the arg do not count.
  test::import_text(
      dir, test::kineto_trace({x_event("kernel", "a", 0, 7, "10", "30", occupancy + "20}"),
                               x_event("kernel", "b", 0, 7, "50", "10", occupancy + "60}"),
                               x_event("kernel", "c", 0, 7, "70", "10", occupancy + "250}"),
                               x_event("kernel", "d", 0, 7, "90", "10")}));
  store::Reader r(dir.file("out.db"));
  ASSERT_TRUE(r.meta("kernels.achieved_occupancy_pct").has_value());
  EXPECT_NEAR(std::stod(*r.meta("kernels.achieved_occupancy_pct")), 30.0, 1e-9);

  ImportDir none;
  test::import_text(none, test::kineto_trace({x_event("kernel", "a", 0, 7, "10", "30")}));
  EXPECT_FALSE(store::Reader(none.file("out.db")).meta("kernels.achieved_occupancy_pct"));
}

TEST(ImportMapping, DistributedInfoMakesARankedProcess) {
  ImportDir dir;
  test::import_text(dir, test::kineto_trace({x_event("cpu_op", "aten::add", 77, 77, "1", "1")},
                                            "\"host_name\":\"node3\",\"distributedInfo\":{"
                                            "\"backend\":\"nccl\",\"rank\":3,\"world_size\":8}"));
  store::Reader r(dir.file("out.db"));
  ASSERT_EQ(r.processes().size(), 1u);
  EXPECT_EQ(r.processes()[0].rank, 3);
  EXPECT_EQ(r.processes()[0].pid, 77);
  EXPECT_EQ(r.processes()[0].host, "node3");
  EXPECT_EQ(r.processes()[0].name, "rank 3 (node3 pid 77)");
  EXPECT_EQ(r.meta("import.world_size"), "8");
  EXPECT_EQ(r.meta("import.distributed_backend"), "nccl");
}

TEST(ImportMapping, LegacyBareArray) {
  ImportDir dir;
  const std::string t =
      "[{\"name\": \"ProfilerStep#1\", \"ph\": \"X\", \"ts\": 149, \"dur\": 200, \"tid\": 1, "
      "\"pid\": \"CPU functions\", \"args\": {}},"
      " {\"name\": \"enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__\", \"ph\": \"X\", "
      "\"ts\": 160, \"dur\": 50, \"tid\": 1, \"pid\": \"CPU functions\", \"args\": {}},"
      " {\"name\": \"aten::conv2d\", \"ph\": \"X\", \"ts\": 220, \"dur\": 100, \"tid\": 1, "
      "\"pid\": \"CPU functions\", \"args\": {}},"
      " {\"name\": \"ProfilerStep#2\", \"ph\": \"X\", \"ts\": 349, \"dur\": 200, \"tid\": 1, "
      "\"pid\": \"CPU functions\", \"args\": {}},"
      " {\"ph\": \"s\", \"id\": 1, \"pid\": \"CPU functions\", \"tid\": 1, \"ts\": 230, \"cat\": "
      "\"cpu_to_cuda\", \"name\": \"x\"}]";
  const ImportStats stats = test::import_text(dir, t);
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  EXPECT_EQ(r.meta("import.format"), "legacy array");
  EXPECT_EQ(r.meta("engine.model"), "PyTorch trace");
  EXPECT_EQ(r.steps().size(), 2u);
  EXPECT_EQ(get(ev, "aten::conv2d").category, Category::host_compute);
  EXPECT_EQ(get(ev, "aten::conv2d").e.step, 1);
  EXPECT_EQ(get(ev, "aten::conv2d").track, "pid CPU functions tid 1");
  EXPECT_EQ(get(ev, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__").category,
            Category::input_wait);
  EXPECT_EQ(stats.skipped.at("flow"), 1u);
}

TEST(ImportMapping, GenericChromeTrace) {
  ImportDir dir;
  const std::string t = R"({"traceEvents":[
    {"ph":"M","name":"thread_name","pid":"browser","tid":5,"args":{"name":"CrBrowserMain"}},
    {"ph":"B","name":"outer","pid":"browser","tid":5,"ts":100},
    {"ph":"B","name":"inner","pid":"browser","tid":5,"ts":110},
    {"ph":"E","pid":"browser","tid":5,"ts":120},
    {"ph":"E","pid":"browser","tid":5,"ts":200},
    {"ph":"E","pid":"browser","tid":5,"ts":300},
    {"ph":"B","name":"never ends","pid":"browser","tid":6,"ts":150},
    {"ph":"X","name":"task","cat":"toplevel","pid":"browser","tid":5,"ts":210,"dur":5},
    {"ph":"I","name":"mark","pid":"browser","tid":5,"ts":211},
    {"ph":"b","name":"async","id":"0x1","pid":"browser","tid":5,"ts":212},
    {"ph":"e","name":"async","id":"0x1","pid":"browser","tid":5,"ts":213},
    {"ph":"C","name":"heap","pid":"browser","ts":214,"args":{"used":10}},
    {"ph":"Q","name":"what","pid":"browser","tid":5,"ts":215},
    {"ph":"P","name":"sample","pid":"browser","tid":5,"ts":216}
  ],"displayTimeUnit":"ms"})";
  const ImportStats stats = test::import_text(dir, t);
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  EXPECT_EQ(r.meta("import.format"), "chrome");
  EXPECT_EQ(r.meta("engine.model"), "Chrome trace");
  EXPECT_EQ(get(ev, "outer").e.start_ns, 100000);
  EXPECT_EQ(get(ev, "outer").e.dur_ns, 100000);
  EXPECT_EQ(get(ev, "inner").e.dur_ns, 10000);
  EXPECT_EQ(get(ev, "outer").track, "CrBrowserMain");
  EXPECT_EQ(get(ev, "outer").category, Category::other);  // a generic span says nothing more
  EXPECT_EQ(get(ev, "task").category, Category::other);
  EXPECT_EQ(stats.skipped.at("unpaired_end"), 1u);
  EXPECT_EQ(stats.skipped.at("unclosed_begin"), 1u);
  EXPECT_EQ(stats.skipped.at("instant_event"), 1u);
  EXPECT_EQ(stats.skipped.at("async_event"), 2u);
  EXPECT_EQ(stats.skipped.at("unknown_phase"), 1u);
  EXPECT_EQ(stats.skipped.at("unsupported_phase"), 1u);
  EXPECT_EQ(r.meta("import.skipped.unpaired_end"), "1");
  bool heap = false;
  for (const store::Track& tr : r.tracks())
    heap = heap || (tr.name == "heap used" && tr.kind == TrackKind::counter);
  EXPECT_TRUE(heap);
}

TEST(ImportMapping, StepMarkerRegexNamesTheSteps) {
  ImportDir dir;
  ImportOptions o;
  o.step_marker = "^train_step$";
  test::import_text(dir,
                    test::kineto_trace({
                        x_event("user_annotation", "ProfilerStep#1", 1, 1, "0",
                                "1000"),  // not a step under --step-marker
                        x_event("user_annotation", "train_step", 1, 1, "100", "200"),
                        x_event("user_annotation", "train_step", 1, 1, "120",
                                "50"),  // nested: not a step of its own
                        x_event("user_annotation", "train_step", 1, 1, "400", "200"),
                        x_event("cpu_op", "aten::mm", 1, 1, "450", "10"),
                    }),
                    o);
  store::Reader r(dir.file("out.db"));
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].step, 1);
  EXPECT_EQ(steps[0].start_ns, 100000);
  EXPECT_EQ(steps[1].step, 2);
  const auto ev = test::all_events(r);
  EXPECT_EQ(get(ev, "aten::mm").e.step, 2);
  EXPECT_EQ(get(ev, "ProfilerStep#1").category, Category::host_compute);
  EXPECT_EQ(r.meta("steps.source").value_or("").rfind("--step-marker '^train_step$'", 0), 0u);
  ImportOptions bad;
  bad.step_marker = "(unclosed";
  EXPECT_THROW(test::import_text(dir, "[]", bad, "x.json"), ImportError);
}

TEST(ImportMapping, StepsInferredFromTheDataLoaderCadence) {
  ImportDir dir;
  std::vector<std::string> events;
  for (int k = 0; k < 4; ++k) {
    const int t0 = 1000 * k;
    events.push_back(x_event("user_annotation",
                             "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1, 1,
                             std::to_string(t0), "100"));
    events.push_back(x_event("cpu_op", "aten::conv2d", 1, 1, std::to_string(t0 + 200), "500"));
  }
  test::import_text(dir, test::kineto_trace(events));
  store::Reader r(dir.file("out.db"));
  const auto steps = r.steps();
  ASSERT_EQ(steps.size(), 4u);
  EXPECT_EQ(steps[0].start_ns, 0);
  EXPECT_EQ(steps[0].dur_ns, 1000000);
  EXPECT_EQ(steps[3].start_ns, 3000000);
  EXPECT_EQ(steps[3].dur_ns, 700000);  // to the end of the thread's last event
  EXPECT_EQ(
      r.meta("steps.source").value_or("").rfind("inferred: one step per DataLoader __next__", 0),
      0u);
  const auto ev = test::all_events(r);
  for (const EventView& e : ev) {
    if (e.name == "aten::conv2d") {
      EXPECT_EQ(e.e.step, e.e.start_ns / 1000000 + 1);
    }
  }
}

TEST(ImportMapping, StepsInferredFromARepeatingAnnotation) {
  ImportDir dir;
  std::vector<std::string> events;
  for (int k = 0; k < 3; ++k) {
    events.push_back(
        x_event("user_annotation", "iteration", 1, 1, std::to_string(1000 * k), "900"));
    events.push_back(
        x_event("user_annotation", "forward", 1, 1, std::to_string(1000 * k + 10), "400"));
  }
  events.push_back(x_event("user_annotation", "setup", 1, 1, "5000", "10"));
  test::import_text(dir, test::kineto_trace(events));
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(r.steps().size(), 3u);
  EXPECT_NE(r.meta("steps.source").value_or("").find("top-level 'iteration' annotation"),
            std::string::npos)
      << r.meta("steps.source").value_or("");
  const auto ev = test::all_events(r);
  EXPECT_EQ(get(ev, "iteration").category, Category::step);
  EXPECT_EQ(get(ev, "forward").category, Category::host_compute);
}

TEST(ImportMapping, DuplicatesAreDroppedAndCounted) {
  ImportDir dir;
  const std::string a = x_event("cpu_op", "aten::add", 1, 1, "10", "5");
  const ImportStats stats = test::import_text(
      dir, test::kineto_trace({a, a, a, x_event("cpu_op", "aten::mul", 1, 1, "10", "5")}));
  EXPECT_EQ(stats.skipped.at("duplicate"), 2u);
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(test::all_events(r).size(), 2u);  // same start and length, other name: both kept
}

}  // namespace
}  // namespace ts::import
