// trainscope merge: merge the per-rank parts of a data-parallel job's trace into one trace.
#include <chrono>
#include <cstdio>
#include <iostream>
#include <optional>

#include "cli/commands.hpp"
#include "cli/keep_analysis.hpp"
#include "profiler/io/output_file.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/job_merge.hpp"

namespace ts::cli {

const char* const kMergeHelp = R"(usage: trainscope merge TRACE [--remove-parts]
       trainscope merge PART... -o OUT [--remove-parts]

Under mpirun, 'trainscope train --trace TRACE' has every rank capture into its own part,
TRACE.rank<r>.part, and rank 0 merges them into TRACE when training ends. When the job ended
early (a rank was killed or failed and mpirun ended the others), the parts stay: this command
merges the parts that exist into one trace, one process per rank, and records in its meta which
ranks are missing (dist.missing_ranks: no part, or a part whose capture was killed and ends
early). A killed capture's part has its staged events indexed in place first (as 'trainscope
recover' does). The parts are kept unless --remove-parts.

  TRACE            merge TRACE.rank*.part into TRACE
  PART... -o OUT   merge these parts into OUT (-o or --output)
  --remove-parts   delete the parts once merged
)";

int run_merge(Args& args) {
  std::optional<std::string> out = args.value("output");
  const bool remove = args.flag("remove-parts");
  std::vector<std::string> words = args.positionals(), parts;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (words[i] != "-o") {
      parts.push_back(words[i]);
      continue;
    }
    if (i + 1 == words.size()) throw UsageError("-o needs a value: the trace file to write");
    if (out) throw UsageError("give the output once (-o or --output)");
    out = words[++i];
  }
  args.finish();
  if (!out) {
    if (parts.size() != 1)
      throw UsageError("'trainscope merge' needs a job's TRACE, or its parts and -o OUT");
    out = parts[0];
    parts = store::find_parts(*out);
    if (parts.empty())
      throw UsageError("no part of " + *out + " to merge (looked for " + store::part_path(*out, 0) +
                       " and the other ranks')");
  }
  if (parts.empty()) throw UsageError("'trainscope merge' needs at least one part to merge");

  for (const std::string& input : parts)
    if (io::same_output(input, *out))
      throw UsageError("the output " + *out + " would overwrite the input " + input);
  const std::string target = io::regular_output_path(*out);
  const auto t0 = std::chrono::steady_clock::now();
  const store::JobMerge m = store::merge_job(parts, target);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  keep_analysis_of(target);  // a large job's first report reads it back (not timed with it)
  for (const std::string& w : m.warnings) std::cerr << "trainscope: " << w << "\n";
  const auto list = [](const std::vector<int>& ranks) {
    std::string s;
    for (const int r : ranks) {
      if (!s.empty()) s += ", ";
      s += std::to_string(r);
    }
    return s;
  };
  std::cout << "Merged " << m.merged.size() << " of " << m.world_size << " ranks into " << *out
            << ": " << m.result.events << " events, " << m.result.tracks << " tracks in "
            << static_cast<long long>(seconds * 1000) << " ms; clocks: " << m.alignment << "\n";
  if (!m.recovered.empty())
    std::cout << "Indexed the staged events of the unfinished capture(s) of rank(s) "
              << list(m.recovered) << " first\n";
  if (!m.absent.empty())
    std::cout << "No part from rank(s) " << store::format_ranks(m.absent, ", ") << "\n";
  if (!m.cut_short.empty())
    std::cout << "Cut short (the capture was killed): rank(s) " << list(m.cut_short) << "\n";
  if (remove)
    for (const std::string& p : parts) store::discard_trace_files(p);
  return 0;
}

}  // namespace ts::cli
