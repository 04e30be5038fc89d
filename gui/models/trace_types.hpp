// The value types of the layers below that widgets may name, re-exported into ts::gui. A widget
// shows what the models hand it (a report, a step, an event, a diff) and passes options through,
// so it names these plain types; it never names store::, analysis:: or import:: itself, and never
// calls their functions: opening, importing, reading and analysing a trace are gui/models' work
// (trace_opener.hpp, trace_comparison.hpp, trace_session.hpp). tests/layering checks it.
#pragma once

#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/import_cache/trace_source.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

// The analysis' report and what a widget reads of it.
using Report = analysis::Report;
using AnalysisOptions = analysis::AnalysisOptions;
using Verdict = analysis::Verdict;
using Part = analysis::Part;
inline constexpr int kPartCount = analysis::kPartCount;
using IdleCause = analysis::IdleCause;
using KernelStat = analysis::KernelStat;
using PipelineStats = analysis::PipelineStats;
// Two runs compared (trace_comparison.hpp).
using RunDiff = analysis::RunDiff;

// How another tool's trace is imported (--step-marker, --run).
using ImportOptions = import::ImportOptions;

// Rows of the trace as the reader returns them.
using Step = store::Step;
using Event = store::Event;
using Label = store::Label;

}  // namespace ts::gui
