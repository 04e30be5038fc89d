// sniff(): what a path holds, from its first bytes, asking each format reader of the registry.
#include <sys/stat.h>

#include <filesystem>

#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/common/text_clean.hpp"
#include "profiler/import/import.hpp"
#include "profiler/import/registry.hpp"
#include "profiler/store/file_header.hpp"
#include "profiler/store/schema.hpp"

namespace ts::import {

namespace {

bool is_trainscope_trace(const std::string& path) {
  const auto h = store::read_file_header(path);  // never blocks, reads only regular files
  return h && h->regular && h->sqlite && h->header_bytes == 100 &&
         h->application_id == store::kApplicationId;
}

// The reader that sniffs an existing path, or null.
const TraceReader* sniffing_reader(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return nullptr;
  for (const TraceReader& r : trace_readers())
    if (r.sniff(path)) return &r;
  return nullptr;
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

// "a trainscope trace, a JSON trace or a TensorFlow profile": what trainscope reads, the general
// formats first (the table lists the most specific first).
std::string what_is_read() {
  std::string out = "a trainscope trace";
  const auto readers = trace_readers();
  for (std::size_t i = readers.size(); i-- > 0;)
    out += std::string(i == 0 ? " or " : ", ") + std::string(readers[i].one);
  return out;
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
    for (const TraceReader& r : trace_readers())
      if (r.named(name)) return path + " is not " + std::string(r.one) + " (" + start + ")";
    return path + " is not " + what_is_read() + " (" + start + ")";
  } catch (...) {
    return "";
  }
}

SourceKind sniff(const std::string& path) {
  try {
    if (sniffing_reader(path)) return SourceKind::importable;
    return is_trainscope_trace(path) ? SourceKind::trainscope_trace : SourceKind::unknown;
  } catch (...) {
    return SourceKind::unknown;
  }
}

std::string sniff_format(const std::string& path) {
  try {
    const TraceReader* r = sniffing_reader(path);
    return r ? std::string(r->name) : std::string();
  } catch (...) {
    return {};
  }
}

}  // namespace ts::import
