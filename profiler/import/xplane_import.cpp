#include "profiler/import/xplane_import.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include "profiler/import/text_clean.hpp"
#include "profiler/import/xplane_file.hpp"
#include "profiler/import/xplane_mapper.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::import {

namespace {

constexpr const char* kAligned =
    "absolute: each line's timestamp_ns is relative to the profile start, and the host's "
    "Task Environment profile_start_time (ns since the epoch) is added, so hosts align by "
    "their clocks";
constexpr const char* kAsRecorded =
    "as recorded: line timestamp_ns + offset_ps / 1000, no Task Environment "
    "profile_start_time to align hosts with";

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

// The process's name: the host the XSpace names, else the file's; made unique.
std::string host_name(const XSpaceFile& file, const std::set<std::string>& taken) {
  const std::string file_name = std::filesystem::path(file.path()).filename().string();
  std::string host;
  for (const std::string& h : file.hostnames())
    if (!h.empty()) {
      host = clean_text(cut_at_boundary(h, 256));
      break;
    }
  if (host.empty()) host = host_from_file_name(file_name);
  if (host.empty()) host = file_name;
  if (taken.count(host) != 0) host += " (" + file_name + ")";
  return host;
}

}  // namespace

ImportStats import_xplane_files(const std::vector<XPlaneSource>& files,
                                const std::regex* step_marker, const std::string& step_marker_text,
                                TraceSink& sink) {
  ImportStats stats;
  std::vector<XPlaneSummary> sums;
  std::vector<std::string> hosts, paths, runs, errors, warnings;
  std::set<std::string> taken;
  std::uint64_t bytes = 0;
  for (std::size_t i = 0; i < files.size(); ++i) {
    const XSpaceFile file(files[i].path);
    XPlaneFileContext ctx;
    ctx.process = static_cast<std::uint32_t>(i + 1);
    if (files.size() > 1) ctx.rank = static_cast<std::int64_t>(i);
    ctx.host = host_name(file, taken);
    ctx.step_marker = step_marker;
    ctx.step_marker_text = step_marker_text;
    taken.insert(ctx.host);
    sums.push_back(map_xplane_file(file, ctx, sink));
    if (sums.back().events_read == 0)
      throw ImportError(files[i].path + " holds no profile events (an XSpace whose planes " +
                        "have no events)");
    hosts.push_back(ctx.host);
    paths.push_back(files[i].path);
    if (!files[i].run.empty() && std::find(runs.begin(), runs.end(), files[i].run) == runs.end())
      runs.push_back(files[i].run);
    for (const std::string& e : file.errors()) errors.push_back(ctx.host + ": " + e);
    for (const std::string& w : file.warnings()) warnings.push_back(ctx.host + ": " + w);
    bytes += file.bytes();
  }

  std::int64_t origin = kNone;
  SkipCounts skipped;
  std::vector<std::string> trainer, devices, steps, clocks;
  bool same_steps = true, all_aligned = true, none_aligned = true;
  std::set<std::int64_t> batches;
  bool batch_known = true;
  for (std::size_t i = 0; i < sums.size(); ++i) {
    const XPlaneSummary& s = sums[i];
    if (s.first_start != kNone && (origin == kNone || s.first_start < origin))
      origin = s.first_start;
    skipped += s.skipped;
    stats.events_read += s.events_read;
    stats.events_written += s.events_written;
    for (const std::uint32_t t : s.trainer_tracks) trainer.push_back(std::to_string(t));
    for (const std::string& d : s.devices)
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    same_steps = same_steps && s.steps_source == sums[0].steps_source;
    steps.push_back(hosts[i] + ": " + s.steps_source);
    clocks.push_back(hosts[i] + " " + (s.aligned ? kAligned : kAsRecorded));
    all_aligned = all_aligned && s.aligned;
    if (s.batch)
      batches.insert(*s.batch);
    else
      batch_known = batch_known && s.steps == 0;
    none_aligned = none_aligned && !s.aligned;
  }
  stats.bytes = bytes;
  stats.processes = static_cast<int>(sums.size());
  stats.steps_source = same_steps && !sums.empty() ? sums[0].steps_source : join(steps, "; ");
  skipped.add_to(stats.skipped);

  sink.put_meta(meta_key::kImportFormat, "xplane");
  sink.put_meta(meta_key::kEngineModel, "TensorFlow profile");
  sink.put_meta(meta_key::kImportSource, join(paths, "\n"));
  sink.put_meta(meta_key::kImportHosts, join(hosts, ", "));
  if (!runs.empty()) sink.put_meta(meta_key::kImportRun, join(runs, ", "));
  sink.put_meta(meta_key::kImportProcesses, std::to_string(stats.processes));
  sink.put_meta(meta_key::kImportEvents, std::to_string(stats.events_written));
  sink.put_meta(meta_key::kImportEventsRead, std::to_string(stats.events_read));
  sink.put_meta(meta_key::kImportBytes, std::to_string(stats.bytes));
  for (int i = 0; i < kSkipCount; ++i)
    if (skipped.n[i] != 0)
      sink.put_meta("import.skipped." + std::string(skip_name(static_cast<Skip>(i))),
                    std::to_string(skipped.n[i]));
  if (!errors.empty()) sink.put_meta(meta_key::kImportProfilerErrors, join(errors, "\n"));
  if (!warnings.empty()) sink.put_meta(meta_key::kImportProfilerWarnings, join(warnings, "\n"));
  sink.put_meta(meta_key::kStepsSource, stats.steps_source);
  sink.put_meta(meta_key::kClockOriginNs, std::to_string(origin == kNone ? 0 : origin));
  sink.put_meta(meta_key::kClockAlignment, all_aligned    ? kAligned
                                           : none_aligned ? kAsRecorded
                                                          : join(clocks, "; "));
  if (!devices.empty()) sink.put_meta(meta_key::kEngineDevice, join(devices, ", "));
  if (batch_known && batches.size() == 1)
    sink.put_meta(meta_key::kEngineBatch, std::to_string(*batches.begin()));
  sink.put_meta(meta_key::kAnalysisTrainerTracks, join(trainer, ","));
  return stats;
}

}  // namespace ts::import
