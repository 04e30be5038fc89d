// TensorFlow profiles: every mapping rule of profiler/import/README.md ("TensorFlow profiles")
// on small XSpace messages: host threads, tf.data stages and their stored names, the input wait,
// host compute, containers, optimizer and decode ops, memory counters, GPU streams, CUPTI driver
// calls with their correlation ids, skipped planes and lines, the trainer tracks and the meta.
#include <gtest/gtest.h>

#include <map>

#include "tests/profiler/import/xplane_test_util.hpp"

namespace ts::import {
namespace {

using test::add_event;
using test::add_line;
using test::add_plane;
using test::add_task_environment;
using test::EventView;
using test::ImportDir;
using test::stat_int;
using test::stat_ref;
using test::stat_str;
using test::xp::XSpace;
using trace::Category;
using trace::TrackKind;

constexpr std::int64_t kStart = 1795448679225870962;
constexpr std::int64_t kUs = 1000000;  // ps

const EventView& one(const std::vector<EventView>& events, const std::string& name) {
  static const EventView none{};
  for (const EventView& e : events)
    if (e.name == name) return e;
  ADD_FAILURE() << "no event named " << name;
  return none;
}

// The category each stored name has (every event of a name must agree).
std::map<std::string, Category> categories(const std::vector<EventView>& events) {
  std::map<std::string, Category> out;
  for (const EventView& e : events) {
    const auto [it, fresh] = out.emplace(e.name, e.category);
    EXPECT_TRUE(fresh || it->second == e.category) << e.name;
  }
  return out;
}

TEST(XPlaneMapping, TfDataStagesAreStoredByTheirShortKind) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 11, "tf_data_iterator_get_next/11", 0);
  const std::vector<std::pair<std::string, Category>> stages = {
      {"Iterator::Root", Category::other},
      {"Iterator::Root::Prefetch", Category::other},
      {"Iterator::Root::Prefetch::BatchV2", Category::input_batch},
      {"Iterator::Root::Prefetch::BatchV2::ParallelMapV2", Category::input_map},
      {"Iterator::Root::BatchV2::Map", Category::input_map},
      {"Iterator::Root::BatchV2::Map::TensorSlice", Category::input_read},
      {"Iterator::Root::MapAndBatch", Category::input_map},
      {"Iterator::Root::ParallelInterleaveV4[0]::TFRecord", Category::input_read},
      {"Iterator::Root::ParallelInterleaveV4", Category::input_map},
      {"Iterator::Root::Interleave", Category::input_map},
      {"Iterator::Root::FlatMap[3]::TextLine", Category::input_read},
      {"Iterator::Root::FixedLengthRecord", Category::input_read},
      {"Iterator::Root::FlatMap[0]::Generator", Category::input_read},
      {"Iterator::Root::FromTensor", Category::input_read},
      {"Iterator::Root::Range", Category::input_read},
      {"Iterator::Root::Filter", Category::input_map},
      {"Iterator::Root::PaddedBatchV2", Category::input_batch},
      {"Iterator::Root::ParallelBatch", Category::input_batch},
      {"Iterator::Root::Unbatch", Category::input_batch},
      {"Iterator::Root::ParseExample", Category::input_decode},
      {"Iterator::Root::Shuffle", Category::other},
      {"Iterator::Root::ForeverRepeat", Category::other},
      {"Iterator::Root::BatchV2::MemoryCache", Category::other},
      {"Iterator::Root::BatchV2::MemoryCacheImpl", Category::other},
      {"Iterator::Model::Prefetch", Category::other},  // older TF's root
  };
  std::int64_t t = 0;
  for (const auto& [name, category] : stages) {
    const std::string kind = name.substr(name.rfind("::") + 2);
    add_event(p, l, name, t, kUs, "Iterator::" + kind);
    t += 2 * kUs;
  }
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  const auto got = categories(r.events);
  for (const auto& [name, category] : stages) {
    std::string kind = name.substr(name.rfind("::") + 2);
    kind = kind.substr(0, kind.find('['));
    ASSERT_TRUE(got.count(kind)) << name << " stored as " << kind;
    EXPECT_EQ(got.at(kind), category) << name;
  }
  EXPECT_EQ(got.count("Iterator::Root::BatchV2::Map"), 0u);  // never the full path
}

TEST(XPlaneMapping, HostEventsOfTheTrainingStep) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& py = add_line(p, 1, "python", 0);
  auto& train = add_event(p, py, "train", 0, 1000 * kUs);
  stat_int(p, train, "_r", 1);
  stat_int(p, train, "step_num", 1);
  auto& tf_fn = add_event(p, py, "train_function", 10 * kUs, 900 * kUs);
  stat_ref(p, tf_fn, "tf_function_call", "notTraced-nonXla");
  add_event(p, py, "TFE_Py_ExecuteCancelable", 11 * kUs, 880 * kUs);
  add_event(p, py, "EagerExecute", 12 * kUs, 870 * kUs);
  add_event(p, py, "EagerLocalExecute: __inference_train_function_767", 13 * kUs, 860 * kUs);
  add_event(p, py, "EagerKernelExecute", 14 * kUs, 850 * kUs);
  add_event(p, py, "KernelAndDeviceFunc::Run", 15 * kUs, 840 * kUs);
  auto& fr = add_event(p, py, "FunctionRun", 16 * kUs, 5 * kUs);
  stat_int(p, fr, "_r", 1);
  add_event(p, py, "convert_to_tensor", 950 * kUs, 5 * kUs);
  auto& k3 = add_event(p, py, "multi_step_on_iterator", 960 * kUs, 5 * kUs);
  stat_ref(p, k3, "tf_function_call", "notTraced-nonXla");

  auto& compute = add_line(p, 2, "tf_Compute/2", 0);
  add_event(p, compute, "ExecutorState::Process", 20 * kUs, 100 * kUs);
  add_event(p, compute, "ExecutorState::ProcessAsync::Start", 21 * kUs, 1 * kUs);
  add_event(p, compute, "sequential/dense/MatMul:_MklMatMul", 30 * kUs, 10 * kUs, "_MklMatMul");
  add_event(p, compute, "Adam/mul_3:Mul", 50 * kUs, 1 * kUs, "Mul");
  add_event(p, compute, "StatefulPartitionedCall/adam/Sub_3:Sub", 52 * kUs, 1 * kUs, "Sub");
  add_event(p, compute, "SGD/update/ResourceApplyGradientDescent:ResourceApplyGradientDescent",
            54 * kUs, 1 * kUs, "ResourceApplyGradientDescent");
  add_event(p, compute, "gradient_tape/sequential/dense/MatMul:_MklMatMul", 56 * kUs, 1 * kUs,
            "_MklMatMul");
  add_event(p, compute, "IteratorGetNext:IteratorGetNext", 58 * kUs, 1 * kUs, "IteratorGetNext");
  add_event(p, compute, "ExecutorDoneCallback", 60 * kUs, 1 * kUs);
  auto& alloc = add_event(p, compute, "MemoryAllocation", 70 * kUs, 0);
  stat_ref(p, alloc, "allocator_name", "mklcpu");
  stat_int(p, alloc, "bytes_allocated", 2498560);
  auto& dealloc = add_event(p, compute, "MemoryDeallocation", 80 * kUs, 0);
  stat_ref(p, dealloc, "allocator_name", "mklcpu");
  stat_int(p, dealloc, "bytes_allocated", 2097152);
  auto& record = add_event(p, compute, "ThreadpoolListener::Record", 90 * kUs, 0);
  stat_int(p, record, "_pt", 15);

  auto& get_next = add_line(p, 3, "tf_data_iterator_get_next/3", 0);
  add_event(p, get_next, "IteratorGetNextOp::DoCompute", 100 * kUs, 700 * kUs);
  add_event(p, get_next, "Iterator::Root::BatchV2::Map", 110 * kUs, 600 * kUs, "Iterator::Map");
  add_event(p, get_next, "InstantiatedCapturedFunction::Run", 111 * kUs, 590 * kUs);
  add_event(p, get_next, "ExecutorState::ProcessAsync::Done", 805 * kUs, 2 * kUs);

  auto& resource = add_line(p, 4, "tf_data_iterator_resource/4", 0);
  add_event(p, resource, "PrefetchProduce", 100 * kUs, 50 * kUs);
  add_event(p, resource, "ParallelMapConsume", 101 * kUs, 1 * kUs);
  add_event(p, resource, "InstantiatedCapturedFunction::RunAsync", 110 * kUs, 5 * kUs);
  auto& tfd_fr = add_event(p, resource, "FunctionRun", 111 * kUs, 3 * kUs);
  stat_int(p, tfd_fr, "_r", 1);

  auto& pool = add_line(p, 5, "tf_data_private_threadpool/5", 0);
  add_event(p, pool, "ExecutorState::Process", 120 * kUs, 500 * kUs);
  add_event(p, pool, "resize/ResizeBilinear:ResizeBilinear", 130 * kUs, 100 * kUs,
            "ResizeBilinear");
  add_event(p, pool, "DecodeJpeg:DecodeJpeg", 240 * kUs, 100 * kUs, "DecodeJpeg");
  add_event(p, pool, "ParseExampleV2:ParseExampleV2", 350 * kUs, 50 * kUs, "ParseExampleV2");

  auto& eigen = add_line(p, 6, "tf_numa_-1_Eigen/6", 0);
  add_event(p, eigen, "ThreadpoolListener::StartRegion", 10 * kUs, 0);
  add_event(p, eigen, "ThreadpoolListener::StopRegion", 20 * kUs, 0);
  add_task_environment(s, kStart);

  ImportDir dir;
  const auto r = test::import_space(dir, s);
  const auto got = categories(r.events);
  const std::map<std::string, Category> want = {
      {"train", Category::step},
      {"train_function", Category::other},
      {"TFE_Py_ExecuteCancelable", Category::host_compute},
      {"EagerExecute", Category::other},
      {"EagerLocalExecute: __inference_train_function_767", Category::other},
      {"EagerKernelExecute", Category::other},
      {"KernelAndDeviceFunc::Run", Category::host_compute},
      {"FunctionRun", Category::other},
      {"convert_to_tensor", Category::host_compute},
      {"multi_step_on_iterator", Category::other},
      {"ExecutorState::Process", Category::host_compute},
      {"ExecutorState::ProcessAsync::Start", Category::host_compute},
      {"sequential/dense/MatMul:_MklMatMul", Category::host_compute},
      {"Adam/mul_3:Mul", Category::optimizer},
      {"StatefulPartitionedCall/adam/Sub_3:Sub", Category::optimizer},
      {"SGD/update/ResourceApplyGradientDescent:ResourceApplyGradientDescent", Category::optimizer},
      {"gradient_tape/sequential/dense/MatMul:_MklMatMul", Category::host_compute},
      {"IteratorGetNext:IteratorGetNext", Category::input_wait},
      {"ExecutorDoneCallback", Category::host_compute},
      {"IteratorGetNextOp::DoCompute", Category::input_wait},
      {"Map", Category::input_map},
      {"InstantiatedCapturedFunction::Run", Category::other},
      {"ExecutorState::ProcessAsync::Done", Category::host_compute},
      {"PrefetchProduce", Category::other},
      {"ParallelMapConsume", Category::other},
      {"InstantiatedCapturedFunction::RunAsync", Category::other},
      {"resize/ResizeBilinear:ResizeBilinear", Category::host_compute},
      {"DecodeJpeg:DecodeJpeg", Category::input_decode},
      {"ParseExampleV2:ParseExampleV2", Category::input_decode},
  };
  EXPECT_EQ(got, want);

  // Tracks: one thread per line that kept an event, named by the line.
  std::map<std::string, std::uint32_t> tracks;
  for (const store::Track& t : r.reader->tracks()) tracks[t.name] = t.id;
  EXPECT_TRUE(tracks.count("python"));
  EXPECT_TRUE(tracks.count("tf_Compute/2"));
  EXPECT_FALSE(tracks.count("tf_numa_-1_Eigen/6"));  // only instants: no track
  EXPECT_EQ(r.stats.skipped.at("instant_event"), 3u);

  // Trainer: the step's threads, not tf.data's workers.
  const std::string trainer = test::meta_or(*r.reader, "analysis.trainer_tracks");
  EXPECT_TRUE(test::in_id_list(trainer, tracks["python"]));
  EXPECT_TRUE(test::in_id_list(trainer, tracks["tf_Compute/2"]));
  EXPECT_TRUE(test::in_id_list(trainer, tracks["tf_data_iterator_get_next/3"]));
  EXPECT_FALSE(test::in_id_list(trainer, tracks["tf_data_iterator_resource/4"]));
  EXPECT_FALSE(test::in_id_list(trainer, tracks["tf_data_private_threadpool/5"]));

  // Memory events: a counter per allocator.
  ASSERT_TRUE(tracks.count("mklcpu memory allocated"));
  const auto samples = r.reader->counter(tracks["mklcpu memory allocated"], 0,
                                         std::numeric_limits<std::int64_t>::max());
  ASSERT_EQ(samples.size(), 2u);
  EXPECT_EQ(samples[0].ts_ns, kStart + 70000);
  EXPECT_EQ(samples[0].value, 2498560);
  EXPECT_EQ(samples[1].value, 2097152);

  // Every event inside the step carries it.
  for (const EventView& e : r.events) {
    if (e.e.start_ns < kStart + 1000000) {
      EXPECT_EQ(e.e.step, 1) << e.name;
    }
  }

  EXPECT_EQ(test::meta_or(*r.reader, "import.format"), "xplane");
  EXPECT_EQ(test::meta_or(*r.reader, "engine.model"), "TensorFlow profile");
  EXPECT_EQ(test::meta_or(*r.reader, "engine.device"), "");
  EXPECT_EQ(test::meta_or(*r.reader, "import.hosts"), "host");
  EXPECT_EQ(test::meta_or(*r.reader, "import.events"), std::to_string(r.stats.events_written));
  EXPECT_EQ(r.stats.events_written, r.events.size() + 2);  // + the two counter samples
  EXPECT_EQ(std::stoull(test::meta_or(*r.reader, "import.bytes")),
            std::filesystem::file_size(dir.file("host.xplane.pb")));
}

TEST(XPlaneMapping, GpuStreamsDriverCallsAndCorrelation) {
  XSpace s;
  auto& host = add_plane(s, "/host:CPU");
  auto& py = add_line(host, 1, "python", 0);
  for (int k = 0; k < 2; ++k) {
    auto& train = add_event(host, py, "train", k * 100 * kUs, 100 * kUs);
    stat_int(host, train, "_r", 1);
    stat_int(host, train, "step_num", k + 1);
  }
  auto& cupti = add_plane(s, "/host:CUPTI");
  auto& driver = add_line(cupti, 4242, "Host Threads/4242", 0);
  const auto call = [&](const std::string& name, std::int64_t t, std::int64_t corr) {
    auto& e = add_event(cupti, driver, name, t, kUs);
    stat_int(cupti, e, "correlation_id", corr);
  };
  call("cuLaunchKernel", 90 * kUs, 1);  // in step 1; its kernel runs in step 2's time
  call("cuMemcpyHtoDAsync_v2", 10 * kUs, 2);
  call("cuStreamSynchronize", 20 * kUs, 3);
  call("cuCtxSynchronize", 30 * kUs, 4);
  call("cuMemcpyDtoH_v2", 40 * kUs, 5);
  call("cuEventSynchronize", 50 * kUs, 6);
  call("cuLaunchCooperativeKernel", 60 * kUs, 7);

  auto& gpu = add_plane(s, "/device:GPU:0");
  auto& stream = add_line(gpu, 7, "Stream #7(Kernel,MemcpyH2D,MemcpyD2H)", 0);
  const auto dev = [&](const std::string& name, std::int64_t t,
                       std::int64_t corr) -> test::xp::XEvent& {
    auto& e = add_event(gpu, stream, name, t, 5 * kUs);
    stat_int(gpu, e, "correlation_id", corr);
    return e;
  };
  dev("void gemm_kernel<float>(float*, int)", 150 * kUs, 1);
  stat_ref(gpu, dev("MemcpyH2D", 12 * kUs, 2), "memcpy_details",
           "kind_src:pinned kind_dst:device size:4096 dest:0 async:1");
  stat_ref(gpu, dev("MemcpyD2H", 41 * kUs, 5), "memcpy_details", "kind:DtoH num_bytes:128");
  stat_ref(gpu, dev("MemcpyD2D", 60 * kUs, 8), "memcpy_details",
           "kind_src:device kind_dst:device size:64 dest:0 async:1");
  stat_ref(gpu, dev("Memcpy", 70 * kUs, 9), "memcpy_details",
           "kind_src:device kind_dst:pageable size:32 dest:0 async:0");
  stat_ref(gpu, dev("Memset", 80 * kUs, 10), "memset_details", "kind:device num_bytes:256 async:1");
  dev("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", 110 * kUs,
      11);
  auto& overhead = add_line(gpu, 8, "CUPTI overhead", 0);
  add_event(gpu, overhead, "overhead", 0, kUs);
  auto& derived = add_line(gpu, 9, "XLA Ops", 0);
  add_event(gpu, derived, "fusion.1", 0, kUs);
  add_event(gpu, derived, "fusion.2", 2 * kUs, kUs);
  auto& tpu = add_plane(s, "/device:TPU:0");
  auto& tpu_line = add_line(tpu, 1, "XLA Ops", 0);
  add_event(tpu, tpu_line, "fusion", 0, kUs);
  add_task_environment(s, kStart);

  ImportDir dir;
  const auto r = test::import_space(dir, s);
  const auto got = categories(r.events);
  EXPECT_EQ(got.at("cuLaunchKernel"), Category::launch);
  EXPECT_EQ(got.at("cuMemcpyHtoDAsync_v2"), Category::launch);
  EXPECT_EQ(got.at("cuLaunchCooperativeKernel"), Category::launch);
  EXPECT_EQ(got.at("cuStreamSynchronize"), Category::sync);
  EXPECT_EQ(got.at("cuCtxSynchronize"), Category::sync);
  EXPECT_EQ(got.at("cuEventSynchronize"), Category::sync);
  EXPECT_EQ(got.at("cuMemcpyDtoH_v2"), Category::sync);  // a blocking copy
  EXPECT_EQ(got.at("void gemm_kernel<float>(float*, int)"), Category::kernel);
  EXPECT_EQ(got.at("MemcpyH2D"), Category::h2d);
  EXPECT_EQ(got.at("MemcpyD2H"), Category::d2h);
  EXPECT_EQ(got.at("MemcpyD2D"), Category::kernel);
  EXPECT_EQ(got.at("Memcpy"), Category::d2h);  // by its memory kinds
  EXPECT_EQ(got.at("Memset"), Category::kernel);
  EXPECT_EQ(
      got.at("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"),
      Category::collective);
  EXPECT_EQ(one(r.events, "MemcpyH2D").e.bytes, 4096);
  EXPECT_EQ(one(r.events, "MemcpyD2H").e.bytes, 128);
  EXPECT_EQ(one(r.events, "MemcpyD2D").e.bytes, 64);
  EXPECT_EQ(one(r.events, "Memset").e.bytes, 256);

  const EventView& kernel = one(r.events, "void gemm_kernel<float>(float*, int)");
  const EventView& launch = one(r.events, "cuLaunchKernel");
  EXPECT_EQ(kernel.kind, TrackKind::device_queue);
  EXPECT_EQ(kernel.track, "GPU 0 Stream #7(Kernel,MemcpyH2D,MemcpyD2H)");
  EXPECT_EQ(kernel.correlation, 1);
  EXPECT_EQ(launch.correlation, 1);
  EXPECT_EQ(launch.track, "CUPTI Host Threads/4242");
  EXPECT_EQ(launch.e.step, 1);
  EXPECT_EQ(kernel.e.step, 1);  // its launch's step, though it starts in step 2's time

  EXPECT_EQ(r.stats.skipped.at("cupti_overhead"), 1u);
  EXPECT_EQ(r.stats.skipped.at("derived_line"), 2u);
  EXPECT_EQ(r.stats.skipped.at("unsupported_plane"), 1u);
  EXPECT_EQ(test::meta_or(*r.reader, "engine.device"), "/device:GPU:0");

  std::map<std::string, const store::Track*> tracks;
  for (const store::Track& t : r.reader->tracks()) tracks[t.name] = &t;
  ASSERT_TRUE(tracks.count("CUPTI Host Threads/4242"));
  EXPECT_EQ(tracks["CUPTI Host Threads/4242"]->os_tid, 4242);
  const std::string trainer = test::meta_or(*r.reader, "analysis.trainer_tracks");
  EXPECT_TRUE(test::in_id_list(trainer, tracks["CUPTI Host Threads/4242"]->id));
  EXPECT_FALSE(
      test::in_id_list(trainer, tracks["GPU 0 Stream #7(Kernel,MemcpyH2D,MemcpyD2H)"]->id));
}

TEST(XPlaneMapping, StatsComeFromTheEventOrItsMetadataInAnyIntegerForm) {
  XSpace s;
  auto& gpu = add_plane(s, "/device:GPU:1");
  auto& stream = add_line(gpu, 3, "Stream #3", 0);
  auto& e = add_event(gpu, stream, "MemcpyHtoD", 0, kUs);
  // The details on the metadata, shared by every event of it; the correlation as uint64.
  auto& meta = (*gpu.mutable_event_metadata())[e.metadata_id()];
  auto* st = meta.add_stats();
  st->set_metadata_id(test::stat_meta(gpu, "memcpy_details"));
  st->set_str_value("kind_src:pageable kind_dst:device size:77 dest:1 async:0");
  test::stat_uint(gpu, e, "correlation_id", 9000000000u);
  auto& host = add_plane(s, "/host:CPU");
  auto& py = add_line(host, 1, "python", 0);
  auto& train = add_event(host, py, "train", 0, 10 * kUs);
  test::stat_uint(host, train, "_r", 1);
  test::stat_uint(host, train, "step_num", 5);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  const EventView& copy = one(r.events, "MemcpyHtoD");
  EXPECT_EQ(copy.category, Category::h2d);
  EXPECT_EQ(copy.e.bytes, 77);
  EXPECT_EQ(copy.correlation, 9000000000);
  EXPECT_EQ(copy.track, "GPU 1 Stream #3");
  EXPECT_EQ(one(r.events, "train").e.step, 5);
}

TEST(XPlaneMapping, NamesAreCleanedAndCapped) {
  XSpace s;
  auto& p = add_plane(s, "/host:CPU");
  auto& l = add_line(p, 1,
                     std::string("py\xff"
                                 "thon"),
                     0);
  add_event(p, l, std::string("bad \xc3\x28 utf8\x01"), 0, kUs);
  add_event(p, l, std::string(20000, 'x'), 2 * kUs, kUs);
  add_event(p, l, "", 4 * kUs, kUs);
  auto& unknown = *l.add_events();
  unknown.set_metadata_id(424242);
  unknown.set_offset_ps(6 * kUs);
  unknown.set_duration_ps(kUs);
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 4u);
  EXPECT_EQ(r.events[0].name, "bad \xEF\xBF\xBD( utf8?");
  EXPECT_EQ(r.events[0].track, "py\xEF\xBF\xBDthon");
  EXPECT_EQ(r.events[1].name.size(), 16384u);
  EXPECT_EQ(r.events[2].name, "(no name)");
  EXPECT_EQ(r.events[3].name, "(unknown event metadata)");
  EXPECT_EQ(r.stats.skipped.at("name_truncated"), 1u);
}

TEST(XPlaneMapping, SeveralPlanesOfOneNameShareTheirThreads) {
  // Chunks of one capture merged into one XSpace repeat their planes: one track per thread.
  XSpace s;
  for (int chunk = 0; chunk < 2; ++chunk) {
    auto& p = add_plane(s, "/host:CPU");
    auto& l = add_line(p, 1, "python", 1000000000000000000 + chunk * 1000000);
    add_event(p, l, chunk == 0 ? "first" : "second", 0, kUs);
  }
  ImportDir dir;
  const auto r = test::import_space(dir, s);
  ASSERT_EQ(r.events.size(), 2u);
  EXPECT_EQ(r.events[0].track, r.events[1].track);
  EXPECT_EQ(r.reader->tracks().size(), 1u);
}

}  // namespace
}  // namespace ts::import
