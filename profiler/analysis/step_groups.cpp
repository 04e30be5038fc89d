#include "profiler/analysis/step_groups.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "profiler/analysis/steps.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::analysis {

namespace {

std::optional<std::uint32_t> parse_track(std::string_view text) {
  std::uint32_t value = 0;
  const char* end = text.data() + text.size();
  const auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc() || ptr != end || text.empty()) return std::nullopt;
  return value;
}

}  // namespace

// The threads a trace names as the trainer besides those holding steps (meta
// analysis.trainer_tracks, "3,5,9": an import's threads that launch device work).
std::vector<std::uint32_t> trainer_tracks(const store::Reader& reader,
                                          std::vector<std::uint32_t> with_steps) {
  std::vector<std::uint32_t> tracks = std::move(with_steps);
  std::unordered_set<std::uint32_t> seen(tracks.begin(), tracks.end());
  const std::string listed = reader.meta(meta_key::kAnalysisTrainerTracks).value_or("");
  std::size_t i = 0;
  while (i < listed.size()) {
    std::size_t j = listed.find(',', i);
    if (j == std::string::npos) j = listed.size();
    if (const auto id = parse_track(std::string_view(listed).substr(i, j - i)))
      if (seen.insert(*id).second) tracks.push_back(*id);
    i = j + 1;
  }
  return tracks;
}

std::vector<StepGroup> step_groups(const store::Reader& reader, std::vector<store::Step> raw) {
  const auto process_of = [&](const store::Step& s) {
    const store::Track* t = reader.track(s.track);
    return t != nullptr ? t->process : store::kNull;
  };
  std::vector<StepGroup> groups;
  if (!raw.empty() && std::all_of(raw.begin(), raw.end(), [&](const store::Step& s) {
        return process_of(s) == process_of(raw.front());
      })) {
    const std::int64_t process = process_of(raw.front());
    groups.push_back(StepGroup{process, std::move(raw)});
  } else {
    for (const store::Step& s : raw) {
      const std::int64_t process = process_of(s);
      auto it = std::find_if(groups.begin(), groups.end(),
                             [&](const StepGroup& g) { return g.process == process; });
      if (it == groups.end()) it = groups.insert(groups.end(), StepGroup{process, {}});
      it->steps.push_back(s);
    }
  }
  auto rank_of = [&](const StepGroup& g) {
    const store::Process* p = reader.process(g.process);
    return std::pair{p != nullptr && p->rank != store::kNull ? p->rank : INT64_MAX, g.process};
  };
  std::sort(groups.begin(), groups.end(),
            [&](const StepGroup& a, const StepGroup& b) { return rank_of(a) < rank_of(b); });
  for (StepGroup& g : groups) clean_steps_in_place(g.steps);
  return groups;
}

TrackTable group_track_table(const store::Reader& reader, const std::vector<StepGroup>& groups,
                             const std::vector<std::uint32_t>& trainers) {
  std::vector<std::int64_t> processes;
  if (groups.size() > 1) {
    for (const StepGroup& g : groups) processes.push_back(g.process);
  } else if (!groups.empty() && groups.front().process != store::kNull) {
    processes.push_back(groups.front().process);
  }
  return TrackTable(reader.tracks(), trainers, processes);
}

}  // namespace ts::analysis
