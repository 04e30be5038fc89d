#include "profiler/store/file_header.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>

namespace ts::store {

namespace {

constexpr char kMagic[] = "SQLite format 3";  // 16 bytes with its NUL

std::uint32_t be32(const unsigned char* p) {
  return (std::uint32_t{p[0]} << 24) | (std::uint32_t{p[1]} << 16) | (std::uint32_t{p[2]} << 8) |
         std::uint32_t{p[3]};
}

}  // namespace

std::optional<FileHeader> read_file_header(const std::string& path) {
  std::ifstream f(path, std::ios::binary | std::ios::ate);
  if (!f) return std::nullopt;
  FileHeader h;
  const auto size = f.tellg();
  h.file_size = size > 0 ? static_cast<std::uint64_t>(size) : 0;
  f.seekg(0);
  std::array<unsigned char, 100> b{};
  f.read(reinterpret_cast<char*>(b.data()), b.size());
  h.header_bytes = static_cast<std::size_t>(f.gcount());
  h.sqlite = std::memcmp(b.data(), kMagic, std::min(h.header_bytes, sizeof kMagic)) == 0;
  if (!h.sqlite || h.header_bytes < b.size()) return h;
  const std::uint32_t raw_page = (std::uint32_t{b[16]} << 8) | b[17];
  h.page_size = raw_page == 1 ? 65536 : raw_page;
  // The page count is valid when "version-valid-for" matches the change counter.
  if (be32(&b[92]) == be32(&b[24])) h.page_count = be32(&b[28]);
  h.application_id = static_cast<std::int32_t>(be32(&b[68]));
  return h;
}

bool has_write_ahead_log(const std::string& path) {
  struct stat st {};
  return ::stat((path + "-wal").c_str(), &st) == 0 && st.st_size > 0;
}

}  // namespace ts::store
