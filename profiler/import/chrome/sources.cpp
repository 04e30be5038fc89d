#include "profiler/import/chrome/sources.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <system_error>

#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/import.hpp"
#include "profiler/store/file_header.hpp"

namespace ts::import {

namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::optional<std::int64_t> digits_at(std::string_view s, std::size_t i) {
  std::int64_t n = 0;
  std::size_t k = i;
  for (; k < s.size() && is_digit(s[k]) && k - i < 9; ++k) n = n * 10 + (s[k] - '0');
  if (k == i) return std::nullopt;
  return n;
}

bool is_json_file(const std::string& path) {
  const auto h = store::read_file_header(path);  // never blocks, reads only regular files
  if (!h || !h->regular || h->sqlite) return false;
  const std::string head = peek_text(path, 512);
  std::size_t i = head.starts_with("\xEF\xBB\xBF") ? 3 : 0;
  while (i < head.size() &&
         (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t'))
    ++i;
  return i < head.size() && (head[i] == '{' || head[i] == '[');
}

}  // namespace

bool is_chrome_source(const std::string& path) {
  namespace fs = std::filesystem;
  try {
    std::error_code ec;
    if (!fs::is_directory(path, ec)) return is_json_file(path);
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
      std::error_code type_ec;
      if (it->is_regular_file(type_ec) && is_trace_file_name(it->path().filename().string()) &&
          is_json_file(it->path().string()))
        return true;
    }
    return false;
  } catch (...) {
    return false;
  }
}

bool is_trace_file_name(std::string_view n) {
  return n.ends_with(".json") || n.ends_with(".json.gz");
}

std::optional<std::int64_t> rank_from_name(std::string_view file_name) {
  std::string lower(file_name);
  for (char& c : lower) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c + 32 : c);
  for (std::size_t p = lower.find("rank"); p != std::string::npos; p = lower.find("rank", p + 1)) {
    std::size_t i = p + 4;
    if (i < lower.size() && (lower[i] == '-' || lower[i] == '_')) ++i;
    if (const auto n = digits_at(lower, i)) return n;
  }
  for (std::size_t p = lower.rfind('_'); p != std::string::npos && p > 0;
       p = lower.rfind('_', p - 1)) {
    std::size_t i = p + 1;
    while (i < lower.size() && is_digit(lower[i])) ++i;
    if (i > p + 1 && i + 1 < lower.size() && lower[i] == '.' && !is_digit(lower[i + 1]))
      return digits_at(lower, p + 1);
    if (p == 0) break;
  }
  return std::nullopt;
}

std::optional<std::int64_t> rank_from_text(std::string_view text) {
  for (std::size_t p = text.find("\"rank\""); p != std::string_view::npos;
       p = text.find("\"rank\"", p + 1)) {
    std::size_t i = p + 6;
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
      ++i;
    if (i >= text.size() || text[i] != ':') continue;
    ++i;
    while (i < text.size() &&
           (text[i] == ' ' || text[i] == '\n' || text[i] == '\t' || text[i] == '\r'))
      ++i;
    if (const auto n = digits_at(text, i)) return n;
  }
  return std::nullopt;
}

std::vector<SourceFile> expand_sources(std::span<const std::string> sources) {
  namespace fs = std::filesystem;
  std::vector<SourceFile> out;
  for (const std::string& src : sources) {
    struct stat st {};
    if (::stat(src.c_str(), &st) != 0)
      throw ImportError("cannot read " + src + ": " + std::strerror(errno));
    if (!S_ISDIR(st.st_mode)) {
      out.push_back({src, rank_from_name(fs::path(src).filename().string())});
      continue;
    }
    struct Entry {
      SourceFile file;
      std::optional<std::int64_t> rank;
      std::string name;
    };
    std::vector<Entry> entries;
    bool any = false;
    std::error_code ec;
    for (fs::directory_iterator it(src, ec), end; !ec && it != end; it.increment(ec)) {
      any = true;
      const std::string name = it->path().filename().string();
      std::error_code type_ec;
      if (!is_trace_file_name(name) || !it->is_regular_file(type_ec)) continue;
      SourceFile f{it->path().string(), rank_from_name(name)};
      const std::optional<std::int64_t> rank = rank_from_text(peek_text(f.path, 64 << 10));
      entries.push_back({f, rank ? rank : f.name_rank, name});
    }
    if (ec) throw ImportError("cannot read " + src + ": " + ec.message());
    if (!any) throw ImportError(src + " is an empty directory");
    if (entries.empty()) throw ImportError(src + " holds no trace files (*.json, *.json.gz)");
    std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      if (a.rank.has_value() != b.rank.has_value()) return a.rank.has_value();
      if (a.rank != b.rank) return *a.rank < *b.rank;
      return a.name < b.name;
    });
    for (Entry& e : entries) out.push_back(std::move(e.file));
  }
  return out;
}

}  // namespace ts::import
