// lost_share_error(): when an import lost too much of what it read to stand for the run.
#include <algorithm>
#include <cstdio>
#include <utility>
#include <vector>

#include "profiler/import/common/skip_reasons.hpp"
#include "profiler/import/import.hpp"

namespace ts::import {

namespace {

// "3 271" (groups of three, as the CLI writes counts).
std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ' ';
    out += digits[i];
  }
  return out;
}

// "3 268 negative_duration, 2 unpaired_end": the largest counts first, three at most.
std::string main_reasons(const ImportStats& stats, bool losses_only, std::uint64_t& total) {
  std::vector<std::pair<std::uint64_t, std::string>> skipped;
  total = 0;
  for (const auto& [reason, n] : stats.skipped)
    if (n > 0 && (!losses_only || is_loss(reason))) {
      skipped.emplace_back(n, reason);
      total += n;
    }
  std::sort(skipped.begin(), skipped.end(),
            [](const auto& a, const auto& b) { return a.first > b.first; });
  std::string out;
  for (std::size_t i = 0; i < skipped.size() && i < 3; ++i)
    out += (i > 0 ? ", " : "") + grouped(skipped[i].first) + " " + skipped[i].second;
  if (skipped.size() > 3) out += ", ...";
  return out;
}

}  // namespace

std::string lost_share_error(const std::string& source, const ImportStats& stats) {
  std::uint64_t total = 0;
  const std::string why = main_reasons(stats, true, total);
  const std::uint64_t read = std::max(stats.events_read, total);
  if (total == 0 || static_cast<double>(total) <= kMaxLostShare * static_cast<double>(read))
    return "";
  char share[32];
  std::snprintf(share, sizeof share, "%.1f %%",
                100.0 * static_cast<double>(total) / static_cast<double>(read));
  return source + ": " + share + " of its " + grouped(read) + " events could not be imported (" +
         why + "), more than 1 %; --allow-partial imports the rest";
}

std::string nothing_imported_error(const std::string& source, const ImportStats& stats) {
  std::uint64_t total = 0;
  const std::string why = main_reasons(stats, false, total);
  return source + ": none of its " + grouped(stats.events_read) +
         " trace events could be imported" + (why.empty() ? "" : " (" + why + ")");
}

}  // namespace ts::import
