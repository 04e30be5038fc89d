// sources -> files (sources.hpp) -> parse (parse_file.hpp) -> map (mapper.hpp): files parsed on
// several threads, mapped in file order (common/parallel_files.hpp).
#include "profiler/import/chrome/chrome_reader.hpp"

#include <algorithm>
#include <memory>

#include "profiler/import/chrome/mapper.hpp"
#include "profiler/import/chrome/parse_file.hpp"
#include "profiler/import/chrome/sources.hpp"
#include "profiler/import/common/parallel_files.hpp"

namespace ts::import {

namespace {

std::vector<InputFile> resolve(std::span<const std::string> sources, const ReadOptions&) {
  std::vector<InputFile> out;
  for (SourceFile& f : expand_sources(sources)) out.push_back({std::move(f.path), f.name_rank, {}});
  return out;
}

ImportedProcess process_of(const InputFile& file, FileSummary&& s) {
  ImportedProcess p;
  p.source = file.path;
  p.label = s.rank ? "rank " + std::to_string(*s.rank) : file.path;
  p.format = std::string(format_name(s.format));
  p.clock = "absolute timestamps as recorded (no alignment)";
  p.steps_source = std::move(s.steps_source);
  p.steps = s.steps;
  p.rank = s.rank;
  p.world_size = s.world_size;
  p.trainer_tracks = std::move(s.trainer_tracks);
  p.devices = std::move(s.device_names);
  p.device_properties = std::move(s.devices);
  p.occupancy_weighted_ns = s.occupancy_weighted_ns;
  p.occupancy_ns = s.occupancy_ns;
  p.backend = std::move(s.backend);
  p.display_time_unit = std::move(s.display_time_unit);
  p.trace_name = std::move(s.trace_name);
  if (!s.parse_error.empty()) p.errors.push_back(file.path + ": " + s.parse_error);
  p.skipped = s.skipped;
  p.events_read = s.events_read;
  p.events_written = s.events_written;
  p.bytes = s.bytes;
  p.first_start = s.first_start;
  return p;
}

ImportedRun read(const std::vector<InputFile>& files, const ReadOptions& options, TraceSink& sink) {
  MapOptions map_options;
  map_options.step_marker = options.step_marker;
  map_options.step_marker_text = options.step_marker_text;
  map_options.threads = options.threads;
  const auto threads = static_cast<std::size_t>(std::max(options.threads, 1));
  // Several files: whole files parsed in parallel (one thread each, which beats cutting each file
  // into parts), while this thread maps them in file order.
  InOrderOptions order;
  order.workers = threads > 1 && files.size() > 1 ? std::min(threads, files.size()) : 0;
  order.window = order.workers + 1;
  const int parse_threads =
      order.workers == 0 ? options.threads
                         : static_cast<int>(std::max<std::size_t>(threads / order.workers, 1));
  std::vector<std::unique_ptr<ParsedFile>> parsed(files.size());
  ImportedRun run;
  bool pytorch = false;
  const auto parse = [&](std::size_t i) {
    parsed[i] = std::make_unique<ParsedFile>(parse_file(
        files[i].path, parse_threads, kMinPartBytes, ElementReading::scan_plain, options.digests));
  };
  const auto map = [&](std::size_t i) {
    FileContext ctx;
    ctx.path = files[i].path;
    ctx.process = static_cast<std::uint32_t>(i + 1);
    ctx.several = files.size() > 1;
    ctx.name_rank = files[i].rank;
    FileSummary summary = map_file(*parsed[i], ctx, map_options, sink);
    parsed[i].reset();
    pytorch = pytorch || summary.format != TraceFormat::chrome;
    run.processes.push_back(process_of(files[i], std::move(summary)));
    if (options.file_done) options.file_done(i);
  };
  produce_and_consume_in_order(files.size(), order, parse, map);
  run.model = pytorch ? "PyTorch trace" : "Chrome trace";
  return run;
}

bool named(std::string_view file_name) {
  return is_trace_file_name(file_name);
}

}  // namespace

TraceReader chrome_reader() {
  return {"chrome", "a JSON trace", "JSON traces", is_chrome_source, named, resolve, read};
}

}  // namespace ts::import
