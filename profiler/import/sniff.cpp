// sniff(): what a path holds, from its first bytes.
#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "profiler/import/byte_source.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import/sources.hpp"
#include "profiler/import/text_clean.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/schema.hpp"

namespace ts::import {

namespace {

bool is_xplane(const std::string& name) {
  return name.ends_with(".xplane.pb") || name.ends_with(".xplane.pb.gz") ||
         name.ends_with(".xplane.riegeli");  // recognised, to be refused with advice
}

SourceKind sniff_file(const std::string& path) {
  if (is_xplane(std::filesystem::path(path).filename().string()))
    return SourceKind::tensorflow_profile;
  const auto h = store::read_file_header(path);  // never blocks, reads only regular files
  if (!h || !h->regular) return SourceKind::unknown;
  if (h->sqlite)
    return h->header_bytes == 100 && h->application_id == store::kApplicationId
               ? SourceKind::trainscope_trace
               : SourceKind::unknown;
  const std::string head = peek_text(path, 512);
  std::size_t i = head.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  return i < head.size() && (head[i] == '{' || head[i] == '[') ? SourceKind::chrome_json
                                                               : SourceKind::unknown;
}

// A TensorBoard log directory holds plugins/profile/<run>/<host>.xplane.pb (one without runs
// is still one: importing it says so).
SourceKind sniff_directory(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(fs::path(path) / "plugins" / "profile", ec))
    return SourceKind::tensorflow_profile;
  bool json = false;
  for (fs::recursive_directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
    if (it.depth() > 4) {
      it.disable_recursion_pending();
      continue;
    }
    std::error_code type_ec;
    if (!it->is_regular_file(type_ec)) continue;
    const std::string name = it->path().filename().string();
    if (is_xplane(name)) return SourceKind::tensorflow_profile;
    if (it.depth() == 0 && is_trace_file_name(name) &&
        sniff_file(it->path().string()) == SourceKind::chrome_json)
      json = true;
  }
  return json ? SourceKind::chrome_json : SourceKind::unknown;
}

// What the start of a file looks like, when that says more than the quote ("an HTML page").
std::string looks_like(std::string_view head) {
  std::size_t i = 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  if (i < head.size() && head[i] == '<') return ", an HTML or XML document, not JSON";
  if (head.starts_with("PK\x03\x04")) return ", a zip archive";
  return "";
}

}  // namespace

std::string why_not_a_trace(const std::string& path) {
  try {
    const auto h = store::read_file_header(path);
    if (!h || !h->regular || h->file_size == 0 || h->sqlite) return "";
    const std::string head = peek_text(path, 256);
    if (head.empty()) return "";
    const std::string start = "it starts with '" + quote_start(head) + "'" + looks_like(head);
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.ends_with(".json") || name.ends_with(".json.gz"))
      return path + " is not a JSON trace (" + start + ")";
    return path + " is not a trainscope trace, a JSON trace or a TensorFlow profile (" + start +
           ")";
  } catch (...) {
    return "";
  }
}

SourceKind sniff(const std::string& path) {
  try {
    struct stat st {};
    if (::stat(path.c_str(), &st) != 0) return SourceKind::unknown;
    return S_ISDIR(st.st_mode) ? sniff_directory(path) : sniff_file(path);
  } catch (...) {
    return SourceKind::unknown;
  }
}

}  // namespace ts::import
