#include "profiler/analysis/lever_facts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <string_view>

#include "profiler/analysis/intervals.hpp"
#include "profiler/store/reader.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::analysis {

namespace {

using trace::Category;

bool contains(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

bool conversion_event(std::string_view name) {
  return contains(name, "to f16") || contains(name, "to_f16") || contains(name, "convert") ||
         contains(name, "f32_to_f16") || contains(name, "f16_to_f32");
}

// The steps to sample: every analysed one when there are few, else kLeverSampleSteps spread
// evenly over each rank's steps, and at least one step of every rank (the per-rank figures, such
// as the communication overlap, need each rank's own steps). In per_step order. Two passes over
// the steps (count, then pick) hold nothing per step but the steps picked.
std::vector<StepSummary> sample_steps(const Report& r) {
  auto analysed = [](const StepSummary& s) {
    return !s.warmup && s.dur_ns > 0 && s.device_sampled;
  };
  struct RankSample {
    std::size_t steps = 0;  // its analysed steps
    std::size_t take = 0;   // how many of them to sample
    std::size_t seen = 0, taken = 0;
  };
  std::map<int, RankSample> by_rank;
  std::size_t total = 0;
  for (const StepSummary& s : r.per_step)
    if (analysed(s)) {
      ++by_rank[s.rank_index].steps;
      ++total;
    }
  const bool all = total <= kLeverSampleSteps;
  const std::size_t per_rank =
      by_rank.empty() ? 0 : std::max<std::size_t>(1, kLeverSampleSteps / by_rank.size());
  for (auto& [rank, k] : by_rank) k.take = all ? k.steps : std::min(per_rank, k.steps);
  std::vector<StepSummary> out;
  for (const StepSummary& s : r.per_step) {
    if (!analysed(s)) continue;
    RankSample& k = by_rank[s.rank_index];
    // The taken-th of `take` evenly spread picks sits at position taken * steps / take.
    if (k.taken < k.take && k.seen == k.taken * k.steps / k.take) {
      out.push_back(s);
      ++k.taken;
    }
    ++k.seen;
  }
  return out;
}

// The device's busy intervals inside [t0, t1), merged, in time order.
std::vector<Interval> busy_intervals(std::vector<Interval> device, std::int64_t t0,
                                     std::int64_t t1) {
  std::sort(device.begin(), device.end(),
            [](const Interval& a, const Interval& b) { return a.start < b.start; });
  std::vector<Interval> merged;
  for (Interval i : device) {
    i.start = std::max(i.start, t0);
    i.end = std::min(i.end, t1);
    if (i.end <= i.start) continue;
    if (!merged.empty() && i.start <= merged.back().end)
      merged.back().end = std::max(merged.back().end, i.end);
    else
      merged.push_back(i);
  }
  return merged;
}

struct HostEvent {
  std::int64_t start = 0, end = 0;
  std::string_view name;
  Category category = Category::other;
};

bool input_or_collective(Category c) {
  return c == Category::input_wait || c == Category::input_read || c == Category::input_decode ||
         c == Category::input_map || c == Category::input_batch || c == Category::collective;
}

// Our engine's optimizer zones, PyTorch's `Optimizer.step#Adam.step` annotations.
bool optimizer_region(const HostEvent& h) {
  return h.category == Category::optimizer || h.name.rfind("Optimizer.step", 0) == 0;
}

// Adds to `per_name` the time of [g0, g1) under the innermost of `open` (the trainer events
// overlapping it): for each piece between two event boundaries, the covering event that started
// last. A sync is named with its caller ("aten::item › cudaStreamSynchronize").
using NameTimes = std::map<std::pair<std::string, Category>, double>;

void attribute_gap(std::int64_t g0, std::int64_t g1, const std::vector<const HostEvent*>& open,
                   NameTimes& per_name, NameTimes& per_region, double& covered) {
  std::vector<std::int64_t> cuts{g0, g1};
  for (const HostEvent* e : open) {
    if (e->start > g0 && e->start < g1) cuts.push_back(e->start);
    if (e->end > g0 && e->end < g1) cuts.push_back(e->end);
  }
  std::sort(cuts.begin(), cuts.end());
  cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    const std::int64_t a = cuts[i], b = cuts[i + 1];
    const HostEvent* inner = nullptr;
    const HostEvent* outer = nullptr;   // the next one out: a sync's caller
    const HostEvent* region = nullptr;  // the outermost
    for (const HostEvent* e : open) {
      if (e->start > a || e->end < b) continue;
      if (region == nullptr || e->start < region->start ||
          (e->start == region->start && e->end > region->end))
        region = e;
      if (inner == nullptr || e->start > inner->start ||
          (e->start == inner->start && e->end < inner->end)) {
        outer = inner;
        inner = e;
      } else if (outer == nullptr || e->start > outer->start) {
        outer = e;
      }
    }
    if (inner == nullptr) continue;
    std::string name(inner->name);
    if (inner->category == Category::sync && outer != nullptr && outer->name != inner->name)
      name = std::string(outer->name) + " › " + name;
    per_name[{name, inner->category}] += static_cast<double>(b - a);
    per_region[{std::string(region->name), region->category}] += static_cast<double>(b - a);
    covered += static_cast<double>(b - a);
  }
}

// Hands each of `steps` to fn with the events of its rank overlapping it (an event ending exactly
// at its start counts), in start order, as Reader::events reads them. The steps are read a group
// at a time: steps whose times overlap (the same step of a job's ranks) share one scan of their
// times, where a scan per step read every rank's events once for each rank's step (and the
// 134 ms before each step that a scan reads for its long events). Groups are in time order.
void each_step_events(
    const store::Reader& reader, const TrackTable& tracks, const std::vector<StepSummary>& steps,
    const std::function<void(const StepSummary&, std::span<const store::Event>)>& fn) {
  constexpr std::size_t kGroupSteps = 256;
  const auto end_of = [](const StepSummary& s) { return sat_add(s.start_ns, s.dur_ns); };
  std::vector<std::size_t> order(steps.size());
  for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    return steps[a].start_ns < steps[b].start_ns;
  });
  std::vector<std::vector<store::Event>> events;
  std::map<int, std::vector<std::size_t>> by_rank;  // rank group -> places in the group
  for (std::size_t first = 0; first < order.size();) {
    std::int64_t t0 = steps[order[first]].start_ns, t1 = end_of(steps[order[first]]);
    std::size_t past = first + 1;
    while (past < order.size() && past - first < kGroupSteps && steps[order[past]].start_ns < t1)
      t1 = std::max(t1, end_of(steps[order[past++]]));
    events.assign(past - first, {});
    by_rank.clear();
    for (std::size_t k = first; k < past; ++k)
      by_rank[steps[order[k]].rank_index].push_back(k - first);
    reader.scan(t0, t1, 0, [&](const store::Event& e) {
      if (tracks.role(e.track) == TrackRole::ignored) return;
      const auto it = by_rank.find(tracks.group(e.track));
      if (it == by_rank.end()) return;
      for (const std::size_t place : it->second) {
        const StepSummary& s = steps[order[first + place]];
        if (e.start_ns < end_of(s) && e.end_ns() >= s.start_ns) events[place].push_back(e);
      }
    });
    for (std::size_t k = first; k < past; ++k) fn(steps[order[k]], events[k - first]);
    first = past;
  }
}

// The peak of the memory counters over the sampled steps (each step counting the value it starts
// with: a counter is sampled only when it changes), on the counter that fills its memory most
// (or, where no counter's memory is known, the largest), and that memory.
void memory_peak(const store::Reader& reader, const std::vector<StepSummary>& steps,
                 LeverFacts& f) {
  std::int64_t last_end = INT64_MIN;
  for (const StepSummary& s : steps) last_end = std::max(last_end, sat_add(s.start_ns, s.dur_ns));
  double best_fill = -1;
  for (const store::Track& t : reader.tracks()) {
    bool host = false;
    const std::optional<std::string> key = memory_counter_capacity_key(t.name, &host);
    if (t.kind != trace::TrackKind::counter || !key) continue;
    const std::vector<store::CounterSample> samples =
        reader.counter(t.id, std::numeric_limits<std::int64_t>::min(), last_end);
    const auto before = [](const store::CounterSample& c, std::int64_t t) { return c.ts_ns < t; };
    double peak = 0;
    const auto take = [&peak](double v) {
      if (std::isfinite(v)) peak = std::max(peak, v);  // a damaged file's NaN or inf: ignored
    };
    for (const StepSummary& s : steps) {
      auto it = std::lower_bound(samples.begin(), samples.end(), s.start_ns, before);
      if (it != samples.begin()) take(std::prev(it)->value);
      const std::int64_t end = sat_add(s.start_ns, s.dur_ns);
      for (; it != samples.end() && it->ts_ns < end; ++it) take(it->value);
    }
    if (peak <= 0) continue;
    const std::optional<std::string> total = reader.meta(*key);
    double capacity = total ? std::strtod(total->c_str(), nullptr) : 0;
    if (!std::isfinite(capacity)) capacity = 0;
    // Counters whose memory is known rank by how full it is, above every one whose is not.
    const double fill = capacity > 0 ? 1 + peak / capacity : peak / (peak + 1);
    if (fill <= best_fill) continue;
    best_fill = fill;
    f.peak_memory_bytes = peak;
    f.device_memory_bytes = capacity > 0 ? capacity : 0;
    f.memory_track = t.name;
    f.memory_on_host = host;
  }
}

// The highest compute capability among the trace's GPUs (meta device.gpu.<d>.compute_major).
void gpu_capability(const store::Reader& reader, LeverFacts& f) {
  const std::string_view prefix = meta_key::kDeviceGpuPrefix;
  const std::string_view suffix = meta_key::kDeviceGpuComputeMajorSuffix;
  for (const auto& [key, value] : reader.meta()) {
    if (!key.starts_with(prefix) || !key.ends_with(suffix) ||
        key.size() <= prefix.size() + suffix.size())
      continue;
    const int major = std::atoi(value.c_str());
    if (major <= f.compute_major) continue;
    const std::string device = key.substr(0, key.size() - suffix.size());
    f.compute_major = major;
    f.compute_minor = std::atoi(
        reader.meta(device + meta_key::kDeviceGpuComputeMinorSuffix).value_or("0").c_str());
    f.gpu_name = reader.meta(device + meta_key::kDeviceGpuNameSuffix).value_or("");
  }
}

}  // namespace

std::optional<std::string> memory_counter_capacity_key(std::string_view name, bool* host) {
  static constexpr std::string_view kAllocated = " memory allocated", kGpu = "GPU ",
                                    kTfGpu = "GPU_", kOpencl = "device memory ";
  const auto gpu_key = [&](std::string_view id) -> std::optional<std::string> {
    *host = false;
    return std::string(meta_key::kDeviceGpuPrefix) + std::string(id) +
           meta_key::kDeviceGpuTotalMemorySuffix;
  };
  if (name.starts_with(kOpencl) && name.size() > kOpencl.size()) {
    *host = false;
    return std::string(meta_key::kDeviceOpenclGlobalMemoryBytes);
  }
  if (name == kHostTensorMemoryTrack) {
    *host = true;
    return std::string(meta_key::kHostMemoryBytes);
  }
  if (!name.ends_with(kAllocated) || name.size() == kAllocated.size()) return std::nullopt;
  const std::string_view owner = name.substr(0, name.size() - kAllocated.size());
  if (owner.starts_with(kGpu) && owner.size() > kGpu.size())
    return gpu_key(owner.substr(kGpu.size()));  // Kineto: "GPU 0"
  if (owner.starts_with(kTfGpu)) {              // TensorFlow's GPU allocator: "GPU_0_bfc"
    const std::string_view rest = owner.substr(kTfGpu.size());
    const std::string_view id = rest.substr(0, rest.find('_'));
    if (!id.empty() &&
        std::all_of(id.begin(), id.end(), [](char c) { return c >= '0' && c <= '9'; }))
      return gpu_key(id);
  }
  *host = true;  // "CPU memory allocated" (Kineto), TensorFlow's mklcpu, cpu, cuda_host_bfc
  return std::string(meta_key::kHostMemoryBytes);
}

LeverFacts lever_facts(const store::Reader& reader, const TrackTable& tracks, const Report& r) {
  LeverFacts f;
  f.precision = reader.meta("engine.precision").value_or("");
  f.optimizer = reader.meta("engine.optimizer").value_or("");
  f.opencl_platform = reader.meta(meta_key::kDeviceOpenclPlatform).value_or("");
  f.opencl_type = reader.meta(meta_key::kDeviceOpenclType).value_or("");
  if (const std::optional<std::string> fp16 = reader.meta(meta_key::kDeviceOpenclFp16))
    f.opencl_fp16 = *fp16 == "yes";
  gpu_capability(reader, f);
  const std::size_t ranks = std::max<std::size_t>(1, r.ranks.size());
  std::vector<double> collective_ns(ranks, 0), overlapped_ns(ranks, 0);
  IntervalSet collective_set, compute_set, both;
  const std::vector<StepSummary> steps = sample_steps(r);
  NameTimes per_name, per_region;
  double covered = 0, optimizer = 0, conversion = 0;
  std::int64_t kernels = 0, short_kernels = 0;
  each_step_events(
      reader, tracks, steps, [&](const StepSummary& s, std::span<const store::Event> events) {
        const std::int64_t t0 = s.start_ns, t1 = sat_add(s.start_ns, s.dur_ns);
        std::vector<Interval> device, collectives, computes;
        std::vector<HostEvent> host;
        for (const store::Event& e : events) {
          if (tracks.role(e.track) == TrackRole::ignored || tracks.group(e.track) != s.rank_index)
            continue;
          const std::string_view name = reader.name(e);
          if (contains(name, "_MultiProcessingDataLoaderIter")) f.multiprocess_dataloader = true;
          if (contains(name, "Pinned -> Device")) f.pinned_copies = true;
          if (contains(name, "ParallelMap") || contains(name, "ParallelInterleave"))
            f.parallel_map = true;
          if (contains(name, "::Prefetch")) f.data_prefetch = true;
          if (contains(name, "::Cache") || contains(name, "::MemoryCache")) f.data_cache = true;
          const bool conv = conversion_event(name);
          if (tracks.role(e.track) == TrackRole::device) {
            device.push_back({e.start_ns, e.end_ns()});
            if (e.category == Category::collective) collectives.push_back({e.start_ns, e.end_ns()});
            if (e.category == Category::kernel) computes.push_back({e.start_ns, e.end_ns()});
            if (e.category == Category::kernel && e.start_ns >= t0) {
              ++kernels;
              if (e.dur_ns < kShortKernelNs) ++short_kernels;
              if (conv) conversion += static_cast<double>(e.dur_ns);
            }
          } else if (tracks.role(e.track) == TrackRole::trainer && e.category != Category::step) {
            host.push_back({std::max(e.start_ns, t0), std::min(e.end_ns(), t1), name, e.category});
            if (conv) conversion += static_cast<double>(host.back().end - host.back().start);
          }
        }
        // The optimizer's host time: the union of its events (they nest).
        std::int64_t opt_end = t0;
        for (const HostEvent& h : host) {
          if (!optimizer_region(h)) continue;
          const std::int64_t from = std::max(h.start, opt_end);
          if (h.end > from) optimizer += static_cast<double>(h.end - from);
          opt_end = std::max(opt_end, h.end);
        }
        // Communication-computation overlap: the collective kernels' time with a compute kernel.
        if (!collectives.empty()) {
          const Interval window{t0, t1};
          normalise(collectives);
          normalise(computes);
          clip(collectives, window, collective_set);
          clip(computes, window, compute_set);
          intersect(collective_set, compute_set, both);
          const auto rank = static_cast<std::size_t>(std::max(0, s.rank_index)) % ranks;
          collective_ns[rank] += static_cast<double>(total_length(collective_set));
          overlapped_ns[rank] += static_cast<double>(total_length(both));
        }
        // Device-idle gaps of the step, each attributed to the host events open during it. Without
        // a device the whole step is one: what the host ran, by name, is then where the step went.
        const std::vector<Interval> busy = busy_intervals(std::move(device), t0, t1);
        std::vector<Interval> gaps;
        std::int64_t at = t0;
        for (const Interval& b : busy) {
          if (b.start > at) gaps.push_back({at, b.start});
          at = std::max(at, b.end);
        }
        if (at < t1) gaps.push_back({at, t1});
        if (!r.device.has_device) {
          // A step without a device: its input and collective time have levers of their own.
          IntervalSet elsewhere, rest;
          for (const HostEvent& h : host)
            if (input_or_collective(h.category)) elsewhere.push_back({h.start, h.end});
          normalise(elsewhere);
          subtract(gaps, elsewhere, rest);
          gaps.swap(rest);
        }
        std::vector<const HostEvent*> open;
        std::size_t next = 0;  // host events are in start order (Reader::events)
        for (const Interval& g : gaps) {
          while (next < host.size() && host[next].start < g.end) open.push_back(&host[next++]);
          std::erase_if(open, [&](const HostEvent* e) { return e->end <= g.start; });
          attribute_gap(g.start, g.end, open, per_name, per_region, covered);
        }
      });
  f.sampled_steps = static_cast<std::int64_t>(steps.size());
  if (steps.empty()) return f;
  // Per step of each rank: the rank's share of the sampled steps.
  std::vector<double> rank_steps(ranks, 0);
  for (const StepSummary& s : steps)
    rank_steps[static_cast<std::size_t>(std::max(0, s.rank_index)) % ranks] += 1;
  for (std::size_t k = 0; k < ranks; ++k) {
    const double n_k = std::max(1.0, rank_steps[k]);
    f.collective_kernel_ns_per_step.push_back(collective_ns[k] / n_k);
    f.overlapped_ns_per_step.push_back(overlapped_ns[k] / n_k);
  }
  memory_peak(reader, steps, f);
  const double n = static_cast<double>(steps.size());
  auto ranked = [n](const NameTimes& times) {
    std::vector<HostRegion> out;
    for (const auto& [key, ns] : times) out.push_back({key.first, key.second, ns / n});
    std::stable_sort(out.begin(), out.end(), [](const HostRegion& a, const HostRegion& b) {
      return a.ns_per_step > b.ns_per_step;
    });
    return out;
  };
  f.host_in_idle = ranked(per_name);
  f.host_regions_in_idle = ranked(per_region);
  f.idle_with_host_ns_per_step = covered / n;
  f.optimizer_host_ns_per_step = optimizer / n;
  f.conversion_ns_per_step = conversion / n;
  f.kernels_per_step = static_cast<double>(kernels) / n;
  f.short_kernel_pct =
      kernels > 0 ? 100.0 * static_cast<double>(short_kernels) / static_cast<double>(kernels) : 0;
  return f;
}

}  // namespace ts::analysis
