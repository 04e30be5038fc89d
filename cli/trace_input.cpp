#include "cli/trace_input.hpp"

#include <charconv>
#include <iostream>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/import/common/text_clean.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import/progress.hpp"
#include "profiler/import_cache/trace_source.hpp"
#include "trainscope/meta_keys.hpp"

namespace ts::cli {

const char* const kTraceOptionsHelp =
    R"(FILE may also be a PyTorch profiler trace (.json, .json.gz), a directory of per-rank
traces, or a TensorFlow profile (a run directory, a log directory or an .xplane.pb file): it is
imported on first use into FILE.trainscope.db beside it (or the per-user cache directory) and
the import is reused while FILE is unchanged.
  --step-marker REGEX          an imported trace without ProfilerStep#N markers: the top-level
                               annotation that marks one training step
  --run NAME                   a TensorBoard log directory: the profile run to read
                               (plugins/profile/NAME; default: the latest)
  --allow-partial              analyse an imported trace even when more than 1 % of its
                               events could not be imported (invalid or damaged events)
)";

const char* const kStepScopeHelp =
    R"(  --steps A-B                  analyse steps A to B only (step numbers, inclusive); a range
                               the trace does not hold is an error, one it holds in part
                               is analysed where it does (stderr says which steps)
  --skip-warmup auto|N         leave the warm-up out of the figures: auto (default) leaves
                               out the cache-filling first epoch of a run of several epochs
                               with an input cache, else the first step of a run of more than
                               5 steps; N the first N steps (0: analyse every step)
)";

void read_step_scope(Args& args, analysis::AnalysisOptions& options) {
  if (const auto steps = args.step_range("steps")) options.steps = *steps;
  if (const auto skip = args.value("skip-warmup"); skip && *skip != "auto") {
    int n = 0;
    const auto [ptr, ec] = std::from_chars(skip->data(), skip->data() + skip->size(), n);
    if (ec != std::errc() || ptr != skip->data() + skip->size() || n < 0)
      throw UsageError("--skip-warmup takes auto or a number of steps, not '" + *skip + "'");
    options.skip_warmup = n;
  }
}

TraceOptions trace_options(Args& args) {
  TraceOptions o;
  o.step_marker = args.text("step-marker", "");
  o.tf_run = args.text("run", "");
  o.allow_partial = args.flag("allow-partial");
  return o;
}

std::vector<std::string> trace_arguments(Args& args, std::size_t count, const std::string& what) {
  std::vector<std::string> files = args.positionals();
  args.finish();
  if (files.size() != count)
    throw UsageError("'trainscope " + args.command() + "' needs " + what + ", not " +
                     std::to_string(files.size()) + " (see 'trainscope " + args.command() +
                     " --help')");
  return files;
}

std::string resolve_trace(const std::string& path, const TraceOptions& options) {
  import::OpenOptions o;
  o.import.step_marker = options.step_marker;
  o.import.tf_run = options.tf_run;
  import::ProgressPrinter progress(
      std::cerr, options.progress ? import::stderr_progress_style() : import::ProgressStyle::off);
  o.import.progress = [&](const import::ImportProgress& p) { progress.update(p); };
  const import::OpenedTrace t = import::open_trace_source(path, o);
  if (t.imported) {
    std::cerr << "trainscope: imported " << path << " into " << t.path << " ("
              << analysis::fmt::count(static_cast<std::int64_t>(t.stats.events_written))
              << " events";
    std::uint64_t skipped = 0;
    for (const auto& [reason, n] : t.stats.skipped) skipped += n;
    if (skipped > 0)
      std::cerr << ", " << analysis::fmt::count(static_cast<std::int64_t>(skipped)) << " skipped";
    if (t.temporary)
      std::cerr << "), a temporary file: neither the folder of " << path
                << " nor the cache directory can keep it, so it is imported again next time\n";
    else
      std::cerr << "); it is reused while " << path << " is unchanged\n";
    if (t.replaced) {
      using Why = import::OpenedTrace::Why;
      std::cerr << "trainscope: the trace that was there ";
      if (t.why_replaced == Why::other_revision)
        std::cerr << "was imported by a trainscope whose import differs from this one's";
      else if (t.why_replaced == Why::other_options)
        std::cerr << "was imported with other options (--step-marker, --run)";
      else
        std::cerr << "was not imported from " << path
                  << " as it is now (its content changed, or the file was put there)";
      std::cerr << ", and was replaced\n";
    }
  }
  return t.path;
}

namespace {

// Why a capture holds less than it should when it stopped writing after an error (a full disk),
// else `otherwise`.
std::string write_error_or(const store::Reader& reader, const std::string& otherwise) {
  if (const auto error = reader.meta(meta_key::kCaptureWriteError))
    return "the capture stopped writing after an error (" + import::display_cut(*error) + ")";
  return otherwise;
}

// What an imported trace's meta says of its import: events read and skipped by reason (the
// store's out_of_key_range included). events_read stays 0 for a trace that is no import.
ts::import::ImportStats import_figures(const store::Reader& reader) {
  import::ImportStats s;
  const auto number = [](const std::string& text) {
    std::uint64_t n = 0;
    std::from_chars(text.data(), text.data() + text.size(), n);
    return n;
  };
  constexpr std::string_view kSkipped = "import.skipped.";
  for (const auto& [key, value] : reader.meta()) {
    if (key == meta_key::kImportEventsRead)
      s.events_read = number(value);
    else if (key.starts_with(kSkipped))
      s.skipped[key.substr(kSkipped.size())] += number(value);
    else if (key == meta_key::kEventsOutOfKeyRange)
      s.skipped["out_of_key_range"] += number(value);
  }
  return s;
}

}  // namespace

std::unique_ptr<store::Reader> open_trace(const std::string& path, const TraceOptions& options) {
  const std::string resolved = resolve_trace(path, options);
  auto reader = std::make_unique<store::Reader>(resolved);
  const bool imported_here = resolved != path;
  const import::ImportStats imported = import_figures(*reader);
  if (!reader->has_events())
    throw store::Error(imported.events_read > 0
                           ? import::nothing_imported_error(path, imported)
                           : path + " holds no events (" +
                                 write_error_or(*reader, "the capture recorded nothing") + ")");
  if (imported_here && !options.allow_partial)
    if (const std::string error = import::lost_share_error(path, imported); !error.empty())
      throw import::ImportError(error);
  return reader;
}

analysis::Report analyse_trace(const std::string& path, const TraceOptions& trace,
                               const analysis::AnalysisOptions& options) {
  const auto reader = open_trace(path, trace);
  // A trace without step structure is analysed as one whole-window step (whole_window_step());
  // one whose --step-marker matched nothing is refused: the user asked for those steps.
  if (reader->step_count() == 0 &&
      (!trace.step_marker.empty() || !analysis::whole_window_step(*reader))) {
    const std::string how = reader->meta(meta_key::kStepsSource).value_or("");
    const std::string why = write_error_or(*reader, how);
    throw store::Error(path + " holds no complete training step, so there is nothing to analyse" +
                       (why.empty() ? std::string() : " (" + why + ")"));
  }
  if (options.steps) {
    const analysis::StepRangeFit fit = analysis::fit_step_range(*reader, *options.steps);
    if (const std::string error = analysis::step_range_error(fit, path); !error.empty())
      throw UsageError(error);
    if (const std::string note = analysis::step_range_note(fit, path); !note.empty())
      std::cerr << "trainscope: " + note + "\n";
  }
  // Where the figures came from, when the trace kept an analysis: reused once its seal held, or
  // analysed afresh and why (kept_report.hpp).
  analysis::KeptUse use;
  analysis::Report report =
      analysis::analyse_or_reuse(*reader, options, analysis::kKeepFromEvents, &use);
  if (const std::string line = use.line(); !line.empty())
    std::cerr << "trainscope: " << path << ": " << line << "\n";
  return report;
}

ComparedRuns analyse_pair(const std::string& path_a, const std::string& path_b,
                          const TraceOptions& trace, const analysis::AnalysisOptions& options) {
  ComparedRuns runs{analyse_trace(path_a, trace, options), analyse_trace(path_b, trace, options),
                    std::nullopt};
  runs.common = analysis::common_warmup(runs.a, runs.b, options);
  if (runs.common) {
    analysis::AnalysisOptions aligned = options;
    aligned.skip_warmup = runs.common->steps;
    if (analysis::takes_common_warmup(runs.a, *runs.common))
      runs.a = analyse_trace(path_a, trace, aligned);
    if (analysis::takes_common_warmup(runs.b, *runs.common))
      runs.b = analyse_trace(path_b, trace, aligned);
  }
  return runs;
}

}  // namespace ts::cli
