// The tables and sections of the HTML report (html_report.cpp), one function each. Each returns
// a complete <section> (or nothing when the trace has nothing for it).
#pragma once

#include <string>

#include "profiler/analysis/report.hpp"

namespace ts::render {

std::string levers_section(const analysis::Report& report);
std::string breakdown_section(const analysis::Report& report);
std::string idle_section(const analysis::Report& report);
std::string kernels_section(const analysis::Report& report);
std::string stages_section(const analysis::Report& report);
std::string steps_section(const analysis::Report& report);
std::string ranks_section(const analysis::Report& report);

// "<span class="tag high">highly input-bound</span>" for a step's or run's input class.
std::string verdict_tag(analysis::Verdict verdict);

}  // namespace ts::render
