#include "profiler/import/xplane/xplane_sources.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <map>
#include <system_error>

#include "profiler/import/import.hpp"

namespace ts::import {

namespace {

namespace fs = std::filesystem;

// Depth of the search for plugins/profile below a log directory (logdir/train/plugins/profile
// is 2 levels down), as sniff() looks 4 levels deep for a profile file.
constexpr int kSearchDepth = 3;

bool is_dir(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec);
}

std::string name_of(const fs::path& dir) {
  fs::path p = dir;
  while (!p.empty() && p.filename().empty()) p = p.parent_path();  // "run/" -> "run"
  return p.filename().string();
}

// The profile files directly in `dir`, sorted by name; a host's .xplane.pb wins over its
// .xplane.riegeli.
std::vector<std::string> profile_files(const fs::path& dir) {
  std::map<std::string, std::string> by_host;  // host -> file
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    std::error_code type_ec;
    if (!is_xplane_file_name(name) || !it->is_regular_file(type_ec)) continue;
    const std::string host = name.substr(0, name.find(".xplane."));
    auto [slot, fresh] = by_host.try_emplace(host, it->path().string());
    if (!fresh && slot->second.ends_with(".riegeli")) slot->second = it->path().string();
  }
  std::vector<std::string> out;
  for (auto& [host, file] : by_host) out.push_back(std::move(file));
  std::sort(out.begin(), out.end());
  return out;
}

struct Run {
  std::string name;
  fs::path dir;
};

// The run directories (sub-directories holding profile files) of a plugins/profile directory.
void add_runs(const fs::path& profile_dir, std::vector<Run>& runs) {
  std::error_code ec;
  for (fs::directory_iterator it(profile_dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code type_ec;
    if (!it->is_directory(type_ec)) continue;
    if (!profile_files(it->path()).empty())
      runs.push_back({it->path().filename().string(), it->path()});
  }
}

// The plugins/profile directories at or below `dir`.
std::vector<fs::path> profile_dirs(const fs::path& dir) {
  std::vector<fs::path> out;
  if (name_of(dir) == "profile" && name_of(dir.parent_path()) == "plugins") out.push_back(dir);
  if (is_dir(dir / "plugins" / "profile")) out.push_back(dir / "plugins" / "profile");
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() >= kSearchDepth) it.disable_recursion_pending();
    std::error_code type_ec;
    if (!it->is_directory(type_ec) || it->path().filename() != "plugins" || it.depth() == 0)
      continue;
    const fs::path p = it->path() / "profile";
    if (is_dir(p)) out.push_back(p);
  }
  return out;
}

// Whether a profile file lies at most 4 levels below `dir`.
bool holds_profile_file(const fs::path& dir) {
  std::error_code ec;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 4) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code type_ec;
    if (it->is_regular_file(type_ec) && is_xplane_file_name(it->path().filename().string()))
      return true;
  }
  return false;
}

std::string run_list(const std::vector<Run>& runs) {
  std::vector<std::string> names;
  for (const Run& r : runs) names.push_back(r.name);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  std::string out;
  for (const std::string& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::vector<XPlaneSource> from_directory(const std::string& src, const std::string& wanted) {
  const fs::path dir(src);
  std::vector<std::string> files = profile_files(dir);
  if (!files.empty()) {  // a run directory
    const std::string run = name_of(dir);
    if (!wanted.empty() && wanted != run)
      throw ImportError(src + " is a profile run directory ('" + run + "'), not a log directory " +
                        "with a run '" + wanted + "'");
    std::vector<XPlaneSource> out;
    for (std::string& f : files) out.push_back({std::move(f), run});
    return out;
  }
  std::vector<Run> runs;
  const std::vector<fs::path> dirs = profile_dirs(dir);
  for (const fs::path& p : dirs) add_runs(p, runs);
  if (runs.empty()) {
    if (!dirs.empty())
      throw ImportError(src + " is a TensorBoard log directory without profile runs: " +
                        dirs.front().string() + " holds no run directory with .xplane.pb files");
    throw ImportError(src + " holds no TensorFlow profile (no .xplane.pb file and no " +
                      "plugins/profile/RUN/ directory)");
  }
  std::vector<Run> chosen;
  if (!wanted.empty()) {
    for (const Run& r : runs)
      if (r.name == wanted) chosen.push_back(r);
    if (chosen.empty())
      throw ImportError(src + " has no profile run '" + wanted + "' (its runs: " + run_list(runs) +
                        ")");
  } else {
    std::string latest;
    for (const Run& r : runs) latest = std::max(latest, r.name);
    for (const Run& r : runs)
      if (r.name == latest) chosen.push_back(r);
  }
  if (chosen.size() > 1) {
    std::string where;
    for (const Run& r : chosen) where += (where.empty() ? "" : ", ") + r.dir.string();
    throw ImportError(src + " holds several profile runs named '" + chosen.front().name + "' (" +
                      where + "): import one of them directly");
  }
  std::vector<XPlaneSource> out;
  for (std::string& f : profile_files(chosen.front().dir))
    out.push_back({std::move(f), chosen.front().name});
  return out;
}

}  // namespace

bool is_xplane_file_name(std::string_view n) {
  return n.ends_with(".xplane.pb") || n.ends_with(".xplane.pb.gz") ||
         n.ends_with(".xplane.riegeli");
}

std::string host_from_file_name(std::string_view file_name) {
  const std::size_t dot = file_name.rfind(".xplane.");
  if (dot == std::string_view::npos || !is_xplane_file_name(file_name)) return {};
  return std::string(file_name.substr(0, dot));
}

bool is_tensorflow_source(const std::string& path) {
  try {
    const fs::path p(path);
    if (is_xplane_file_name(p.filename().string())) return true;
    return is_dir(p) && (!profile_dirs(p).empty() || holds_profile_file(p));
  } catch (...) {
    return false;
  }
}

std::vector<XPlaneSource> resolve_xplane_sources(std::span<const std::string> sources,
                                                 const std::string& run) {
  std::vector<XPlaneSource> out;
  for (const std::string& src : sources) {
    struct stat st {};
    if (::stat(src.c_str(), &st) != 0)
      throw ImportError("cannot read " + src + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
      out.push_back({src, {}});
      continue;
    }
    for (XPlaneSource& s : from_directory(src, run)) out.push_back(std::move(s));
  }
  return out;
}

}  // namespace ts::import
