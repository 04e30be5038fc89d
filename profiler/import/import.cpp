// import_traces(): sources -> files -> parse -> map -> one trace, written under a temporary name.
#include "profiler/import/import.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <optional>
#include <regex>
#include <set>
#include <thread>

#include "profiler/import/mapper.hpp"
#include "profiler/import/parse_file.hpp"
#include "profiler/import/sources.hpp"
#include "profiler/import/trace_sink.hpp"
#include "profiler/import/xplane_import.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/schema.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::import {

namespace {

// Refuses to replace anything but a trainscope trace (or an empty file) at out_path.
void check_output(const std::string& out) {
  struct stat st {};
  if (::stat(out.c_str(), &st) != 0) return;
  if (S_ISDIR(st.st_mode)) throw ImportError("cannot write " + out + ": it is a directory");
  if (st.st_size == 0) return;
  const auto h = store::read_file_header(out);
  if (!h || !h->sqlite || h->application_id != store::kApplicationId)
    throw ImportError(out + " exists and is not a trainscope trace; refusing to replace it");
}

std::string join(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items) {
    if (!out.empty()) out += sep;
    out += s;
  }
  return out;
}

struct Run {
  std::vector<SourceFile> files;
  std::vector<FileSummary> summaries;
  ImportStats stats;
};

void write_meta(TraceSink& sink, Run& run) {
  std::int64_t origin = kNone;
  std::set<std::string> formats;
  std::vector<std::string> devices, sources, steps, trainer, errors;
  std::optional<std::int64_t> world_size;
  std::string display_unit, trace_name, backend;
  SkipCounts skipped;
  bool pytorch = false;
  for (std::size_t i = 0; i < run.summaries.size(); ++i) {
    const FileSummary& s = run.summaries[i];
    if (s.first_start != kNone && (origin == kNone || s.first_start < origin))
      origin = s.first_start;
    formats.insert(std::string(format_name(s.format)));
    pytorch = pytorch || s.format != TraceFormat::chrome;
    for (const std::string& d : s.device_names)
      if (std::find(devices.begin(), devices.end(), d) == devices.end()) devices.push_back(d);
    sources.push_back(run.files[i].path);
    for (const std::uint32_t t : s.trainer_tracks) trainer.push_back(std::to_string(t));
    if (!world_size) world_size = s.world_size;
    if (display_unit.empty()) display_unit = s.display_time_unit;
    if (trace_name.empty()) trace_name = s.trace_name;
    if (backend.empty()) backend = s.backend;
    if (!s.parse_error.empty()) errors.push_back(run.files[i].path + ": " + s.parse_error);
    skipped += s.skipped;
  }
  const auto unranked = std::count_if(run.summaries.begin(), run.summaries.end(),
                                      [](const FileSummary& s) { return !s.rank; });
  if (run.summaries.size() > 1 && unranked > 0)
    run.stats.unranked = std::to_string(unranked) + (unranked == 1 ? " file" : " files") +
                         " without distributedInfo (or a rank in the file name), treated as " +
                         (unranked == 1 ? "a separate process" : "separate processes");
  // One sentence for the trace when every file says the same, else one per process.
  bool same = true;
  for (const FileSummary& s : run.summaries)
    same = same && s.steps_source == run.summaries[0].steps_source;
  if (same) {
    run.stats.steps_source = run.summaries.empty() ? std::string() : run.summaries[0].steps_source;
  } else {
    for (std::size_t i = 0; i < run.summaries.size(); ++i) {
      const FileSummary& s = run.summaries[i];
      steps.push_back((s.rank ? "rank " + std::to_string(*s.rank) : run.files[i].path) + ": " +
                      s.steps_source);
    }
    run.stats.steps_source = join(steps, "; ");
  }
  sink.put_meta(meta_key::kClockOriginNs, std::to_string(origin == kNone ? 0 : origin));
  sink.put_meta(meta_key::kClockAlignment, "absolute timestamps as recorded (no alignment)");
  sink.put_meta(meta_key::kEngineModel, pytorch ? "PyTorch trace" : "Chrome trace");
  sink.put_meta(meta_key::kImportFormat, join({formats.begin(), formats.end()}, ", "));
  sink.put_meta(meta_key::kImportSource, join(sources, "\n"));
  sink.put_meta(meta_key::kImportProcesses, std::to_string(run.summaries.size()));
  sink.put_meta(meta_key::kImportEvents, std::to_string(run.stats.events_written));
  sink.put_meta(meta_key::kImportEventsRead, std::to_string(run.stats.events_read));
  sink.put_meta(meta_key::kImportBytes, std::to_string(run.stats.bytes));
  for (int i = 0; i < kSkipCount; ++i)
    if (skipped.n[i] != 0)
      sink.put_meta("import.skipped." + std::string(skip_name(static_cast<Skip>(i))),
                    std::to_string(skipped.n[i]));
  if (!errors.empty()) sink.put_meta(meta_key::kImportError, join(errors, "\n"));
  sink.put_meta(meta_key::kStepsSource, run.stats.steps_source);
  if (world_size) sink.put_meta(meta_key::kImportWorldSize, std::to_string(*world_size));
  if (!backend.empty()) sink.put_meta(meta_key::kImportDistributedBackend, backend);
  if (!display_unit.empty()) sink.put_meta(meta_key::kImportDisplayTimeUnit, display_unit);
  if (!trace_name.empty()) sink.put_meta(meta_key::kImportTraceName, trace_name);
  if (!devices.empty()) sink.put_meta(meta_key::kEngineDevice, join(devices, ", "));
  sink.put_meta(meta_key::kAnalysisTrainerTracks, join(trainer, ","));
  skipped.add_to(run.stats.skipped);
}

}  // namespace

ImportStats import_traces(std::span<const std::string> sources, const std::string& out_path,
                          const ImportOptions& options) {
  if (sources.empty()) throw ImportError("nothing to import: no trace files given");
  std::optional<std::regex> marker;
  if (!options.step_marker.empty()) {
    try {
      marker.emplace(options.step_marker, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
      throw ImportError("invalid --step-marker regex '" + options.step_marker + "': " + e.what());
    }
  }
  Run run;
  // TensorFlow profiles (files, run or log directories) have their own reader.
  const auto tf_count = std::count_if(sources.begin(), sources.end(), is_tensorflow_source);
  if (tf_count != 0 && tf_count != static_cast<std::ptrdiff_t>(sources.size()))
    throw ImportError(
        "cannot import TensorFlow profiles and JSON traces into one trace: import them "
        "separately");
  std::vector<XPlaneSource> tf_files;
  if (tf_count != 0) {
    tf_files = resolve_xplane_sources(sources, options.tf_run);
    for (const XPlaneSource& f : tf_files) run.files.push_back({f.path, std::nullopt});
  } else {
    run.files = expand_sources(sources);
  }
  check_output(out_path);
  const int threads = options.threads > 0
                          ? options.threads
                          : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  MapOptions map_options;
  map_options.step_marker = marker ? &*marker : nullptr;
  map_options.step_marker_text = options.step_marker;
  map_options.threads = threads;

  std::uint64_t input_bytes = 0;
  for (const SourceFile& f : run.files) {
    struct stat st {};
    if (::stat(f.path.c_str(), &st) == 0) input_bytes += static_cast<std::uint64_t>(st.st_size);
  }
  const std::string partial = out_path + ".partial";
  try {
    TraceSink sink(partial, input_bytes);
    if (!tf_files.empty()) {
      const std::regex* tf_marker = marker ? &*marker : nullptr;
      run.stats = import_xplane_files(tf_files, tf_marker, options.step_marker, sink);
    }
    for (std::size_t i = 0; i < run.files.size() && tf_files.empty(); ++i) {
      FileContext ctx;
      ctx.path = run.files[i].path;
      ctx.process = static_cast<std::uint32_t>(i + 1);
      ctx.several = run.files.size() > 1;
      ctx.name_rank = run.files[i].name_rank;
      FileSummary summary;
      {
        ParsedFile parsed = parse_file(ctx.path, threads);
        summary = map_file(parsed, ctx, map_options, sink);
      }
      run.stats.bytes += summary.bytes;
      run.stats.events_read += summary.events_read;
      run.stats.events_written += summary.events_written;
      run.summaries.push_back(std::move(summary));
    }
    if (tf_files.empty()) {
      run.stats.processes = static_cast<int>(run.summaries.size());
      write_meta(sink, run);
    }
    sink.finish();
    // Never silent: events the store could not key are reported as skipped (and the trace's
    // meta event.out_of_key_range makes every report of it warn).
    if (const std::uint64_t far = sink.events_out_of_key_range(); far > 0) {
      run.stats.skipped[std::string(skip_name(Skip::out_of_key_range))] += far;
      run.stats.events_written -= std::min(far, run.stats.events_written);
    }
  } catch (const store::Error& e) {
    store::discard_trace_files(partial);
    throw ImportError(e.what());
  } catch (...) {
    store::discard_trace_files(partial);
    throw;
  }
  // A log or hot journal left by an earlier trace at out_path must not be replayed into the new
  // one.
  for (const char* suffix : store::kCompanionSuffixes) ::unlink((out_path + suffix).c_str());
  if (std::rename(partial.c_str(), out_path.c_str()) != 0) {
    const int e = errno;
    store::discard_trace_files(partial);
    throw ImportError("cannot write " + out_path + ": " + std::strerror(e));
  }
  return run.stats;
}

}  // namespace ts::import
