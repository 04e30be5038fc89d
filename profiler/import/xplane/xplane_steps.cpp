#include "profiler/import/xplane/xplane_steps.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace ts::import {

namespace {

std::string steps_text(std::size_t n) {
  return std::to_string(n) + (n == 1 ? " step" : " steps");
}

// The markers no other marker of their track contains, in time order.
std::vector<MarkerEvent> outermost(std::vector<MarkerEvent> v) {
  std::sort(v.begin(), v.end(), [](const MarkerEvent& a, const MarkerEvent& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.end != b.end) return a.end > b.end;  // the enclosing one first
    return a.track < b.track;
  });
  std::map<std::uint32_t, std::int64_t> open_end;  // per track: the end of the last outermost
  std::vector<MarkerEvent> out;
  for (MarkerEvent& m : v) {
    auto [it, fresh] = open_end.try_emplace(m.track, m.end);
    if (!fresh && m.start < it->second) continue;
    it->second = m.end;
    out.push_back(std::move(m));
  }
  return out;
}

// Numbers the markers (in time order). `names`: the marker names, quoted; `detail`: how many
// steps, their numbers and epochs.
StepPlan number(std::vector<MarkerEvent> markers, std::string& names, std::string& detail) {
  StepPlan plan;
  plan.markers = outermost(std::move(markers));
  std::optional<std::int64_t> prev;
  bool renumbered = false;
  std::set<std::int64_t> epochs;
  std::set<std::string> distinct;
  for (std::size_t i = 0; i < plan.markers.size(); ++i) {
    const MarkerEvent& m = plan.markers[i];
    std::int64_t n = 0;
    if (m.step_num && (!prev || *m.step_num > *prev)) {
      n = *m.step_num;
    } else {
      n = prev ? *prev + 1 : 1;
      renumbered = renumbered || m.step_num.has_value();
    }
    prev = n;
    if (m.epoch_num) epochs.insert(*m.epoch_num);
    distinct.insert("'" + m.name + "'");
    plan.spans.push_back({m.start, m.end, n, m.track, static_cast<std::int64_t>(i)});
  }
  names.clear();
  for (const std::string& n : distinct) names += (names.empty() ? "" : ", ") + n;
  if (plan.spans.empty()) return plan;
  detail = steps_text(plan.spans.size()) + ", #" + std::to_string(plan.spans.front().step) + "..#" +
           std::to_string(plan.spans.back().step);
  if (epochs.size() == 1) detail += " of epoch_num " + std::to_string(*epochs.begin());
  if (epochs.size() > 1) detail += " over " + std::to_string(epochs.size()) + " epochs";
  if (renumbered) detail += " (step_num restarts each epoch: numbered on from the previous step)";
  return plan;
}

}  // namespace

StepPlan find_xplane_steps(const std::string& step_marker_text,
                           std::vector<MarkerEvent> regex_markers,
                           std::vector<MarkerEvent> explicit_markers,
                           std::vector<MarkerEvent> profiled, std::vector<StepCandidate> get_next,
                           const std::vector<std::int64_t>& track_end) {
  std::string names, detail;
  if (!step_marker_text.empty()) {
    for (MarkerEvent& m : regex_markers) m.step_num.reset();  // numbered 1, 2, ... in time order
    StepPlan plan = number(std::move(regex_markers), names, detail);
    plan.source = plan.spans.empty()
                      ? "none: no host event matches --step-marker '" + step_marker_text + "'"
                      : "--step-marker '" + step_marker_text + "': " + detail +
                            ", the outermost host events whose name matches";
    return plan;
  }
  if (!explicit_markers.empty()) {
    StepPlan plan = number(std::move(explicit_markers), names, detail);
    plan.source = "step markers " + names + " (root events, as XProf finds steps): " + detail +
                  "; XProf's input analysis also drops the first and the last step of more "
                  "than 5";
    return plan;
  }
  if (!profiled.empty()) {
    StepPlan plan = number(std::move(profiled), names, detail);
    plan.source = "Keras 3 " + names + " annotations: " + detail +
                  "; XProf takes no steps from these (no _r stat) and reports no step time";
    return plan;
  }
  StepPlan plan;
  if (!get_next.empty()) {
    // The track with the most input waits, its outermost ones.
    std::map<std::uint32_t, std::size_t> per_track;
    for (const StepCandidate& c : get_next) ++per_track[c.thread];
    std::uint32_t track = per_track.begin()->first;
    for (const auto& [t, n] : per_track)
      if (n > per_track[track]) track = t;
    std::vector<MarkerEvent> on_track;
    for (const StepCandidate& c : get_next)
      if (c.thread == track) on_track.push_back({c.start, c.end, c.thread, 0, 0, {}, {}, {}});
    std::vector<StepCandidate> calls;
    for (const MarkerEvent& m : outermost(std::move(on_track)))
      calls.push_back({m.start, m.end, m.track, 0, -1});
    const std::int64_t end = track < track_end.size() ? track_end[track] : calls.back().end;
    plan.spans = steps_from_dataloader(std::move(calls), end);
    plan.cadence = true;
    plan.source =
        "inferred: one step per IteratorGetNext call, from its start to the next "
        "one's (" +
        steps_text(plan.spans.size()) +
        "; no step markers: Keras train/test or 'Profiled batch' events)";
  }
  if (plan.spans.empty())
    plan.source =
        "none: no step markers (Keras train/test or 'Profiled batch' events, root "
        "events, TraceContext) and no IteratorGetNext calls";
  return plan;
}

}  // namespace ts::import
