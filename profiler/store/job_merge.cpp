#include "profiler/store/job_merge.hpp"

#include <dirent.h>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>

#include "profiler/store/error.hpp"
#include "profiler/store/read_only_open.hpp"
#include "profiler/store/recover.hpp"
#include "profiler/store/sqlite.hpp"

namespace ts::store {

namespace {

struct PartInfo {
  std::string path;
  std::map<std::string, std::string> meta;
  int rank = -1;
  bool cut_short = false;
  bool recovered = false;

  std::optional<std::int64_t> number(const std::string& key) const {
    const auto it = meta.find(key);
    if (it == meta.end() || it->second.empty()) return std::nullopt;
    char* end = nullptr;
    const long long v = std::strtoll(it->second.c_str(), &end, 10);
    if (end == nullptr || *end != '\0') return std::nullopt;
    return v;
  }
  std::string text(const std::string& key) const {
    const auto it = meta.find(key);
    return it == meta.end() ? std::string() : it->second;
  }
};

bool has_staged_events(const std::string& path) {
  Db db;
  open_read_only(db, path, "cannot open trace");
  if (db.pragma_int("user_version", "cannot read trace") < 2) return false;
  Stmt st(db, "SELECT 1 FROM event_block LIMIT 1", "cannot read trace");
  return st.step();
}

std::map<std::string, std::string> read_meta(const std::string& path) {
  Db db;
  open_read_only(db, path, "cannot open trace");
  std::map<std::string, std::string> out;
  Stmt st(db, "SELECT key, value FROM meta", "cannot read trace");
  while (st.step()) out[st.col_text(0)] = st.col_text(1);
  return out;
}

std::vector<RankRange> runs_of(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  std::vector<RankRange> out;
  for (const int r : ranks) {
    if (!out.empty() && r <= out.back().last + 1) {
      out.back().last = std::max<std::int64_t>(out.back().last, r);
    } else {
      out.push_back({r, r});
    }
  }
  return out;
}

// The union of two sorted lists of runs, sorted.
std::vector<RankRange> unite(std::span<const RankRange> a, std::span<const RankRange> b) {
  std::vector<RankRange> all(a.begin(), a.end());
  all.insert(all.end(), b.begin(), b.end());
  std::sort(all.begin(), all.end(),
            [](const RankRange& x, const RankRange& y) { return x.first < y.first; });
  std::vector<RankRange> out;
  for (const RankRange& r : all) {
    if (!out.empty() && r.first <= out.back().last + 1) {
      out.back().last = std::max(out.back().last, r.last);
    } else {
      out.push_back(r);
    }
  }
  return out;
}

}  // namespace

std::string part_path(const std::string& trace, int rank) {
  return trace + ".rank" + std::to_string(rank) + ".part";
}

std::vector<std::string> find_parts(const std::string& trace) {
  const std::size_t slash = trace.rfind('/');
  const std::string dir = slash == std::string::npos ? "." : trace.substr(0, slash + 1);
  const std::string base = slash == std::string::npos ? trace : trace.substr(slash + 1);
  const std::string prefix = base + ".rank";
  std::vector<std::pair<long, std::string>> found;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (const dirent* e = ::readdir(d)) {
      const std::string name = e->d_name;
      if (name.size() <= prefix.size() + 5 || name.rfind(prefix, 0) != 0 ||
          name.compare(name.size() - 5, 5, ".part") != 0)
        continue;
      const std::string digits = name.substr(prefix.size(), name.size() - prefix.size() - 5);
      if (digits.empty() || digits.size() > 9 ||
          !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        continue;
      found.emplace_back(std::atol(digits.c_str()), slash == std::string::npos ? name : dir + name);
    }
    ::closedir(d);
  }
  std::sort(found.begin(), found.end());
  std::vector<std::string> out;
  for (auto& [rank, path] : found) out.push_back(std::move(path));
  return out;
}

std::string format_ranks(std::span<const RankRange> ranges, std::string_view separator) {
  std::string s;
  for (const RankRange& r : ranges) {
    if (!s.empty()) s += separator;
    s += std::to_string(r.first);
    if (r.last == r.first + 1) {
      s += separator;
      s += std::to_string(r.last);
    } else if (r.last > r.first) {
      s += "-" + std::to_string(r.last);
    }
  }
  return s;
}

std::vector<RankRange> ranks_absent(std::span<const int> present, std::int64_t world_size) {
  std::vector<RankRange> out;
  std::int64_t next = 0;  // the lowest rank not yet accounted for
  for (const int r : present) {
    if (r >= world_size) break;
    if (r > next) out.push_back({next, r - 1});
    next = std::max<std::int64_t>(next, std::int64_t{r} + 1);
  }
  if (next < world_size) out.push_back({next, world_size - 1});
  return out;
}

JobMerge merge_job(const std::vector<std::string>& part_paths, const std::string& out) {
  JobMerge job;
  std::vector<PartInfo> parts;
  for (const std::string& path : part_paths) {
    PartInfo p;
    p.path = path;
    try {
      if (has_staged_events(path)) {  // a killed capture: index what it staged, in place
        recover(path);
        p.recovered = true;
      }
      p.meta = read_meta(path);
    } catch (const Error& e) {
      job.warnings.push_back(std::string("left out ") + path + ": " + e.what());
      continue;
    }
    const auto rank = p.number("dist.rank");
    if (!rank) {
      job.warnings.push_back("left out " + path + ": it is not a rank's part (no dist.rank)");
      continue;
    }
    if (*rank < 0 || *rank >= kRankLimit) {
      job.warnings.push_back("left out " + path + ": its dist.rank " + std::to_string(*rank) +
                             " is not a rank (0 to " + std::to_string(kRankLimit - 1) + ")");
      continue;
    }
    p.rank = static_cast<int>(*rank);
    // Killed: the capture never stopped, and did not commit on SIGTERM or on an error either.
    p.cut_short = p.meta.count("capture.end_ns") == 0 && p.meta.count("dist.terminated_ns") == 0 &&
                  p.meta.count("dist.failed") == 0;
    parts.push_back(std::move(p));
  }
  std::sort(parts.begin(), parts.end(),
            [](const PartInfo& a, const PartInfo& b) { return a.rank < b.rank; });
  if (parts.empty()) throw Error("cannot merge into " + out + ": no readable part of a job");

  // One job: the lowest rank's, one part per rank.
  const std::string job_id = parts.front().text("dist.job_id");
  std::vector<PartInfo> kept;
  for (PartInfo& p : parts) {
    if (p.text("dist.job_id") != job_id) {
      job.warnings.push_back("left out " + p.path + ": it belongs to another job (dist.job_id " +
                             p.text("dist.job_id") + ", not " + job_id + ")");
    } else if (!kept.empty() && kept.back().rank == p.rank) {
      job.warnings.push_back("left out " + p.path + ": a second part of rank " +
                             std::to_string(p.rank));
    } else {
      kept.push_back(std::move(p));
    }
  }
  // A claimed world size is a number from a file: it decides no allocation (absent ranks are runs).
  const std::int64_t claimed = kept.front().number("dist.world_size").value_or(0);
  job.world_size = static_cast<int>(std::max<std::int64_t>(
      claimed >= 1 && claimed <= kRankLimit ? claimed : 0, std::int64_t{kept.back().rank} + 1));

  // Offsets are to rank 0's clock: without rank 0's part, every measured offset applies.
  const bool have_rank0 = kept.front().rank == 0;
  const std::string host0 = have_rank0 ? kept.front().text("dist.host") : std::string();
  const std::string boot0 = have_rank0 ? kept.front().text("dist.boot_id") : std::string();
  bool one_host = true;
  std::vector<MergePart> merge;
  MergeMeta merge_meta;
  // A part's own bookkeeping: restated below for the job, or in its process row.
  merge_meta.drop = {"dist.rank",   "dist.host",          "dist.boot_id", "dist.world_size",
                     "dist.clock.", "dist.terminated_ns", "dist.failed"};
  std::vector<std::pair<std::string, std::string>>& meta = merge_meta.extra;
  for (const PartInfo& p : kept) {
    MergePart m;
    m.path = p.path;
    m.rank = p.rank;
    m.pid = p.number("process.pid").value_or(kNull);
    m.host = p.text("dist.host");
    m.name = "rank " + std::to_string(p.rank) + " (" + (m.host.empty() ? "?" : m.host) + " pid " +
             (m.pid == kNull ? std::string("?") : std::to_string(m.pid)) + ")";
    m.meta_prefix = "rank." + std::to_string(p.rank) + ".";
    const std::string r = "clock.rank." + std::to_string(p.rank);
    const auto offset = p.number("dist.clock.offset_ns");
    const auto error = p.number("dist.clock.error_ns");
    const auto at = p.number("dist.clock.at_ns");
    const auto end_offset = p.number("dist.clock.end_offset_ns");
    const auto end_at = p.number("dist.clock.end_at_ns");
    const bool same_host = have_rank0 && m.host == host0 && p.text("dist.boot_id") == boot0;
    if (!same_host && offset) {
      one_host = false;
      m.offset_ns = *offset;
      // The drift is applied from the measurement on, read on the part's own clock (at_ns is
      // rank 0's): with hosts 1000 s apart, a few ppm from the wrong origin are milliseconds.
      m.ref_ns = at.value_or(0) + *offset;
      if (end_offset && end_at && at && *end_at > *at)
        m.drift = static_cast<double>(*end_offset - *offset) / static_cast<double>(*end_at - *at);
    }
    meta.emplace_back(r + ".offset_ns", std::to_string(m.offset_ns));
    if (offset) meta.emplace_back(r + ".measured_offset_ns", std::to_string(*offset));
    if (error) meta.emplace_back(r + ".error_ns", std::to_string(*error));
    if (m.drift != 0) meta.emplace_back(r + ".drift_ppm", std::to_string(m.drift * 1e6));
    if (end_offset) meta.emplace_back(r + ".end_measured_offset_ns", std::to_string(*end_offset));
    // How the rank's capture ended: stopped after training, committed when the launcher ended
    // the job (SIGTERM), committed as the rank failed, or killed (its last commit).
    const std::string d = "rank." + std::to_string(p.rank) + ".dist.";
    const std::string failed = p.text("dist.failed");
    const std::string terminated = p.text("dist.terminated_ns");
    meta.emplace_back(d + "state", !failed.empty()       ? "failed"
                                   : !terminated.empty() ? "terminated"
                                   : p.cut_short         ? "killed"
                                                         : "complete");
    if (!failed.empty()) meta.emplace_back(d + "failed", failed);
    if (!terminated.empty()) meta.emplace_back(d + "terminated_ns", terminated);
    job.merged.push_back(p.rank);
    if (p.cut_short) job.cut_short.push_back(p.rank);
    if (p.recovered) job.recovered.push_back(p.rank);
    merge.push_back(std::move(m));
  }
  job.absent = ranks_absent(job.merged, job.world_size);
  const std::vector<RankRange> missing = unite(job.absent, runs_of(job.cut_short));
  job.alignment = one_host ? "monotonic" : "mpi_ping_pong";

  meta.emplace_back("dist.world_size", std::to_string(job.world_size));
  meta.emplace_back("dist.backend", kept.front().text("dist.backend").empty()
                                        ? "mpi"
                                        : kept.front().text("dist.backend"));
  meta.emplace_back("dist.ranks", std::to_string(job.merged.size()));
  meta.emplace_back("dist.missing_ranks", format_ranks(missing));
  meta.emplace_back("dist.absent_ranks", format_ranks(job.absent));
  meta.emplace_back("dist.cut_short_ranks", format_ranks(runs_of(job.cut_short)));
  meta.emplace_back("clock.alignment", job.alignment);
  job.result = merge_traces(merge, out, merge_meta);
  return job;
}

}  // namespace ts::store
