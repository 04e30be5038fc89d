#include "profiler/import/common/meta_writer.hpp"

#include <algorithm>
#include <set>
#include <string>
#include <vector>

#include "trainscope/meta_keys.hpp"

namespace ts::import {

namespace {

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

void add_unique(std::vector<std::string>& to, const std::string& item) {
  if (std::find(to.begin(), to.end(), item) == to.end()) to.push_back(item);
}

// One sentence when every process says the same, else "label: sentence" per process.
template <class Field>
std::string merged(const std::vector<ImportedProcess>& ps, Field field, std::string_view sep,
                   std::string_view joint) {
  bool same = true;
  for (const ImportedProcess& p : ps) same = same && field(p) == field(ps.front());
  if (ps.empty() || same) return ps.empty() ? std::string() : field(ps.front());
  std::vector<std::string> each;
  for (const ImportedProcess& p : ps) each.push_back(p.label + std::string(sep) + field(p));
  return join(each, joint);
}

// "2 files without distributedInfo (...)" when several files are imported and some name no rank.
std::string unranked_note(const std::vector<ImportedProcess>& ps) {
  const auto unranked =
      std::count_if(ps.begin(), ps.end(), [](const ImportedProcess& p) { return !p.rank; });
  if (ps.size() <= 1 || unranked == 0) return {};
  return std::to_string(unranked) + (unranked == 1 ? " file" : " files") +
         " without distributedInfo (or a rank in the file name), treated as " +
         (unranked == 1 ? "a separate process" : "separate processes");
}

// device.gpu.<id>.*: each device id once (the first process to describe it; ranks share a model).
void write_device_properties(const std::vector<ImportedProcess>& ps, TraceSink& sink) {
  std::set<std::int64_t> written;
  for (const ImportedProcess& p : ps)
    for (const DeviceProperties& d : p.device_properties) {
      if (d.id == kNone || !written.insert(d.id).second) continue;
      const std::string key = meta_key::kDeviceGpuPrefix + std::to_string(d.id);
      if (!d.name.empty()) sink.put_meta(key + meta_key::kDeviceGpuNameSuffix, d.name);
      const std::pair<const char*, std::int64_t> numbers[] = {
          {meta_key::kDeviceGpuTotalMemorySuffix, d.total_memory},
          {meta_key::kDeviceGpuComputeMajorSuffix, d.compute_major},
          {meta_key::kDeviceGpuComputeMinorSuffix, d.compute_minor}};
      for (const auto& [suffix, value] : numbers)
        if (value != kNone) sink.put_meta(key + suffix, std::to_string(value));
    }
}

}  // namespace

ImportStats write_import_meta(const ImportedRun& run, TraceSink& sink) {
  const std::vector<ImportedProcess>& ps = run.processes;
  ImportStats stats;
  std::int64_t origin = kNone;
  std::set<std::string> formats;
  std::vector<std::string> sources, hosts, runs, devices, trainer, errors, profiler_errors,
      profiler_warnings;
  std::optional<std::int64_t> world_size;
  std::string backend, display_unit, trace_name;
  std::set<std::int64_t> batches;
  bool batch_known = true;
  SkipCounts skipped;
  for (const ImportedProcess& p : ps) {
    if (p.first_start != kNone && (origin == kNone || p.first_start < origin))
      origin = p.first_start;
    formats.insert(p.format);
    sources.push_back(p.source);
    if (!p.host.empty()) hosts.push_back(p.host);
    if (!p.run.empty()) add_unique(runs, p.run);
    for (const std::string& d : p.devices) add_unique(devices, d);
    for (const std::uint32_t t : p.trainer_tracks) trainer.push_back(std::to_string(t));
    errors.insert(errors.end(), p.errors.begin(), p.errors.end());
    profiler_errors.insert(profiler_errors.end(), p.profiler_errors.begin(),
                           p.profiler_errors.end());
    profiler_warnings.insert(profiler_warnings.end(), p.profiler_warnings.begin(),
                             p.profiler_warnings.end());
    if (!world_size) world_size = p.world_size;
    if (backend.empty()) backend = p.backend;
    if (display_unit.empty()) display_unit = p.display_time_unit;
    if (trace_name.empty()) trace_name = p.trace_name;
    // The batch size is known when every process with steps gives it.
    if (p.batch)
      batches.insert(*p.batch);
    else
      batch_known = batch_known && p.steps == 0;
    skipped += p.skipped;
    stats.bytes += p.bytes;
    stats.events_read += p.events_read;
    stats.events_written += p.events_written;
  }
  stats.processes = static_cast<int>(ps.size());
  stats.steps_source = merged(
      ps, [](const ImportedProcess& p) { return p.steps_source; }, ": ", "; ");
  stats.unranked = unranked_note(ps);
  skipped.add_to(stats.skipped);

  sink.put_meta(meta_key::kImportFormat, join({formats.begin(), formats.end()}, ", "));
  sink.put_meta(meta_key::kEngineModel, run.model);
  sink.put_meta(meta_key::kImportSource, join(sources, "\n"));
  if (!hosts.empty()) sink.put_meta(meta_key::kImportHosts, join(hosts, ", "));
  if (!runs.empty()) sink.put_meta(meta_key::kImportRun, join(runs, ", "));
  sink.put_meta(meta_key::kImportProcesses, std::to_string(stats.processes));
  sink.put_meta(meta_key::kImportEvents, std::to_string(stats.events_written));
  sink.put_meta(meta_key::kImportEventsRead, std::to_string(stats.events_read));
  sink.put_meta(meta_key::kImportBytes, std::to_string(stats.bytes));
  for (int i = 0; i < kSkipCount; ++i)
    if (skipped.n[i] != 0)
      sink.put_meta("import.skipped." + std::string(skip_name(static_cast<Skip>(i))),
                    std::to_string(skipped.n[i]));
  if (!errors.empty()) sink.put_meta(meta_key::kImportError, join(errors, "\n"));
  if (!profiler_errors.empty())
    sink.put_meta(meta_key::kImportProfilerErrors, join(profiler_errors, "\n"));
  if (!profiler_warnings.empty())
    sink.put_meta(meta_key::kImportProfilerWarnings, join(profiler_warnings, "\n"));
  sink.put_meta(meta_key::kStepsSource, stats.steps_source);
  sink.put_meta(meta_key::kClockOriginNs, std::to_string(origin == kNone ? 0 : origin));
  sink.put_meta(meta_key::kClockAlignment,
                merged(
                    ps, [](const ImportedProcess& p) { return p.clock; }, " ", "; "));
  if (world_size) sink.put_meta(meta_key::kImportWorldSize, std::to_string(*world_size));
  if (!backend.empty()) sink.put_meta(meta_key::kImportDistributedBackend, backend);
  if (!display_unit.empty()) sink.put_meta(meta_key::kImportDisplayTimeUnit, display_unit);
  if (!trace_name.empty()) sink.put_meta(meta_key::kImportTraceName, trace_name);
  if (!devices.empty()) sink.put_meta(meta_key::kEngineDevice, join(devices, ", "));
  write_device_properties(ps, sink);
  // The kernels' achieved occupancy, time-weighted over every process's kernels that carry it.
  double occupancy_weighted = 0, occupancy_ns = 0;
  for (const ImportedProcess& p : ps) {
    occupancy_weighted += p.occupancy_weighted_ns;
    occupancy_ns += p.occupancy_ns;
  }
  if (occupancy_ns > 0)
    sink.put_meta(meta_key::kKernelsAchievedOccupancyPct,
                  std::to_string(occupancy_weighted / occupancy_ns));
  if (batch_known && batches.size() == 1)
    sink.put_meta(meta_key::kEngineBatch, std::to_string(*batches.begin()));
  sink.put_meta(meta_key::kAnalysisTrainerTracks, join(trainer, ","));
  return stats;
}

}  // namespace ts::import
