// The report files `report`, `check` and `diff` write beside their terminal output: --html FILE
// (replaced whole, never left half-written: io::write_output) and --markdown FILE|- (appended to
// when FILE already exists, as a CI job's $GITHUB_STEP_SUMMARY is; "-" for standard output).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cli/args.hpp"

namespace ts::cli {

// The value of --html or --markdown ("--name FILE"), or nullopt when absent. UsageError for an
// empty name, and for "-" where `allow_stdout` is false.
std::optional<std::string> output_flag(Args& args, const std::string& name, bool allow_stdout);
// UsageError when the output of --`name` is one of `inputs` (the traces read): it would
// overwrite it.
void refuse_overwrite(const std::optional<std::string>& output, const std::string& name,
                      const std::vector<std::string>& inputs);

// --html: writes `html` to `path` (io::write_output).
void write_html(const std::string& path, const std::string& html);

// --markdown: `markdown` to standard output for "-", appended to an existing regular file (after
// a blank line when it is not empty), else written as a new file. json::WriteError names the
// file when a write fails.
void write_markdown(const std::string& path, const std::string& markdown);

}  // namespace ts::cli
