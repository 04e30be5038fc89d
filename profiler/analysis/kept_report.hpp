// Keeping the analysis in the trace. Analysing a large trace means reading every event (10 s
// for 100 M events); a finished trace's events never change, so what `report`, `check`, `diff`
// and the viewer computed once is kept in the trace (the store's `analysis` table, in the form
// of report_codec.hpp) and read back the next time, in a fraction of a second.
//
// A kept report is used only when it is certain to equal what analyse() would return now:
//   - it was made by this build (analysis_build_id(): the version and a hash of the analysis and
//     store sources), with the same options (every AnalysisOptions field that changes a figure);
//   - the trace is finished and unchanged since (storing the overview again, which anything
//     changing the events does, drops it; a running or killed capture keeps none);
//   - its seal (store/analysis_table.hpp) holds: the checksum of the trace's stored events and
//     tables now (store/events_checksum.hpp, read from the file's pages: about 0.1 s a GB on
//     2 threads) is the one taken when it was kept, so no edit made outside trainscope (sqlite3
//     UPDATE or DELETE of events) has happened since, and the kept bytes are the ones sealed
//     with it, not another trace's copied in under this key. One that fails is not used: the
//     trace is analysed afresh, and the new report replaces it where the file can be written;
//   - the caller needs no idle gap listed (a kept report holds only their number), or there was
//     none.
// It is kept only for traces of at least kKeepFromEvents events (smaller ones analyse in well
// under a second), in trace files the user can write; a trace that cannot be written is
// analysed each time. A trace keeps the reports of its 4 latest option sets.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::analysis {

inline constexpr std::int64_t kKeepFromEvents = 1'000'000;

// This build's id (generated at build time by hash_sources.cmake).
std::string_view analysis_build_id();

// The build id, then the options: the start of the key a report made with `options` is kept
// under (the keys of the trace's first and last events follow it, so that events added or
// removed at either end outside trainscope miss a kept report too).
std::string kept_report_key(const AnalysisOptions& options);

// The report the trace keeps for `options`, when one fits (above); nullopt otherwise, also when
// the kept one does not decode or the file cannot be read.
std::optional<Report> kept_report(const store::Reader& reader, const AnalysisOptions& options);

// Whether the trace keeps a report for `options` (not yet checked against its events): a caller
// that could use one without the idle gaps (the viewer loads them per view) asks before choosing.
bool keeps_report(const store::Reader& reader, const AnalysisOptions& options);

// Keeps `report`, made with `options` from the trace `reader` reads, in its file; false when it
// cannot (above).
bool keep_report(const store::Reader& reader, const Report& report, const AnalysisOptions& options);

// Where a report came from, for the line `report` and `check` print about it.
struct KeptUse {
  enum class Outcome {
    none,     // nothing was kept for these options: analysed
    reused,   // the kept report, its seal checked
    dropped,  // one was kept and failed its check (`why`): analysed afresh
  };
  Outcome outcome = Outcome::none;
  std::string why;                  // dropped: "the events changed since it was kept", ...
  std::uint64_t checked_bytes = 0;  // the pages the check hashed
  double check_seconds = 0;
  // Reused under KeptCheck::later: the events checksum the report was sealed with, which
  // events_unchanged() must confirm before the report is trusted.
  std::optional<std::uint64_t> check_later;
  // "analysis kept in the trace, events unchanged (3.6 GB checked in 0.21 s)" or "analysed
  // afresh: <why>"; empty for none.
  std::string line() const;
};

// The kept report, else analyse(), keeping its report when the trace holds at least
// `keep_from_events` events. Throws what analyse() throws. `use`, when given, says which.
Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        std::int64_t keep_from_events = kKeepFromEvents, KeptUse* use = nullptr);

// Where a caller that keeps the per-step figures in a form of its own (the viewer packs them)
// takes them, a part at a time and in step order, instead of in the report's list: a kept
// report's 2 M steps then never stand in memory as StepSummary (460 MB).
class StepSink {
 public:
  virtual ~StepSink() = default;
  virtual void take(std::vector<StepSummary>& steps) = 0;  // may move from them
  // Before a kept report's part of steps is taken: where it is kept (store::KeptParts reads it
  // again by `key` and `part`) and its bytes (a run of report_codec.hpp), for a caller that
  // would rather read them from the file again than hold them.
  virtual void kept_part(std::string_view key, std::size_t part, std::string_view bytes) {
    (void)key, (void)part, (void)bytes;
  }
  // Everything taken so far is void (a kept report that failed to decode half-way): the steps
  // come again from the first.
  virtual void discard() = 0;
};

// Hands `steps` to `sink` in parts of kStepsPerPart (report_codec.hpp), as a kept report's are,
// and empties them.
void hand_over(StepTable& steps, StepSink& sink);

// When a kept report's events are checked: before it is used (report, check), after it is
// shown (the viewer: the check reads every page of the trace, seconds for a cold 3.6 GB file,
// and the first look needs none of them), or not at all because it failed (analysed afresh).
enum class KeptCheck { now, later, afresh };

// The viewer's: analyse_or_reuse() checking a kept report's events `check`; under
// KeptCheck::later, use.check_later holds what events_unchanged() must confirm.
Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        StepSink& steps, KeptCheck check, KeptUse& use);

// Whether the stored pages of the trace at `path` still give the events checksum `sealed` (a
// kept report reused under KeptCheck::later). `use` gets the check's bytes and time.
bool events_unchanged(const std::string& path, std::uint64_t sealed, KeptUse* use = nullptr);

// analyse_or_reuse(), handing the per-step figures to `steps`: the report's list is empty.
Report analyse_or_reuse(const store::Reader& reader, const AnalysisOptions& options,
                        StepSink& steps, std::int64_t keep_from_events = kKeepFromEvents,
                        KeptUse* use = nullptr);

}  // namespace ts::analysis
