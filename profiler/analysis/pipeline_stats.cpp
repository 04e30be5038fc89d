#include "profiler/analysis/pipeline_stats.hpp"

#include <algorithm>
#include <cmath>

#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

constexpr const char* kStageNames[kStageCount] = {"read", "decode", "map", "batch"};

}  // namespace

int stage_index(trace::Category c) {
  switch (c) {
    case trace::Category::input_read:
      return 0;
    case trace::Category::input_decode:
      return 1;
    case trace::Category::input_map:
      return 2;
    case trace::Category::input_batch:
      return 3;
    default:
      return -1;
  }
}

std::vector<StageAccumulator::Open>& StageAccumulator::open_on(int track) {
  const auto t = static_cast<std::size_t>(track);
  if (t >= open_.size()) {
    open_.resize(t + 1);
    roots_.resize(t + 1);
  }
  return open_[t];
}

void StageAccumulator::nest(const Open& parent, Interval child) {
  // The parent's self time loses the part of the child inside it.
  PerStage& p = stages_[static_cast<std::size_t>(parent.stage)];
  const std::int64_t overlap = std::min(parent.when.end, child.end) - child.start;
  if (overlap <= 0) return;
  p.self_ns = sat_add(p.self_ns, -overlap);
  std::int64_t& by_label = p.self_by_label[parent.label];
  by_label = sat_add(by_label, -overlap);
}

void StageAccumulator::add(int track, trace::Category category, Interval when,
                           std::uint32_t label) {
  const int stage = stage_index(category);
  if (stage < 0 || track < 0) return;
  std::vector<Open>& open = open_on(track);
  while (!open.empty() && open.back().when.end <= when.start) open.pop_back();
  if (open.empty()) {
    if (later_part_) roots_[static_cast<std::size_t>(track)].push_back(when);
  } else {
    nest(open.back(), when);
  }
  open.push_back({when, stage, label});
  PerStage& s = stages_[static_cast<std::size_t>(stage)];
  ++s.count;
  s.self_ns = sat_add(s.self_ns, when.length());
  std::int64_t& by_label = s.self_by_label[label];
  by_label = sat_add(by_label, when.length());
  if (std::find(s.tracks.begin(), s.tracks.end(), track) == s.tracks.end())
    s.tracks.push_back(track);
}

void StageAccumulator::merge(StageAccumulator&& later) {
  for (int i = 0; i < kStageCount; ++i) {
    PerStage& s = stages_[static_cast<std::size_t>(i)];
    const PerStage& o = later.stages_[static_cast<std::size_t>(i)];
    s.count += o.count;
    s.self_ns = sat_add(s.self_ns, o.self_ns);
    for (const auto& [label, ns] : o.self_by_label) {
      std::int64_t& by_label = s.self_by_label[label];
      by_label = sat_add(by_label, ns);
    }
    for (int t : o.tracks)
      if (std::find(s.tracks.begin(), s.tracks.end(), t) == s.tracks.end()) s.tracks.push_back(t);
  }
  for (std::size_t t = 0; t < later.open_.size(); ++t) {
    std::vector<Open>& open = open_on(static_cast<int>(t));
    // The later part's roots meet this part's open zones as a sequential pass would: a root
    // pops the zones that ended before it and nests in the innermost one left.
    for (const Interval& root : later.roots_[t]) {
      while (!open.empty() && open.back().when.end <= root.start) open.pop_back();
      if (open.empty()) {
        if (later_part_) roots_[t].push_back(root);  // may still nest in an earlier part's zone
        continue;
      }
      nest(open.back(), root);
    }
    // What stays open after both parts: this part's survivors under the later part's zones.
    open.insert(open.end(), later.open_[t].begin(), later.open_[t].end());
  }
}

PipelineStats StageAccumulator::finish(
    std::int64_t samples, std::int64_t wall_ns,
    const std::function<std::string_view(std::uint32_t)>& label_name) const {
  PipelineStats p;
  double worst = -1;
  for (int i = 0; i < kStageCount; ++i) {
    const PerStage& s = stages_[static_cast<std::size_t>(i)];
    if (s.count == 0) continue;
    StageStat st;
    st.stage = kStageNames[i];
    if (label_name && !s.self_by_label.empty()) {
      // The label with the most self time; the smaller id among equals, so the pick is stable.
      auto main = s.self_by_label.begin();
      for (auto it = s.self_by_label.begin(); it != s.self_by_label.end(); ++it)
        if (it->second > main->second || (it->second == main->second && it->first < main->first))
          main = it;
      st.main_event = std::string(label_name(main->first));
    }
    st.count = s.count;
    st.total_ns = std::max<std::int64_t>(0, s.self_ns);
    st.threads = static_cast<int>(s.tracks.size());
    st.ns_per_sample =
        static_cast<double>(st.total_ns) / static_cast<double>(samples > 0 ? samples : s.count);
    const double capacity = static_cast<double>(wall_ns) * st.threads;
    st.utilisation_pct =
        capacity > 0 ? std::min(100.0, 100.0 * static_cast<double>(st.total_ns) / capacity) : 0.0;
    const double per_sample_per_thread = st.ns_per_sample / std::max(1, st.threads);
    if (per_sample_per_thread > worst) {
      worst = per_sample_per_thread;
      p.bottleneck_stage = st.stage;
    }
    p.stages.push_back(std::move(st));
  }
  return p;
}

std::optional<double> time_weighted_mean(std::span<const store::CounterSample> samples,
                                         std::int64_t end_ns) {
  if (samples.empty()) return std::nullopt;
  // In double: a hostile file's timestamps may be anything, and the spans may not fit int64.
  double weighted = 0, plain = 0, span = 0;
  std::size_t finite = 0;
  for (std::size_t i = 0; i < samples.size(); ++i) {
    if (!std::isfinite(samples[i].value)) continue;
    const std::int64_t until = i + 1 < samples.size() ? samples[i + 1].ts_ns : end_ns;
    const double held =
        std::max(0.0, static_cast<double>(until) - static_cast<double>(samples[i].ts_ns));
    weighted += samples[i].value * held;
    span += held;
    plain += samples[i].value;
    ++finite;
  }
  if (finite == 0) return std::nullopt;
  const double mean = span > 0 ? weighted / span : plain / static_cast<double>(finite);
  if (!std::isfinite(mean)) return std::nullopt;
  return mean;
}

}  // namespace ts::analysis
