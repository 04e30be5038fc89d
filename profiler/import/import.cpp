// import_traces(): sources -> the one reader that takes them all (registry.hpp) -> its files ->
// read into one trace, written under a temporary name -> meta rows (common/meta_writer.hpp).
#include "profiler/import/import.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <optional>
#include <regex>
#include <thread>

#include "profiler/import/common/freed_memory.hpp"
#include "profiler/import/common/meta_writer.hpp"
#include "profiler/import/common/trace_sink.hpp"
#include "profiler/import/registry.hpp"
#include "profiler/store/error.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/schema.hpp"

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

// The reader of every source: one format per trace. Two formats are named in table order.
const TraceReader& reader_of(std::span<const std::string> sources) {
  const TraceReader* reader = nullptr;
  for (const std::string& src : sources) {
    const TraceReader* r = &reader_for(src);
    if (reader && reader != r) {
      const bool in_order = reader < r;  // rows of one array
      throw ImportError("cannot import " + std::string((in_order ? reader : r)->many) + " and " +
                        std::string((in_order ? r : reader)->many) +
                        " into one trace: import them separately");
    }
    reader = r;
  }
  return *reader;
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
  ReadOptions read_options;
  read_options.step_marker = marker ? &*marker : nullptr;
  read_options.step_marker_text = options.step_marker;
  read_options.threads = options.threads > 0
                             ? options.threads
                             : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
  read_options.run = options.tf_run;
  read_options.digests = options.digests;

  const auto start = std::chrono::steady_clock::now();
  const TraceReader& reader = reader_of(sources);
  const std::vector<InputFile> files = reader.resolve(sources, read_options);
  check_output(out_path);
  std::vector<std::uint64_t> file_bytes(files.size(), 0);
  for (std::size_t i = 0; i < files.size(); ++i) {
    struct stat st {};
    if (::stat(files[i].path.c_str(), &st) == 0)
      file_bytes[i] = static_cast<std::uint64_t>(st.st_size);
  }
  ImportProgress progress;
  progress.files = files.size();
  for (const std::uint64_t b : file_bytes) progress.bytes += b;
  const std::uint64_t input_bytes = progress.bytes;
  const auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  if (options.progress) {
    options.progress(progress);
    read_options.file_done = [&](std::size_t i) {
      progress.bytes_done += file_bytes[i];
      // The last file is reported once the trace is finished (its overview takes a while).
      if (++progress.files_done == progress.files) return;
      progress.seconds = seconds();
      options.progress(progress);
    };
  }
  const std::string partial = out_path + ".partial";
  ImportStats stats;
  const KeepFreedMemory keep_freed_memory(input_bytes);
  try {
    TraceSink sink(partial, input_bytes, files.size());
    if (options.progress)
      sink.on_writing([&](std::uint64_t written, std::uint64_t events) {
        progress.seconds = seconds();
        if (progress.events == 0) progress.writing_since = progress.seconds;
        progress.events_written = written;
        progress.events = events;
        options.progress(progress);
      });
    stats = write_import_meta(reader.read(files, read_options, sink), sink);
    sink.finish();
    if (options.progress && progress.files_done == progress.files) {
      progress.seconds = seconds();
      progress.finished = true;
      options.progress(progress);
    }
    // Never silent: events the store could not key are reported as skipped (and the trace's
    // meta event.out_of_key_range makes every report of it warn).
    if (const std::uint64_t far = sink.events_out_of_key_range(); far > 0) {
      stats.skipped[std::string(skip_name(Skip::out_of_key_range))] += far;
      stats.events_written -= std::min(far, stats.events_written);
    }
  } catch (const store::Error& e) {
    store::discard_trace_files(partial);
    throw ImportError(e.what());
  } catch (...) {
    store::discard_trace_files(partial);
    throw;
  }
  // Nothing lost without a word: an import that kept nothing, or lost too much, writes nothing.
  const std::string what =
      sources.size() == 1 ? sources[0] : "the " + std::to_string(sources.size()) + " sources";
  std::string error;
  if (stats.events_written == 0)
    error = nothing_imported_error(what, stats);
  else if (!options.allow_partial)
    error = lost_share_error(what, stats);
  if (!error.empty()) {
    store::discard_trace_files(partial);
    throw ImportError(error);
  }
  // A log or hot journal left by an earlier trace at out_path must not be replayed into the new
  // one.
  for (const char* suffix : store::kCompanionSuffixes) ::unlink((out_path + suffix).c_str());
  if (std::rename(partial.c_str(), out_path.c_str()) != 0) {
    const int e = errno;
    store::discard_trace_files(partial);
    throw ImportError("cannot write " + out_path + ": " + std::strerror(e));
  }
  return stats;  // keep_freed_memory hands back what the import freed
}

}  // namespace ts::import
