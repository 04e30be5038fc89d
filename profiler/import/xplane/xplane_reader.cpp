// sources -> profile files (xplane_sources.hpp) -> XSpace (xplane_file.hpp) -> map
// (xplane_mapper.hpp), host by host in file order (common/parallel_files.hpp: the next file is
// read ahead on a worker thread).
#include "profiler/import/xplane/xplane_reader.hpp"

#include <filesystem>
#include <memory>
#include <set>

#include "profiler/import/common/parallel_files.hpp"
#include "profiler/import/common/text_clean.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import/xplane/xplane_file.hpp"
#include "profiler/import/xplane/xplane_mapper.hpp"
#include "profiler/import/xplane/xplane_sources.hpp"

namespace ts::import {

namespace {

constexpr const char* kAligned =
    "absolute: each line's timestamp_ns is relative to the profile start, and the host's "
    "Task Environment profile_start_time (ns since the epoch) is added, so hosts align by "
    "their clocks";
constexpr const char* kAsRecorded =
    "as recorded: line timestamp_ns + offset_ps / 1000, no Task Environment "
    "profile_start_time to align hosts with";

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

std::vector<InputFile> resolve(std::span<const std::string> sources, const ReadOptions& options) {
  std::vector<InputFile> out;
  for (XPlaneSource& f : resolve_xplane_sources(sources, options.run))
    out.push_back({std::move(f.path), std::nullopt, std::move(f.run)});
  return out;
}

ImportedProcess process_of(const InputFile& input, const XSpaceFile& file,
                           const XPlaneFileContext& ctx, XPlaneSummary&& s) {
  ImportedProcess p;
  p.source = input.path;
  p.label = ctx.host;
  p.format = "xplane";
  p.host = ctx.host;
  p.run = input.run;
  p.clock = s.aligned ? kAligned : kAsRecorded;
  p.steps_source = std::move(s.steps_source);
  p.steps = s.steps;
  p.rank = ctx.rank;
  p.batch = s.batch;
  p.trainer_tracks = std::move(s.trainer_tracks);
  p.devices = std::move(s.devices);
  for (const std::string& e : file.errors()) p.profiler_errors.push_back(ctx.host + ": " + e);
  for (const std::string& w : file.warnings()) p.profiler_warnings.push_back(ctx.host + ": " + w);
  p.skipped = s.skipped;
  p.events_read = s.events_read;
  p.events_written = s.events_written;
  p.bytes = file.bytes();
  p.first_start = s.first_start;
  return p;
}

ImportedRun read(const std::vector<InputFile>& files, const ReadOptions& options, TraceSink& sink) {
  ImportedRun run;
  run.model = "TensorFlow profile";
  std::set<std::string> taken;
  // Several hosts: the next file is read (inflated, when gzip) and scanned on a worker thread
  // while this one maps the current one; its planes are parsed as they are mapped, here, so one
  // file read ahead keeps up (and at most two files are held).
  InOrderOptions order;
  order.workers = options.threads > 1 && files.size() > 1 ? 1 : 0;
  order.window = 2;
  std::vector<std::unique_ptr<XSpaceFile>> loaded(files.size());
  const auto load = [&](std::size_t i) { loaded[i] = std::make_unique<XSpaceFile>(files[i].path); };
  const auto map = [&](std::size_t i) {
    const XSpaceFile& file = *loaded[i];
    XPlaneFileContext ctx;
    ctx.process = static_cast<std::uint32_t>(i + 1);
    if (files.size() > 1) ctx.rank = static_cast<std::int64_t>(i);
    ctx.host = host_name(file, taken);
    ctx.step_marker = options.step_marker;
    ctx.step_marker_text = options.step_marker_text;
    taken.insert(ctx.host);
    XPlaneSummary summary = map_xplane_file(file, ctx, sink);
    if (summary.events_read == 0)
      throw ImportError(files[i].path + " holds no profile events (an XSpace whose planes " +
                        "have no events)");
    run.processes.push_back(process_of(files[i], file, ctx, std::move(summary)));
    loaded[i].reset();
    if (options.file_done) options.file_done(i);
  };
  produce_and_consume_in_order(files.size(), order, load, map);
  return run;
}

bool named(std::string_view file_name) {
  return is_xplane_file_name(file_name);
}

}  // namespace

TraceReader xplane_reader() {
  return {
      "xplane", "a TensorFlow profile", "TensorFlow profiles", is_tensorflow_source, named, resolve,
      read};
}

}  // namespace ts::import
