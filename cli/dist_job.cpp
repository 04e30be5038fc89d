#include "cli/dist_job.hpp"

#include <unistd.h>

#include <fstream>
#include <random>

#include "engine/dist/runtime.hpp"

namespace ts::cli {

namespace {

std::string host_name() {
  char buf[256] = {};
  if (::gethostname(buf, sizeof buf - 1) != 0) return "?";
  return buf;
}

std::string boot_id() {
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::string id;
  std::getline(in, id);
  return id;
}

// "key=value" lines; values hold no newline.
std::string encode(const std::vector<std::pair<std::string, std::string>>& config) {
  std::string s;
  for (const auto& [k, v] : config) s += k + "=" + v + "\n";
  return s;
}

std::vector<std::pair<std::string, std::string>> decode(const std::string& s) {
  std::vector<std::pair<std::string, std::string>> out;
  std::size_t at = 0;
  while (at < s.size()) {
    const std::size_t nl = s.find('\n', at);
    const std::string line = s.substr(at, nl - at);
    const std::size_t eq = line.find('=');
    out.emplace_back(line.substr(0, eq), eq == std::string::npos ? "" : line.substr(eq + 1));
    at = nl == std::string::npos ? s.size() : nl + 1;
  }
  return out;
}

}  // namespace

JobInfo join_job(std::string& notice) {
  JobInfo job;
  job.comm = &dist::world(&notice);
  job.rank = job.comm->rank();
  job.size = job.comm->size();
  job.host = host_name();
  job.boot_id = boot_id();
  if (!job.distributed()) return job;
  const std::string me = job.host + "\n" + job.boot_id;
  const std::vector<std::string> all = job.comm->allgather(me);
  job.ranks_on_host = 0;
  for (const std::string& h : all) job.ranks_on_host += h == me ? 1 : 0;
  std::uint64_t id = 0;
  if (job.rank == 0) id = (std::uint64_t{std::random_device{}()} << 32) ^ std::random_device{}();
  job.comm->broadcast(&id, sizeof id, 0);
  job.job_id = std::to_string(id);
  return job;
}

std::string rank_path(const std::string& path, int rank) {
  if (rank == 0) return path;
  const std::size_t slash = path.rfind('/');
  const std::size_t dot = path.rfind('.');
  const std::string tag = ".rank" + std::to_string(rank);
  // A dot that starts the file name (".hidden") or lies in a directory is no extension.
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) ||
      dot == (slash == std::string::npos ? 0 : slash + 1))
    return path + tag;
  return path.substr(0, dot) + tag + path.substr(dot);
}

void check_agreement(const JobInfo& job,
                     const std::vector<std::pair<std::string, std::string>>& config) {
  if (!job.distributed()) return;
  const std::vector<std::string> all = job.comm->allgather(encode(config));
  std::vector<std::vector<std::pair<std::string, std::string>>> ranks;
  for (const std::string& s : all) ranks.push_back(decode(s));
  std::string problems;
  for (std::size_t k = 0; k < ranks[0].size(); ++k) {
    const auto& [key, value0] = ranks[0][k];
    bool differs = false;
    for (const auto& r : ranks)
      differs = differs || k >= r.size() || r[k].first != key || r[k].second != value0;
    if (!differs) continue;
    std::string values;
    for (std::size_t r = 0; r < ranks.size(); ++r) {
      if (!values.empty()) values += ", ";
      values += "rank " + std::to_string(r) + " has " +
                (k < ranks[r].size() ? ranks[r][k].second : std::string("nothing"));
    }
    if (!problems.empty()) problems += "; ";
    problems += "on " + key + ": " + values;
  }
  if (!problems.empty())
    throw dist::AgreedError(
        "the ranks of this job must train the same model on the same data, "
        "but they disagree " +
        problems);
}

}  // namespace ts::cli
