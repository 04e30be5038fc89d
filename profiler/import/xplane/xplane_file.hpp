// One TensorFlow profile file (<host>.xplane.pb: a serialised XSpace): mapped into memory (or
// inflated, for a gzip copy), its top level scanned without parsing the planes, and each plane
// parsed on demand into an arena, so that the importer holds one plane's messages at a time.
#pragma once

#include <google/protobuf/arena.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "profiler/import/xplane/xplane.pb.h"

namespace ts::import {

namespace xp = ::tensorflow::profiler;

// A plane's bytes in the file, not parsed yet.
struct PlaneSlice {
  std::string name;          // XPlane.name, read without parsing the plane (raw bytes)
  std::uint64_t offset = 0;  // of the serialised XPlane
  std::uint64_t size = 0;
  int index = 0;  // position among the file's planes, from 0
};

// A parsed plane and the arena that owns it.
struct ParsedPlane {
  std::unique_ptr<google::protobuf::Arena> arena;
  xp::XPlane* plane = nullptr;
};

// A plane parsed without its lines (its names, metadata and stats), and where its lines are:
// each is parsed on its own (parse_line), so memory holds one line's events at a time. When the
// plane holds what the quick scan does not read (groups), `plane` holds its lines too and
// `lines` is empty.
struct PlaneParts {
  ParsedPlane header;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> lines;  // (offset, size) in the file
};

class XSpaceFile {
 public:
  // Reads and scans `path`. Throws ImportError, one sentence naming the file, when it cannot be
  // read, is empty, is an .xplane.riegeli file, is truncated, or is not an XSpace.
  explicit XSpaceFile(const std::string& path);
  ~XSpaceFile();
  XSpaceFile(const XSpaceFile&) = delete;
  XSpaceFile& operator=(const XSpaceFile&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t bytes() const { return size_; }  // protobuf bytes (inflated when gzip)
  const std::vector<std::string>& hostnames() const { return hostnames_; }
  const std::vector<std::string>& errors() const { return errors_; }      // XSpace.errors
  const std::vector<std::string>& warnings() const { return warnings_; }  // XSpace.warnings
  const std::vector<PlaneSlice>& planes() const { return planes_; }

  // Parses one plane. Throws ImportError when its bytes are not a valid XPlane.
  ParsedPlane parse(const PlaneSlice& slice) const;
  // Parses one plane but its lines; throws ImportError as parse() does.
  PlaneParts parse_parts(const PlaneSlice& slice) const;
  // Parses one line of parse_parts() into `arena`; throws ImportError for an invalid XLine.
  xp::XLine* parse_line(const PlaneSlice& slice, std::pair<std::uint64_t, std::uint64_t> line,
                        google::protobuf::Arena& arena) const;

 private:
  void scan();

  std::string path_;
  const char* data_ = nullptr;
  std::uint64_t size_ = 0;
  void* map_ = nullptr;   // the mapping of a plain file
  std::string inflated_;  // the bytes of a gzip file
  std::vector<std::string> hostnames_, errors_, warnings_;
  std::vector<PlaneSlice> planes_;
};

// A protobuf message holds at most 2 GiB - 1 bytes: no TensorFlow profile is larger.
inline constexpr std::uint64_t kMaxXSpaceBytes = 0x7fffffff;

// The chunked format of continuous profiling, which the importer does not read.
bool is_riegeli_name(std::string_view file_name);

}  // namespace ts::import
