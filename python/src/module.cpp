// trainscope._core: the native part of the Python package. It opens traces, analyses them and
// checks them with the CLI's own code (cli/trace_input.hpp, cli/check_limits.hpp, the analysis
// library), the GIL released while it works; the package (python/trainscope) shapes the results.
// Every error the CLI would print as one line is raised as trainscope.Error with that line.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

#include "cli/args.hpp"
#include "cli/check_limits.hpp"
#include "cli/trace_input.hpp"
#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/import/import.hpp"
#include "profiler/store/error.hpp"
#include "trace_tables.hpp"

namespace ts::python {

namespace {

using StepRange = std::optional<std::pair<std::int64_t, std::int64_t>>;

// The analysis options a Python call may give, checked as the CLI checks its flags.
analysis::AnalysisOptions analysis_options(const StepRange& steps,
                                           const std::optional<int>& skip_warmup,
                                           double gpu_hour_price, double step_input_threshold,
                                           double step_input_high_threshold, bool keep_gaps) {
  analysis::AnalysisOptions o;
  if (steps && steps->first > steps->second)
    throw cli::UsageError("steps=(" + std::to_string(steps->first) + ", " +
                          std::to_string(steps->second) +
                          ") is not a step range: the first step comes after the last");
  o.steps = steps;
  if (skip_warmup) {
    if (*skip_warmup < 0)
      throw cli::UsageError("skip_warmup takes 'auto' or a number of steps, not " +
                            std::to_string(*skip_warmup));
    o.skip_warmup = *skip_warmup;
  }
  if (!(gpu_hour_price >= 0 && std::isfinite(gpu_hour_price)))
    throw cli::UsageError("gpu_hour_price must be 0 or more, not " +
                          std::to_string(gpu_hour_price));
  for (const auto& [name, pct] :
       {std::pair{"step_input_threshold", step_input_threshold},
        std::pair{"step_input_high_threshold", step_input_high_threshold}})
    if (!(pct >= 0 && pct <= 100))
      throw cli::UsageError(std::string(name) + " must be a percentage from 0 to 100, not " +
                            std::to_string(pct));
  o.gpu_hour_price = gpu_hour_price;
  o.step_input_bound_pct = step_input_threshold;
  o.step_input_high_pct = step_input_high_threshold;
  o.keep_gaps = keep_gaps;
  return o;
}

// How another tool's trace is imported: the CLI's --step-marker, --run and --allow-partial.
struct TraceRequest {
  std::string step_marker, run;
  bool allow_partial = false;
  cli::TraceOptions options() const {
    cli::TraceOptions o;
    o.step_marker = step_marker;
    o.tf_run = run;
    o.allow_partial = allow_partial;
    return o;
  }
};

// One analysed trace, as trainscope.Trace holds it.
class Analysis {
 public:
  explicit Analysis(analysis::Report report) : report_(std::move(report)) {}
  std::string json() const { return analysis::to_json(report_); }
  std::string verdict_sentence() const { return analysis::verdict_sentence(report_); }
  std::string text(bool wide) const {
    analysis::TextOptions o;
    o.wide_names = wide;
    return analysis::to_text(report_, o);
  }
  py::tuple steps() const { return step_columns(report_); }
  py::tuple idle_gaps() const { return idle_gap_columns(report_); }

 private:
  analysis::Report report_;
};

std::string resolve(const std::string& path, const TraceRequest& trace) {
  py::gil_scoped_release release;
  // Opening refuses a trace without events, as every trace-reading command does.
  return cli::open_trace(path, trace.options())->path();
}

Analysis analyse(const std::string& path, const TraceRequest& trace, const StepRange& steps,
                 const std::optional<int>& skip_warmup, double gpu_hour_price,
                 double step_input_threshold, double step_input_high_threshold, bool keep_gaps) {
  const analysis::AnalysisOptions options =
      analysis_options(steps, skip_warmup, gpu_hour_price, step_input_threshold,
                       step_input_high_threshold, keep_gaps);
  py::gil_scoped_release release;
  return Analysis(cli::analyse_trace(path, trace.options(), options));
}

std::string diff_json(const std::string& a, const std::string& b, const TraceRequest& trace,
                      const StepRange& steps, const std::optional<int>& skip_warmup,
                      double gpu_hour_price) {
  const analysis::AnalysisOptions options =
      analysis_options(steps, skip_warmup, gpu_hour_price, 5.0, 20.0, false);
  py::gil_scoped_release release;
  const cli::ComparedRuns runs = cli::analyse_pair(a, b, trace.options(), options);
  return analysis::to_json(analysis::diff(runs.a, runs.b, runs.common));
}

py::dict limit_dict(const cli::CheckedLimit& l, const std::string& file) {
  py::dict d;
  d["flag"] = l.flag;
  d["measured"] = l.measured;
  d["value"] = l.value;
  d["limit"] = l.limit;
  d["violated"] = l.violated();
  d["line"] = cli::limit_line(l, file);
  return d;
}

// Every limit measured (violated or not) and the trace's gaps, as check prints them.
py::dict check(const std::string& path, const cli::CheckLimits& limits, const TraceRequest& request,
               const StepRange& steps, const std::optional<int>& skip_warmup) {
  cli::validate(limits);
  for (const auto& [name, v] :
       {std::pair{"max_input_pct", limits.max_input_pct},
        std::pair{"max_device_idle_pct", limits.max_device_idle_pct},
        std::pair{"max_step_time_increase_pct", limits.max_step_time_increase_pct}})
    if (v && !(*v >= 0 && std::isfinite(*v)))
      throw cli::UsageError(std::string(name) + " must be 0 or more, not " + std::to_string(*v));
  const analysis::AnalysisOptions options = analysis_options(
      steps, skip_warmup, analysis::AnalysisOptions{}.gpu_hour_price, 5.0, 20.0, false);
  std::vector<cli::CheckedLimit> measured;
  analysis::Report report;
  {
    py::gil_scoped_release release;
    const cli::TraceOptions trace = request.options();
    report = cli::analyse_trace(path, trace, options);
    std::optional<analysis::Report> base;
    if (limits.baseline) base = cli::analyse_trace(*limits.baseline, trace, options);
    measured = cli::measure_limits(report, limits, base ? &*base : nullptr);
  }
  py::list out;
  for (const cli::CheckedLimit& l : measured) out.append(limit_dict(l, path));
  py::dict result;
  result["limits"] = out;
  result["warnings"] = report.warnings;
  result["verdict"] = std::string(analysis::verdict_name(report.verdict));
  result["verdict_sentence"] = analysis::verdict_sentence(report);
  return result;
}

}  // namespace

}  // namespace ts::python

PYBIND11_MODULE(_core, m) {
  namespace py = pybind11;
  using namespace ts::python;
  m.doc() = "trainscope's C++ import and analysis (use the trainscope package, not this module)";
  m.attr("__version__") = TRAINSCOPE_VERSION;

  // Never destroyed: it would be released after the interpreter has finalised.
  static auto& error = *new py::exception<std::runtime_error>(m, "Error", PyExc_RuntimeError);
  // The errors the CLI prints as one line and exits 2 for (PyErr_SetString: the same with
  // pybind11 2.10, Debian's, and 3.x, pip's).
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const ts::cli::UsageError& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const ts::store::Error& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const ts::import::ImportError& e) {
      PyErr_SetString(error.ptr(), e.what());
    } catch (const std::invalid_argument& e) {
      PyErr_SetString(error.ptr(), e.what());
    }
  });

  py::class_<Analysis>(m, "Analysis")
      .def("json", &Analysis::json)
      .def("verdict_sentence", &Analysis::verdict_sentence)
      .def("text", &Analysis::text, py::arg("wide") = false)
      .def("steps", &Analysis::steps)
      .def("idle_gaps", &Analysis::idle_gaps);
  py::class_<TraceRequest>(m, "TraceRequest")
      .def(py::init([](std::string step_marker, std::string run, bool allow_partial) {
             return TraceRequest{std::move(step_marker), std::move(run), allow_partial};
           }),
           py::arg("step_marker"), py::arg("run"), py::arg("allow_partial"));

  m.def("resolve", &resolve, py::arg("path"), py::arg("trace"));
  m.def("analyse", &analyse, py::arg("path"), py::arg("trace"), py::arg("steps"),
        py::arg("skip_warmup"), py::arg("gpu_hour_price"), py::arg("step_input_threshold"),
        py::arg("step_input_high_threshold"), py::arg("keep_gaps"));
  m.def("diff_json", &diff_json, py::arg("a"), py::arg("b"), py::arg("trace"), py::arg("steps"),
        py::arg("skip_warmup"), py::arg("gpu_hour_price"));
  m.def(
      "check",
      [](const std::string& path, std::optional<double> max_input_pct,
         std::optional<double> max_device_idle_pct, std::optional<std::string> baseline,
         std::optional<double> max_step_time_increase_pct, bool allow_partial,
         const TraceRequest& trace, const StepRange& steps, const std::optional<int>& skip_warmup) {
        ts::cli::CheckLimits limits;
        limits.max_input_pct = max_input_pct;
        limits.max_device_idle_pct = max_device_idle_pct;
        limits.baseline = std::move(baseline);
        limits.max_step_time_increase_pct = max_step_time_increase_pct;
        limits.allow_partial = allow_partial;
        return check(path, limits, trace, steps, skip_warmup);
      },
      py::arg("path"), py::arg("max_input_pct"), py::arg("max_device_idle_pct"),
      py::arg("baseline"), py::arg("max_step_time_increase_pct"), py::arg("allow_partial"),
      py::arg("trace"), py::arg("steps"), py::arg("skip_warmup"));
  m.def(
      "events",
      [](const std::string& path, const std::string& source, std::optional<std::string> category,
         std::optional<std::int64_t> start, std::optional<std::int64_t> end,
         std::optional<std::int64_t> limit) {
        return event_columns(path, source, EventQuery{std::move(category), start, end, limit});
      },
      py::arg("path"), py::arg("source"), py::arg("category"), py::arg("start"), py::arg("end"),
      py::arg("limit"));
}
