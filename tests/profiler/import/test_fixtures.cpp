// The real traces in tests/data/pytorch (CPU, recorded by us) and tests/data/pytorch/gpu
// (NVIDIA and AMD, from HTA's test data): each imports, with the steps, processes and categories
// its README describes; device event counts and times per name agree with HTA's
// (hta_reference.json), which reads the same files independently.
#include <gtest/gtest.h>

#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::EventView;
using test::ImportDir;
using trace::Category;
using trace::TrackKind;

const std::string kData = "tests/data/pytorch/";

struct Imported {
  ImportDir dir;
  ImportStats stats;
  std::unique_ptr<store::Reader> reader;
  std::vector<EventView> events;
};

std::unique_ptr<Imported> import_paths(const std::vector<std::string>& paths) {
  auto out = std::make_unique<Imported>();
  out->stats = import_traces(paths, out->dir.file("out.db"));
  out->reader = std::make_unique<store::Reader>(out->dir.file("out.db"));
  out->events = test::all_events(*out->reader);
  return out;
}

nlohmann::json read_gz_json(const std::string& path) {
  gzFile g = gzopen(path.c_str(), "rb");
  std::string text;
  char buf[65536];
  for (int n; (n = gzread(g, buf, sizeof buf)) > 0;) text.append(buf, static_cast<std::size_t>(n));
  gzclose(g);
  return nlohmann::json::parse(text);
}

std::vector<std::int64_t> step_numbers(const store::Reader& r,
                                       std::int64_t process = store::kNull) {
  std::vector<std::int64_t> out;
  for (const store::Step& s : r.steps())
    if (process == store::kNull || r.track(s.track)->process == process) out.push_back(s.step);
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::int64_t> range(std::int64_t a, std::int64_t b) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = a; i <= b; ++i) v.push_back(i);
  return v;
}

std::size_t count(const std::vector<EventView>& ev, Category c) {
  return static_cast<std::size_t>(
      std::count_if(ev.begin(), ev.end(), [&](const EventView& e) { return e.category == c; }));
}

TEST(ImportFixtures, EveryFileImports) {
  for (const char* f : {"input_bound.pt.trace.json.gz", "tuned.pt.trace.json.gz",
                        "no_step_markers.pt.trace.json.gz", "legacy_torch113.pt.trace.json.gz",
                        "two_ranks/rank0.pt.trace.json.gz", "two_ranks/rank1.pt.trace.json.gz",
                        "gpu/alexnet_no_step_markers.json.gz",
                        "gpu/cpu_only_rank-34.pt.trace.json.gz", "gpu/cuda_event_sync.json.gz",
                        "gpu/rocm_mi250_minitoy_train.json.gz", "gpu/triton_example.json.gz",
                        "gpu/two_ranks/rank-0.json.gz", "gpu/two_ranks/rank-1.json.gz"}) {
    SCOPED_TRACE(f);
    const auto t = import_paths({kData + f});
    EXPECT_GT(t->events.size(), 0u);
    EXPECT_EQ(t->stats.skipped.count("truncated_file"), 0u);
    EXPECT_EQ(t->stats.skipped.count("syntax_error"), 0u);
    EXPECT_EQ(t->reader->processes().size(), 1u);
    EXPECT_FALSE(t->reader->meta("steps.source").value_or("").empty());
  }
}

TEST(ImportFixtures, InputBoundAndTuned) {
  for (const char* f : {"input_bound.pt.trace.json.gz", "tuned.pt.trace.json.gz"}) {
    SCOPED_TRACE(f);
    const auto t = import_paths({kData + f});
    const store::Reader& r = *t->reader;
    EXPECT_EQ(step_numbers(r), range(2, 11));
    EXPECT_EQ(r.meta("import.format"), "kineto");
    EXPECT_EQ(r.meta("steps.source").value_or("").rfind("ProfilerStep#N markers", 0), 0u);
    EXPECT_EQ(count(t->events, Category::input_wait), 10u);
    EXPECT_EQ(count(t->events, Category::optimizer), 20u);  // zero_grad and step, per step
    EXPECT_EQ(count(t->events, Category::kernel), 0u);      // CPU only: no device
    for (const store::Track& tr : r.tracks()) EXPECT_NE(tr.kind, TrackKind::device_queue);
    // The DataLoader spans lie inside the steps, numbered like them.
    for (const EventView& e : t->events) {
      if (e.category == Category::input_wait) {
        EXPECT_GE(e.e.step, 2);
      }
    }
    // Independently: every X event of the JSON but the Trace span is an event of the trace.
    const nlohmann::json j = read_gz_json(kData + f);
    std::size_t x = 0;
    for (const auto& e : j["traceEvents"])
      x += e.value("ph", "") == "X" && e.value("cat", "") != "Trace";
    EXPECT_EQ(t->events.size(), x);
  }
}

TEST(ImportFixtures, NoStepMarkersInfersStepsFromTheDataLoader) {
  const auto t = import_paths({kData + "no_step_markers.pt.trace.json.gz"});
  const store::Reader& r = *t->reader;
  EXPECT_EQ(step_numbers(r), range(1, 10));
  EXPECT_EQ(r.meta("steps.source")
                .value_or("")
                .rfind("inferred: one step per DataLoader __next__ call", 0),
            0u);
  // ~183 ms each (README).
  for (const store::Step& s : r.steps()) {
    EXPECT_GT(s.dur_ns, 100'000'000);
    EXPECT_LT(s.dur_ns, 400'000'000);
  }
}

TEST(ImportFixtures, CpuTwoRanksDirectory) {
  const auto t = import_paths({kData + "two_ranks"});
  const store::Reader& r = *t->reader;
  ASSERT_EQ(r.processes().size(), 2u);
  for (int rank = 0; rank < 2; ++rank) {
    const store::Process& p = r.processes()[static_cast<std::size_t>(rank)];
    EXPECT_EQ(p.rank, rank);
    EXPECT_EQ(step_numbers(r, p.id), range(2, 11));
  }
  EXPECT_EQ(r.meta("import.world_size"), "2");
  EXPECT_EQ(r.meta("import.distributed_backend"), "gloo");
  // gloo:all_reduce on the gloo threads: collective, 20 per rank; those threads are trainers.
  std::map<std::int64_t, int> gloo;
  std::set<std::string> trainer_names;
  const std::string trainers = r.meta("analysis.trainer_tracks").value_or("");
  for (const EventView& e : t->events)
    if (e.name == "gloo:all_reduce") {
      EXPECT_EQ(e.category, Category::collective);
      ++gloo[r.track(e.e.track)->process];
      EXPECT_TRUE(test::in_id_list(trainers, e.e.track));
      trainer_names.insert(e.track);
    }
  EXPECT_EQ(gloo.size(), 2u);
  for (const auto& [p, n] : gloo) EXPECT_EQ(n, 20) << "process " << p;
  for (const std::string& n : trainer_names)
    EXPECT_NE(n.find("pt_gloo_runloop"), std::string::npos) << n;
}

TEST(ImportFixtures, LegacyTorch113Array) {
  const auto t = import_paths({kData + "legacy_torch113.pt.trace.json.gz"});
  const store::Reader& r = *t->reader;
  EXPECT_EQ(r.meta("import.format"), "legacy array");
  EXPECT_EQ(step_numbers(r), range(1, 10));
  EXPECT_EQ(count(t->events, Category::input_wait), 10u);
  EXPECT_GT(count(t->events, Category::host_compute), 1000u);
  EXPECT_EQ(r.processes()[0].rank, store::kNull);
}

TEST(ImportFixtures, GpuTwoRanks) {
  const auto t = import_paths({kData + "gpu/two_ranks"});
  const store::Reader& r = *t->reader;
  ASSERT_EQ(r.processes().size(), 2u);
  for (int rank = 0; rank < 2; ++rank) {
    const store::Process& p = r.processes()[static_cast<std::size_t>(rank)];
    EXPECT_EQ(p.rank, rank);
    EXPECT_EQ(step_numbers(r, p.id), range(551, 552));
  }
  EXPECT_EQ(r.meta("import.world_size"), "128");
  std::size_t nccl = 0;
  for (const EventView& e : t->events)
    if (e.name.rfind("ncclKernel_", 0) == 0) {
      ++nccl;
      EXPECT_EQ(e.category, Category::collective);
      EXPECT_EQ(e.kind, TrackKind::device_queue);
    }
  EXPECT_GT(nccl, 0u);
  // Launches and kernels linked by correlation; kernels take their launch's step.
  std::map<std::pair<std::int64_t, std::int64_t>, const EventView*> launches;  // (process, id)
  const auto key = [&](const EventView& e) {
    return std::pair(r.track(e.e.track)->process, e.correlation);
  };
  for (const EventView& e : t->events)
    if (e.category == Category::launch && e.correlation != store::kNull) launches[key(e)] = &e;
  std::size_t linked = 0;
  for (const EventView& e : t->events) {
    if (e.kind != TrackKind::device_queue || e.correlation == store::kNull) continue;
    const auto it = launches.find(key(e));
    if (it == launches.end()) continue;
    ++linked;
    EXPECT_EQ(e.e.step, it->second->e.step) << e.name;
  }
  EXPECT_GT(linked, 2000u);
}

TEST(ImportFixtures, RocmHipNames) {
  const auto t = import_paths({kData + "gpu/rocm_mi250_minitoy_train.json.gz"});
  const store::Reader& r = *t->reader;
  EXPECT_EQ(step_numbers(r), range(1, 2));  // the device copy of ProfilerStep#1 is not a step
  EXPECT_EQ(t->stats.skipped.at("gpu_annotation"), 2u);
  EXPECT_EQ(r.meta("engine.device"), "AMD Radeon Graphics");
  std::set<std::string> launch, sync;
  for (const EventView& e : t->events) {
    if (e.category == Category::launch) launch.insert(e.name);
    if (e.category == Category::sync) sync.insert(e.name);
    if (e.name == "Memcpy HtoD (Host -> Device)") {
      EXPECT_EQ(e.category, Category::h2d);
      EXPECT_EQ(e.e.bytes, store::kNull);
      EXPECT_EQ(e.track, "GPU 2 stream 0");
    }
  }
  EXPECT_TRUE(launch.count("hipLaunchKernel") || launch.count("hipExtModuleLaunchKernel"))
      << launch.size();
  EXPECT_TRUE(sync.count("hipMemcpyWithStream"));
}

TEST(ImportFixtures, CpuOnlyRank34) {
  const auto t = import_paths({kData + "gpu/cpu_only_rank-34.pt.trace.json.gz"});
  EXPECT_EQ(t->reader->processes()[0].rank, 34);
  EXPECT_EQ(step_numbers(*t->reader), range(551, 551));
  for (const store::Track& tr : t->reader->tracks()) EXPECT_NE(tr.kind, TrackKind::device_queue);
}

TEST(ImportFixtures, AlexnetHasNoStepsToInfer) {
  const auto t = import_paths({kData + "gpu/alexnet_no_step_markers.json.gz"});
  EXPECT_TRUE(t->reader->steps().empty());
  EXPECT_EQ(t->reader->meta("steps.source").value_or("").rfind("none: no ProfilerStep markers", 0),
            0u);
  std::size_t syncs = 0;
  for (const EventView& e : t->events)
    if (e.track == "GPU 0 sync") {
      ++syncs;
      EXPECT_EQ(e.category, Category::sync);
    }
  EXPECT_EQ(syncs, 41u);  // Context Sync, Stream Sync, Stream Wait Event
}

TEST(ImportFixtures, CudaEventSync) {
  const auto t = import_paths({kData + "gpu/cuda_event_sync.json.gz"});
  EXPECT_EQ(step_numbers(*t->reader), range(100, 100));
  std::set<std::string> sync;
  for (const EventView& e : t->events)
    if (e.category == Category::sync && e.kind == TrackKind::thread &&
        e.track.find("sync") == std::string::npos)
      sync.insert(e.name);
  EXPECT_EQ(sync, (std::set<std::string>{"cudaStreamSynchronize", "cudaEventSynchronize",
                                         "cudaDeviceSynchronize"}));
}

TEST(ImportFixtures, TritonKernelIsTheOnlyDeviceWork) {
  const auto t = import_paths({kData + "gpu/triton_example.json.gz"});
  std::vector<const EventView*> device;
  for (const EventView& e : t->events)
    if (e.kind == TrackKind::device_queue) device.push_back(&e);
  ASSERT_EQ(device.size(), 1u);
  EXPECT_EQ(device[0]->name, "triton_poi_fused_add_cos_sin_0");
  EXPECT_EQ(device[0]->e.dur_ns, 1760);
  EXPECT_EQ(device[0]->category, Category::kernel);
  // The inductor op of the same name carries args.stream but runs on the host.
  std::size_t host = 0;
  for (const EventView& e : t->events)
    host += e.name == "triton_poi_fused_add_cos_sin_0" && e.kind == TrackKind::thread;
  EXPECT_EQ(host, 1u);
  EXPECT_EQ(t->reader->meta("engine.device"), "NVIDIA A100-PG509-200");
}

// HTA's device event table (kernels, memcpy, memset per name) for each GPU trace, against ours
// over the same events: HTA drops the host rows from the start of the last ProfilerStep on (when
// there are two or more step names) and the device rows no kept host row launched, and rounds
// float traces to whole microseconds (start up, end down).
TEST(ImportFixtures, DeviceEventsAgreeWithHta) {
  std::ifstream in(kData + "gpu/hta_reference.json");
  const nlohmann::json ref = nlohmann::json::parse(in);
  int compared = 0;
  for (const auto& [key, trace] : ref["traces"].items()) {
    SCOPED_TRACE(key);
    const auto t = import_paths({kData + "gpu/" + key});
    const store::Reader& r = *t->reader;
    for (const auto& [rank_text, per_rank] : trace["per_rank"].items()) {
      SCOPED_TRACE("rank " + rank_text);
      const std::int64_t rank = std::stoll(rank_text);
      std::int64_t process = r.processes()[0].id;
      for (const store::Process& p : r.processes())
        if (p.rank == rank) process = p.id;
      // The latest step start of this rank, and whether HTA filters at all.
      std::int64_t last_step = std::numeric_limits<std::int64_t>::max();
      const auto steps = step_numbers(r, process);
      if (std::set<std::int64_t>(steps.begin(), steps.end()).size() >= 2) {
        last_step = std::numeric_limits<std::int64_t>::min();
        for (const store::Step& s : r.steps())
          if (r.track(s.track)->process == process) last_step = std::max(last_step, s.start_ns);
      }
      std::map<std::int64_t, std::int64_t> host_corr;  // correlation -> launch start
      for (const EventView& e : t->events)
        if (e.kind == TrackKind::thread && e.correlation != store::kNull &&
            r.track(e.e.track)->process == process)
          host_corr.emplace(e.correlation, e.e.start_ns);
      std::map<std::string, std::pair<std::int64_t, std::int64_t>>
          ours;  // name -> (count, total us)
      for (const EventView& e : t->events) {
        if (e.kind != TrackKind::device_queue || r.track(e.e.track)->process != process) continue;
        if (last_step != std::numeric_limits<std::int64_t>::max()) {
          const auto it = host_corr.find(e.correlation);
          if (it == host_corr.end() || it->second >= last_step) continue;
        }
        const auto floor_div = [](std::int64_t a) {
          return a >= 0 ? a / 1000 : -((-a + 999) / 1000);
        };
        const std::int64_t hta_start = -floor_div(-e.e.start_ns);  // ceil
        const std::int64_t hta_end = floor_div(e.e.end_ns());
        auto& [n, us] = ours[e.name];
        ++n;
        us += hta_end - hta_start;
      }
      std::map<std::string, std::pair<std::int64_t, std::int64_t>> hta;
      for (const auto& d : per_rank["device_events"]) {
        const std::string cat = d["cat"];
        if (cat != "kernel" && cat != "gpu_memcpy" && cat != "gpu_memset")
          continue;  // not cuda_sync, cpu_op
        hta[d["name"]] = {d["count"].get<std::int64_t>(), d["total_us"].get<std::int64_t>()};
      }
      EXPECT_EQ(ours, hta);
      compared += static_cast<int>(hta.size());
    }
  }
  EXPECT_GT(compared, 300);
}

}  // namespace
}  // namespace ts::import
