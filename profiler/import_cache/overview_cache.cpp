#include "profiler/import_cache/overview_cache.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <system_error>

#include "profiler/import_cache/cache_dir.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/store/overview_codec.hpp"

namespace ts::import {

namespace fs = std::filesystem;

namespace {

constexpr const char* kOptionsKey = "overview";

std::string cache_file(const std::string& trace, const std::string& cache_dir) {
  std::error_code ec;
  const fs::path abs = fs::absolute(trace, ec);
  return user_cache_dir(cache_dir) + "/overviews/" + path_hash(abs.string()) + ".overview";
}

}  // namespace

std::optional<store::Overview> cached_overview(const std::string& trace,
                                               const std::string& cache_dir) {
  const std::string fingerprint = source_fingerprint(trace, kOptionsKey);
  if (fingerprint.empty()) return std::nullopt;
  std::error_code ec;
  const std::string file = cache_file(trace, cache_dir);
  if (!fs::is_regular_file(file, ec)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  if (!in.good() && !in.eof()) return std::nullopt;
  if (bytes.compare(0, fingerprint.size(), fingerprint) != 0) return std::nullopt;
  return store::decode_overview(std::string_view(bytes).substr(fingerprint.size()));
}

bool keep_overview(const std::string& trace, const store::Overview& overview,
                   const std::string& cache_dir) noexcept {
  try {
    const std::string fingerprint = source_fingerprint(trace, kOptionsKey);
    if (fingerprint.empty()) return false;
    const std::string file = cache_file(trace, cache_dir);
    std::error_code ec;
    fs::create_directories(fs::path(file).parent_path(), ec);
    const std::string tmp = file + ".tmp" + std::to_string(::getpid());
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      out << fingerprint << store::encode_overview(overview);
      out.flush();
      if (!out) {
        fs::remove(tmp, ec);
        return false;
      }
    }
    fs::rename(tmp, file, ec);
    if (!ec) return true;
    fs::remove(tmp, ec);
    return false;
  } catch (...) {
    return false;
  }
}

}  // namespace ts::import
