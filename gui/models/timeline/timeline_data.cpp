#include "gui/models/timeline/timeline_data.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <limits>
#include <optional>

#include "profiler/store/rows.hpp"

namespace ts::gui {

namespace {

// The input share and flag of each step number (of several steps with one number, the last
// listed), looked up by binary search: for figures whose numbers do not ascend (several ranks
// listed apart, a hostile file), 16 bytes a step for the time of the marking.
class StepLookup {
 public:
  struct Entry {
    std::int64_t step = 0;
    float input_pct = 0;
    analysis::Verdict input_class = analysis::Verdict::none;
  };

  explicit StepLookup(const PackedSteps& steps) {
    entries_.reserve(steps.size());
    steps.for_each([&](std::size_t, const analysis::StepSummary& s) {
      entries_.push_back({s.step, static_cast<float>(s.input_pct), s.input_verdict});
    });
    // Stable: of steps with one number, the last listed stays last.
    std::stable_sort(entries_.begin(), entries_.end(),
                     [](const Entry& a, const Entry& b) { return a.step < b.step; });
  }

  const Entry* find(std::int64_t step) const {
    const auto it = std::upper_bound(entries_.begin(), entries_.end(), step,
                                     [](std::int64_t n, const Entry& e) { return n < e.step; });
    return it == entries_.begin() || (it - 1)->step != step ? nullptr : &*(it - 1);
  }

 private:
  std::vector<Entry> entries_;
};

// Marks the row's steps walking the figures and the row together, both in ascending step
// order (a trace's usual shape): nothing besides the row, and only the figures from the row's
// first number to its last (a row of the steps around a view reads a few blocks). False,
// leaving the marks partly set, when the figures' numbers do not ascend.
bool mark_in_one_walk(StepRow& r, const PackedSteps& steps) {
  if (!std::is_sorted(r.numbers.begin(), r.numbers.end())) return false;
  if (!steps.ascending()) return false;
  const std::size_t n = r.numbers.size();
  if (n == 0) return true;
  std::size_t zone = 0;
  steps.for_each_from(steps.first_at_least(r.numbers.front()),
                      [&](std::size_t, const analysis::StepSummary& s) {
                        if (s.step > r.numbers.back()) return false;
                        while (zone < n && r.numbers[zone] < s.step) ++zone;
                        // Every zone with the number; a later step with the same number
                        // overwrites (the last wins).
                        for (std::size_t k = zone; k < n && r.numbers[k] == s.step; ++k) {
                          r.input_pct[k] = static_cast<float>(s.input_pct);
                          r.input_bound[k] = static_cast<std::uint8_t>(s.input_verdict);
                        }
                        return true;
                      });
  return true;
}

std::atomic<std::size_t> g_whole_row_zones{kWholeRowZones};

}  // namespace

std::size_t whole_row_zones() {
  return g_whole_row_zones.load();
}

void set_whole_row_zones(std::size_t zones) {
  g_whole_row_zones = std::max<std::size_t>(1, zones);
}

std::size_t steps_per_zone(std::size_t steps) {
  const std::size_t most = whole_row_zones();
  return steps <= most ? 1 : (steps + most - 1) / most;
}

// A row whose zones stand for several steps each is marked with how many of each zone's steps
// are input-bound, a step's zone found by its number (the zones' first numbers ascend; a row whose
// numbers do not stays unmarked). Of figures listed one after another with one number (ranks),
// the last counts.
StepZoneMarker::StepZoneMarker(StepRow& row)
    : r_(row),
      sorted_(std::is_sorted(row.numbers.begin(), row.numbers.end())),
      bound_(row.numbers.size(), 0),
      high_(row.numbers.size(), 0) {}

void StepZoneMarker::add(const analysis::StepSummary& s) {
  if (!sorted_) return;
  const auto it = std::upper_bound(r_.numbers.begin(), r_.numbers.end(), s.step);
  if (it == r_.numbers.begin()) return;
  const auto zone = static_cast<std::size_t>(it - r_.numbers.begin()) - 1;
  if (last_zone_ && last_step_ == s.step) {  // replaced
    if (last_class_ != analysis::Verdict::none) --bound_[*last_zone_];
    if (last_class_ == analysis::Verdict::high) --high_[*last_zone_];
  }
  last_zone_ = zone;
  last_step_ = s.step;
  last_class_ = s.input_verdict;
  if (s.input_verdict != analysis::Verdict::none) ++bound_[zone];
  if (s.input_verdict == analysis::Verdict::high) ++high_[zone];
}

void StepZoneMarker::finish() {
  const std::size_t n = r_.numbers.size();
  r_.input_pct.assign(n, -1.f);
  r_.input_bound.assign(n, 0);
  r_.bound_cum.assign(n + 1, 0);
  r_.high_cum.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    const auto most = static_cast<std::uint32_t>(r_.steps_in(i, i + 1));
    r_.input_bound[i] = static_cast<std::uint8_t>(high_[i] > 0    ? analysis::Verdict::high
                                                  : bound_[i] > 0 ? analysis::Verdict::moderate
                                                                  : analysis::Verdict::none);
    r_.bound_cum[i + 1] = r_.bound_cum[i] + std::min(bound_[i], most);
    r_.high_cum[i + 1] = r_.high_cum[i] + std::min(high_[i], most);
  }
}

void mark_step_row(StepRow& r, const PackedSteps* steps) {
  const std::size_t n = r.numbers.size();
  const auto unmarked = [&] {
    r.input_pct.assign(n, -1.f);
    r.input_bound.assign(n, 0);
  };
  unmarked();
  if (r.per_zone > 1) {
    StepZoneMarker marker(r);
    if (steps != nullptr)
      steps->for_each([&](std::size_t, const analysis::StepSummary& s) { marker.add(s); });
    marker.finish();
    return;
  }
  if (steps != nullptr && !mark_in_one_walk(r, *steps)) {
    unmarked();
    const StepLookup by_number(*steps);
    for (std::size_t i = 0; i < n; ++i) {
      if (const StepLookup::Entry* e = by_number.find(r.numbers[i])) {
        r.input_pct[i] = e->input_pct;
        r.input_bound[i] = static_cast<std::uint8_t>(e->input_class);
      }
    }
  }
  r.bound_cum.assign(n + 1, 0);
  r.high_cum.assign(n + 1, 0);
  for (std::size_t i = 0; i < n; ++i) {
    r.bound_cum[i + 1] = r.bound_cum[i] + (r.input_bound[i] > 0 ? 1 : 0);
    r.high_cum[i + 1] = r.high_cum[i] + (r.input_class(i) == analysis::Verdict::high ? 1 : 0);
  }
}

StepRowBuilder::StepRowBuilder(std::size_t per_zone, std::size_t steps) {
  r_.per_zone = std::max<std::size_t>(1, per_zone);
  r_.row.zones.reserve(steps / r_.per_zone + 1);
  r_.numbers.reserve(steps / r_.per_zone + 1);
}

void StepRowBuilder::add(const store::Step& s) {
  // A row: zones never overlap. Another rank's copy of the step kept, or of an earlier one, is
  // left out; so is anything overlapping in an odd file.
  if (s.start_ns < last_end_) {
    if (s.start_ns <= last_start_ || s.step <= last_step_) return;
    r_.row.zones.back().end_ns = s.start_ns;
  }
  last_start_ = s.start_ns;
  last_step_ = s.step;
  last_end_ = store::sat_add(s.start_ns, s.dur_ns);
  if (r_.steps++ % r_.per_zone == 0) {
    r_.row.zones.push_back(
        Zone{s.start_ns, last_end_, static_cast<std::uint32_t>(r_.numbers.size()), 1});
    r_.numbers.push_back(s.step);
  } else {
    r_.row.zones.back().end_ns = last_end_;
    ++r_.row.zones.back().count;
  }
}

StepRow StepRowBuilder::finish(const PackedSteps* figures,
                               const std::vector<std::int64_t>& epoch_first_steps) {
  StepRow r = std::move(r_);
  r_ = {};
  r.row.zones.shrink_to_fit();
  r.numbers.shrink_to_fit();
  mark_step_row(r, figures);
  // An epoch starts at the first step numbered at least its first step (numbers ascend in time).
  if (epoch_first_steps.size() >= 2) {
    std::size_t zone = 0;
    for (std::size_t e = 0; e < epoch_first_steps.size(); ++e) {
      while (zone < r.numbers.size() && r.numbers[zone] < epoch_first_steps[e]) ++zone;
      if (zone == r.numbers.size()) break;
      if (!r.epochs.empty() && r.epochs.back().zone == zone) r.epochs.pop_back();
      r.epochs.push_back({zone, static_cast<int>(e + 1)});
    }
  }
  return r;
}

StepRow make_step_row(std::span<const store::Step> steps, const PackedSteps* figures,
                      const std::vector<std::int64_t>& epoch_first_steps, std::size_t per_zone) {
  StepRowBuilder builder(per_zone, steps.size());
  for (const store::Step& s : steps) builder.add(s);
  return builder.finish(figures, epoch_first_steps);
}

int StepRow::epoch_of(std::size_t zone) const {
  const auto it = std::upper_bound(epochs.begin(), epochs.end(), zone,
                                   [](std::size_t z, const EpochStart& e) { return z < e.zone; });
  return it == epochs.begin() ? 0 : (it - 1)->epoch;
}

GapRow make_gap_row(const std::vector<analysis::IdleGap>& gaps) {
  GapRow g;
  g.row.zones.reserve(gaps.size());
  g.steps.reserve(gaps.size());
  std::int64_t last_end = std::numeric_limits<std::int64_t>::min();
  for (const analysis::IdleGap& gap : gaps) {
    // Gaps come sorted and disjoint; clamp anyway, keeping zone i = gap i, so a row never overlaps.
    const std::int64_t start = std::max(gap.start_ns, last_end);
    const std::int64_t end = std::max(gap.end_ns, start);
    last_end = end;
    g.row.zones.push_back(Zone{start, end, static_cast<std::uint32_t>(gap.cause), 1});
    g.steps.push_back(gap.step);
  }
  g.sum_causes();
  return g;
}

StepIdleRowBuilder::StepIdleRowBuilder(std::size_t steps, std::size_t per_zone) {
  g_.per_step = true;
  g_.per_zone = std::max<std::size_t>(1, per_zone);
  // Room for a zone per step (per_zone steps), in one pass over the packed steps: growing would
  // hold millions of zones up to twice over, and the room steps without idle time leave is never
  // touched (the allocation is mapped, not written).
  const std::size_t room = steps / g_.per_zone + 1;
  g_.row.zones.reserve(room);
  g_.steps.reserve(room);
  g_.idle_ns.reserve(room);
}

// A zone is labelled with the cause of most of its idle time, as the exact gaps of a merged run
// are (GapRow::dominant weighs a step's zone by its idle time).
void StepIdleRowBuilder::close_zone() {
  if (in_zone_ == 0) return;
  g_.row.zones.back().label = static_cast<std::uint32_t>(
      std::max_element(by_cause_.begin(), by_cause_.end()) - by_cause_.begin());
  by_cause_ = {};
  in_zone_ = 0;
}

void StepIdleRowBuilder::add(const analysis::StepSummary& s) {
  if (!s.device_sampled) return;  // no device events: its idle time is unknown, not the step
  // Saturating sums: a hostile file's kept report may hold any figures.
  std::int64_t idle = 0;
  for (const std::int64_t ns : s.idle_by_cause_ns) idle = store::sat_add(idle, ns);
  if (idle <= 0 || s.start_ns < last_end_) return;  // ranks' steps overlap: one lane
  last_end_ = store::sat_add(s.start_ns, s.dur_ns);
  if (in_zone_ == 0) {
    g_.row.zones.push_back(Zone{s.start_ns, last_end_, 0, 0});
    g_.steps.push_back(s.step);
    g_.idle_ns.push_back(0);
  }
  Zone& z = g_.row.zones.back();
  z.end_ns = last_end_;
  ++z.count;
  g_.idle_ns.back() = store::sat_add(g_.idle_ns.back(), idle);
  for (std::size_t c = 0; c < by_cause_.size(); ++c)
    by_cause_[c] = store::sat_add(by_cause_[c], s.idle_by_cause_ns[c]);
  if (++in_zone_ == g_.per_zone) close_zone();
}

GapRow StepIdleRowBuilder::finish() {
  close_zone();
  g_.sum_causes();
  return std::move(g_);
}

GapRow make_step_idle_row(const PackedSteps& steps, std::size_t per_zone) {
  StepIdleRowBuilder builder(steps.size(), per_zone);
  steps.for_each([&](std::size_t, const analysis::StepSummary& s) { builder.add(s); });
  return builder.finish();
}

namespace {

std::int64_t idle_of_zone(const GapRow& g, std::size_t i) {
  const Zone& z = g.row.zones[i];
  return g.per_step && i < g.idle_ns.size() ? g.idle_ns[i] : z.end_ns - z.start_ns;
}

}  // namespace

void GapRow::sum_causes() {
  const std::size_t n = row.zones.size();
  cause_sums.assign(n / kCauseStride + 1, {});
  std::array<std::int64_t, analysis::kIdleCauseCount> sum{};
  for (std::size_t i = 0; i < n; ++i) {
    if (i % kCauseStride == 0) cause_sums[i / kCauseStride] = sum;
    const std::uint32_t cause = row.zones[i].label;
    if (cause < sum.size()) sum[cause] = store::sat_add(sum[cause], idle_of_zone(*this, i));
  }
  if (n % kCauseStride == 0) cause_sums[n / kCauseStride] = sum;
}

std::array<std::int64_t, analysis::kIdleCauseCount> GapRow::idle_by_cause(std::size_t first,
                                                                          std::size_t last) const {
  std::array<std::int64_t, analysis::kIdleCauseCount> ns{};
  const auto add = [&](std::size_t from, std::size_t to) {
    for (std::size_t i = from; i < to; ++i)
      if (row.zones[i].label < ns.size())
        ns[row.zones[i].label] = store::sat_add(ns[row.zones[i].label], idle_of_zone(*this, i));
  };
  last = std::min(last, row.zones.size());
  const std::size_t b0 = (first + kCauseStride - 1) / kCauseStride, b1 = last / kCauseStride;
  if (b0 < b1 && b1 < cause_sums.size()) {
    add(first, b0 * kCauseStride);
    for (std::size_t c = 0; c < ns.size(); ++c)
      ns[c] = store::sat_add(ns[c], store::sat_sub(cause_sums[b1][c], cause_sums[b0][c]));
    add(b1 * kCauseStride, last);
  } else {
    add(first, last);  // few zones, or a row made without its sums
  }
  return ns;
}

analysis::IdleCause GapRow::dominant(std::size_t first, std::size_t last) const {
  const auto ns = idle_by_cause(first, last);
  return static_cast<analysis::IdleCause>(std::max_element(ns.begin(), ns.end()) - ns.begin());
}

std::int64_t GapRow::idle_in(std::size_t first, std::size_t last) const {
  std::int64_t sum = 0;
  for (const std::int64_t ns : idle_by_cause(first, last)) sum = store::sat_add(sum, ns);
  return sum;
}

}  // namespace ts::gui
