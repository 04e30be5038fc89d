// Input-pipeline throughput: mlp training (batch 32) on an image folder of 10 000 digits with the
// `naive` and `tuned` pipelines, against the same data already in memory (the upper bound).
// Prints samples/s over the whole run and in steady state (epochs 2..N), as medians over
// alternated rounds, and the ratios to the in-memory figure. On the opencl backend it also
// traces one tuned run with and without prefetch to device and reports how much of the copy
// queue's h2d time overlapped kernels on the compute queue.
//
//   bench_pipeline [--backend cpu|opencl] [--epochs 5] [--rounds 3] [--dataset mnist]
//                  [--images DIR]   (default: the dataset written as PNG files to a temp dir)
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>
#include <trainscope/session.hpp>
#include <vector>

#include "engine/backend/factory.hpp"
#include "engine/data/image_folder.hpp"
#include "engine/data/load.hpp"
#include "engine/data/pipeline/pipeline.hpp"
#include "engine/nn/models.hpp"
#include "profiler/store/reader.hpp"

namespace ts {
namespace {

struct Config {
  std::string backend = "cpu", dataset = "mnist", images;
  int epochs = 5, rounds = 3;
};

struct Run {
  double overall = 0, steady = 0;  // samples/s
  PipelineStats input;
};

Run train(Backend& backend, std::shared_ptr<const SampleSource> source, PipelineOptions options,
          int epochs) {
  const SampleShape s = source->shape();
  auto model = make_model("mlp", Shape{s.height, s.width, s.channels}, 10);
  CompileOptions compile;
  compile.seed = 1;
  model->compile(backend, make_optimizer("adam", 0), compile);
  Pipeline input(std::move(source), options);
  FitOptions fit;
  fit.epochs = epochs;
  const FitResult r = model->fit(input, fit);
  Run run;
  run.overall = r.samples_per_s;
  double samples = 0, seconds = 0;
  for (std::size_t e = 1; e < r.epochs.size(); ++e) {
    samples += static_cast<double>(r.epochs[e].samples);
    seconds += r.epochs[e].seconds;
  }
  run.steady = seconds > 0 ? samples / seconds : run.overall;
  input.stop();
  run.input = input.stats();
  return run;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Union length of intervals [start, end).
std::int64_t union_ns(std::vector<std::pair<std::int64_t, std::int64_t>> v) {
  std::sort(v.begin(), v.end());
  std::int64_t total = 0, cur_s = 0, cur_e = -1;
  for (auto [s, e] : v) {
    if (s > cur_e) {
      if (cur_e > cur_s) total += cur_e - cur_s;
      cur_s = s;
      cur_e = e;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (cur_e > cur_s) total += cur_e - cur_s;
  return total;
}

// Copy-queue h2d time, compute-queue kernel time and their overlap, from a trace.
void report_overlap(const std::string& path, const char* label) {
  store::Reader reader(path);
  std::vector<std::pair<std::int64_t, std::int64_t>> copies, kernels, both;
  std::int64_t copy_count = 0;
  for (const store::Track& t : reader.tracks()) {
    if (t.kind != trace::TrackKind::device_queue) continue;
    const store::TimeRange r = reader.time_range();
    for (const store::Event& e : reader.events(r.start_ns, r.end_ns + 1, t.id)) {
      if (e.category == trace::Category::h2d && t.name.find("copy") != std::string::npos) {
        copies.push_back({e.start_ns, e.end_ns()});
        ++copy_count;
      } else if (e.category == trace::Category::kernel) {
        kernels.push_back({e.start_ns, e.end_ns()});
      }
    }
  }
  both = copies;
  both.insert(both.end(), kernels.begin(), kernels.end());
  const std::int64_t c = union_ns(copies), k = union_ns(kernels);
  const std::int64_t overlap = c + k - union_ns(both);
  std::printf(
      "  %-28s copy-queue h2d: %lld copies, %.1f ms; kernels %.1f ms; overlap %.1f ms "
      "(%.0f%% of copy time hidden behind kernels)\n",
      label, static_cast<long long>(copy_count), c * 1e-6, k * 1e-6, overlap * 1e-6,
      c > 0 ? 100.0 * static_cast<double>(overlap) / static_cast<double>(c) : 0.0);
}

int run(const Config& cfg) {
  BackendRequest request;
  request.kind = cfg.backend;
  BackendChoice choice = make_backend(request);
  Backend& backend = *choice.backend;
  std::printf("backend: %s (%s)\n", backend.kind().c_str(), backend.device_name().c_str());

  auto data = std::make_shared<const Dataset>(load_dataset(cfg.dataset, 1));
  std::string dir = cfg.images;
  const bool temp = dir.empty();
  if (temp) {
    dir =
        (std::filesystem::temp_directory_path() / ("ts_bench_images_" + std::to_string(::getpid())))
            .string();
    write_image_folder(*data, dir);
  }
  auto images = std::make_shared<ImageFolderSource>(dir);
  auto memory = std::make_shared<InMemorySource>(data);
  std::printf("data: %s; %lld samples, mlp, batch 32, %d epochs, %d rounds\n",
              images->description().c_str(), static_cast<long long>(images->count()), cfg.epochs,
              cfg.rounds);

  std::map<std::string, std::vector<double>> overall, steady;
  std::map<std::string, PipelineStats> last;
  const std::vector<std::string> order = {"in-memory (idx)", "images naive", "images tuned"};
  for (int round = 0; round < cfg.rounds; ++round) {
    for (const std::string& name : order) {
      const bool in_memory = name == order[0];
      PipelineOptions o = name == "images tuned" ? tuned_pipeline(32) : naive_pipeline(32);
      const Run r = train(backend, in_memory ? std::shared_ptr<const SampleSource>(memory) : images,
                          o, cfg.epochs);
      overall[name].push_back(r.overall);
      steady[name].push_back(r.steady);
      last[name] = r.input;
    }
  }
  const double base_all = median(overall[order[0]]), base_steady = median(steady[order[0]]);
  std::printf("\n%-18s %14s %9s %18s %9s\n", "pipeline", "samples/s", "ratio", "steady samples/s",
              "ratio");
  for (const std::string& name : order) {
    const double a = median(overall[name]), s = median(steady[name]);
    std::printf("%-18s %14.0f %8.1f%% %18.0f %8.1f%%   (parallel %d, prefetch %d, cache %s)\n",
                name.c_str(), a, 100 * a / base_all, s, 100 * s / base_steady, last[name].parallel,
                last[name].prefetch, last[name].cache.c_str());
  }

  if (backend.kind() == "opencl") {
    std::printf("\nprefetch to device on %s (tuned pipeline, one traced run each):\n",
                backend.device_name().c_str());
    for (bool to_device : {false, true}) {
      const std::string path = (std::filesystem::temp_directory_path() /
                                ("ts_bench_overlap_" + std::to_string(to_device) + ".db"))
                                   .string();
      PipelineOptions o = tuned_pipeline(32);
      o.prefetch_to_device = to_device;
      trace::start(path);
      const Run r = train(backend, memory, o, std::min(cfg.epochs, 2));
      trace::stop();
      const std::string label = std::string(to_device ? "on" : "off") + ": " +
                                std::to_string(static_cast<long long>(r.overall)) + " samples/s";
      report_overlap(path, label.c_str());
      std::filesystem::remove(path);
    }
  }
  if (temp) std::filesystem::remove_all(dir);
  return 0;
}

}  // namespace
}  // namespace ts

// A positive count for `flag`, or std::invalid_argument naming it.
int count_flag(const std::string& flag, const std::string& value) {
  std::size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(value, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used == 0 || used != value.size() || n < 1)
    throw std::invalid_argument(flag + " takes a positive number, not '" + value + "'");
  return n;
}

int main(int argc, char** argv) {
  ts::Config cfg;
  try {
    for (int i = 1; i < argc; i += 2) {
      const std::string flag = argv[i];
      if (i + 1 >= argc) throw std::invalid_argument(flag + " needs a value");
      const std::string value = argv[i + 1];
      if (flag == "--backend")
        cfg.backend = value;
      else if (flag == "--epochs")
        cfg.epochs = std::max(2, count_flag(flag, value));
      else if (flag == "--rounds")
        cfg.rounds = count_flag(flag, value);
      else if (flag == "--dataset")
        cfg.dataset = value;
      else if (flag == "--images")
        cfg.images = value;
      else
        throw std::invalid_argument("unknown flag " + flag);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr,
                 "bench_pipeline: %s (flags: --backend, --epochs, --rounds, --dataset, --images)\n",
                 e.what());
    return 2;
  }
  try {
    return ts::run(cfg);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_pipeline: %s\n", e.what());
    return 1;
  }
}
