#include "profiler/analysis/what_if.hpp"

#include <algorithm>

#include "profiler/analysis/step_breakdown.hpp"

namespace ts::analysis {

namespace {

constexpr double kMinSharePct = 1.0;

}  // namespace

WhatIf project(const Report& r, const AnalysisOptions& o, std::string lever,
               std::string description, double removed_ns_per_step) {
  WhatIf w;
  w.lever = std::move(lever);
  w.description = std::move(description);
  const double mean_ns = r.step_time.mean_ms * 1e6;
  const double projected_ns = std::max(0.0, mean_ns - removed_ns_per_step);
  w.step_time_ms = projected_ns / 1e6;
  w.speedup = projected_ns > 0 ? mean_ns / projected_ns : 1.0;
  w.samples_per_s = r.samples_per_s * w.speedup;
  w.device_hours = mean_ns > 0 ? r.run_device_hours * projected_ns / mean_ns : r.run_device_hours;
  w.saving_device_hours = r.run_device_hours - w.device_hours;
  w.saving = w.saving_device_hours * o.gpu_hour_price;
  return w;
}

std::vector<WhatIf> what_if(const Report& r, const AnalysisOptions& o) {
  std::vector<WhatIf> out;
  if (r.steps == 0 || r.step_time_total_ns <= 0) return out;
  const double steps = static_cast<double>(r.steps);
  const double mean_ns = r.step_time.mean_ms * 1e6;
  auto consider = [&](const char* lever, const char* description, std::int64_t total_ns) {
    const double per_step = static_cast<double>(total_ns) / steps;
    if (mean_ns <= 0 || 100.0 * per_step / mean_ns < kMinSharePct) return;
    out.push_back(project(r, o, lever, description, per_step));
  };
  consider("input_hidden", "input fully hidden behind compute", input_ns(r.breakdown));
  if (r.device.has_device) {
    const auto& by = r.device.idle_by_cause_ns;
    consider("host_bound_removed", "the device never waiting on the host",
             by[static_cast<int>(IdleCause::host)]);
    consider("sync_removed", "no synchronisation stalls", by[static_cast<int>(IdleCause::sync)]);
    if (!r.straggler)
      consider("collectives_level", "no waiting in collectives (ranks level)",
               by[static_cast<int>(IdleCause::collective)]);
  }
  if (r.straggler && r.ranks.size() >= 2) {
    // The other ranks' extra wait for the straggler, spread over every rank's steps.
    const double others =
        static_cast<double>(r.ranks.size() - 1) / static_cast<double>(r.ranks.size());
    consider("collectives_level", "the straggler brought level (no waiting for it)",
             static_cast<std::int64_t>(r.straggler->wait_ms_per_step * 1e6 * others * steps));
  }
  std::stable_sort(out.begin(), out.end(), [](const WhatIf& a, const WhatIf& b) {
    return a.saving_device_hours > b.saving_device_hours;
  });
  return out;
}

}  // namespace ts::analysis
