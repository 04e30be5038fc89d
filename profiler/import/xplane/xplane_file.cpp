#include "profiler/import/xplane/xplane_file.hpp"

#include <google/protobuf/io/coded_stream.h>
#include <google/protobuf/io/zero_copy_stream_impl_lite.h>
#include <sys/mman.h>

#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>
#include <optional>

#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/import.hpp"

namespace ts::import {

namespace {

using google::protobuf::io::CodedInputStream;

std::string file_name(const std::string& path) {
  return std::filesystem::path(path).filename().string();
}

// Skips the value of a field of wire type `wire` (not 2, which the callers read themselves).
// False on groups (wire types 3 and 4: XSpace has none), unknown wire types or data that ends.
bool skip_scalar(CodedInputStream& in, std::uint32_t wire) {
  std::uint64_t v = 0;
  switch (wire) {
    case 0:
      return in.ReadVarint64(&v);
    case 1:
      return in.Skip(8);
    case 5:
      return in.Skip(4);
    default:
      return false;
  }
}

const std::uint8_t* bytes_of(const char* data) {
  return reinterpret_cast<const std::uint8_t*>(data);
}

// A varint of at most max_bytes bytes (protobuf refuses longer encodings of tags and lengths).
bool read_varint(CodedInputStream& in, int max_bytes, std::uint64_t& value) {
  const int before = in.CurrentPosition();
  return in.ReadVarint64(&value) && in.CurrentPosition() - before <= max_bytes;
}

// Whether the n bytes at p are the start of a varint that the end of the file cut.
bool cut_varint(const char* p, std::uint64_t n) {
  if (n >= 10) return false;
  for (std::uint64_t i = 0; i < n; ++i)
    if ((static_cast<unsigned char>(p[i]) & 0x80) == 0) return false;
  return true;
}

// The name (field 2; the last one, as protobuf reads a repeated singular field) of a serialised
// XPlane, read without parsing the rest; nullopt when the quick scan cannot tell (e.g. unknown
// groups), and the caller parses the plane instead.
std::optional<std::string> plane_name(const char* data, std::uint64_t size) {
  CodedInputStream in(bytes_of(data), static_cast<int>(size));
  std::string name;
  while (in.CurrentPosition() < static_cast<int>(size)) {
    const std::uint32_t tag = in.ReadTag();
    const std::uint32_t wire = tag & 7;
    if (tag == 0) return std::nullopt;
    if (wire != 2) {
      if (!skip_scalar(in, wire)) return std::nullopt;
      continue;
    }
    std::uint64_t len = 0;
    if (!in.ReadVarint64(&len) || len > size) return std::nullopt;
    if ((tag >> 3) == 2) {
      if (!in.ReadString(&name, static_cast<int>(len))) return std::nullopt;
    } else if (!in.Skip(static_cast<int>(len))) {
      return std::nullopt;
    }
  }
  return name;
}

// Whether `data` starts like a serialised XPlane: a field of XPlane with its proper wire type
// (id 1 varint, name 2 .. stats 6 length-delimited). Tells a plane cut short by the end of the
// file from bytes that are no XSpace at all.
bool looks_like_plane(const char* data, std::uint64_t available) {
  if (available == 0) return true;  // cut right after the plane's length
  const auto tag = static_cast<unsigned char>(data[0]);
  const unsigned field = tag >> 3, wire = tag & 7;
  return (field == 1 && wire == 0) || (field >= 2 && field <= 6 && wire == 2);
}

}  // namespace

bool is_riegeli_name(std::string_view name) {
  return name.ends_with(".xplane.riegeli");
}

XSpaceFile::XSpaceFile(const std::string& path) : path_(path) {
  if (is_riegeli_name(file_name(path)))
    throw ImportError(
        path +
        " is a chunked .xplane.riegeli profile (written by continuous profiling), which "
        "trainscope cannot read: capture the run with tf.profiler.experimental.start() and "
        "stop(), the Keras TensorBoard callback's profile_batch or "
        "jax.profiler.start_trace(), which write HOST.xplane.pb");
  const FileHandle file(path);
  if (file.size() == 0) throw ImportError(path + " is empty (0 bytes): not a TensorFlow profile");
  char head[2] = {};
  const bool gzip = file.read_at(0, head, 2) == 2 && is_gzip_magic(head);
  if (gzip) {
    GzipSource source(file);
    for (std::span<const char> s; !(s = source.next()).empty();) {
      if (inflated_.size() + s.size() > kMaxXSpaceBytes)
        throw ImportError(path +
                          " inflates to more than 2 GiB, more than a protobuf message "
                          "(an XSpace) can hold: not a TensorFlow profile");
      inflated_.append(s.data(), s.size());
    }
    if (source.corrupt()) throw ImportError(path + " is not valid gzip data");
    if (inflated_.empty())
      throw ImportError(path + " inflates to nothing: not a TensorFlow profile");
    data_ = inflated_.data();
    size_ = inflated_.size();
  } else {
    if (file.size() > kMaxXSpaceBytes)
      throw ImportError(path + " holds " + std::to_string(file.size()) +
                        " bytes, more than a protobuf message (an XSpace) can hold (2 GiB): "
                        "not a TensorFlow profile");
    size_ = file.size();
    map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, file.fd(), 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      throw ImportError("cannot read " + path + ": " + std::strerror(errno));
    }
    ::madvise(map_, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(map_);
  }
  scan();
}

XSpaceFile::~XSpaceFile() {
  if (map_ != nullptr) ::munmap(map_, size_);
}

// XSpace's top level: planes (1), errors (2), warnings (3), hostnames (4). Unknown fields are
// skipped (a newer TensorFlow may add some); known ones must have their wire type.
void XSpaceFile::scan() {
  CodedInputStream in(bytes_of(data_), static_cast<int>(size_));
  in.SetTotalBytesLimit(INT_MAX);
  const auto not_xspace = [&](std::uint64_t at) {
    return ImportError(path_ + " is not a TensorFlow profile (XSpace protobuf): invalid data at " +
                       "byte " + std::to_string(at));
  };
  for (;;) {
    const auto at = static_cast<std::uint64_t>(in.CurrentPosition());
    if (at == size_) break;
    // As protobuf's own parser requires: a tag is a varint of at most 5 bytes and 32 bits
    // (CodedInputStream::ReadTag would drop what lies beyond) naming a field numbered from 1.
    std::uint64_t tag = 0;
    if (!read_varint(in, 5, tag) || tag > 0xffffffffu || (tag >> 3) == 0) throw not_xspace(at);
    const auto field = static_cast<std::uint32_t>(tag >> 3);
    const auto wire = static_cast<std::uint32_t>(tag & 7);
    if (wire != 2) {
      if ((field >= 1 && field <= 4) || !skip_scalar(in, wire)) throw not_xspace(at);
      continue;
    }
    const auto truncated = [&] {
      return ImportError(path_ + " is truncated: it ends at byte " + std::to_string(size_) +
                         " inside its plane " + std::to_string(planes_.size() + 1) +
                         ", as when a profile is cut short while being written");
    };
    const auto after_tag = static_cast<std::uint64_t>(in.CurrentPosition());
    std::uint64_t len = 0;  // a length: at most 5 bytes, below 2^31
    if (!read_varint(in, 5, len) || len > kMaxXSpaceBytes) {
      if (field == 1 && cut_varint(data_ + after_tag, size_ - after_tag)) throw truncated();
      throw not_xspace(at);
    }
    const auto body = static_cast<std::uint64_t>(in.CurrentPosition());
    if (len > size_ - body) {
      if (field == 1 && looks_like_plane(data_ + body, size_ - body)) throw truncated();
      throw not_xspace(at);
    }
    const char* p = data_ + body;
    switch (field) {
      case 1: {
        PlaneSlice slice{{}, body, len, static_cast<int>(planes_.size())};
        if (const std::optional<std::string> name = plane_name(p, len)) {
          slice.name = *name;
        } else {
          try {
            slice.name = parse(slice).plane->name();
          } catch (const ImportError&) {
            // Left unnamed: parsing it again when it is read says what is wrong.
          }
        }
        planes_.push_back(std::move(slice));
        break;
      }
      case 2:
        errors_.emplace_back(p, len);
        break;
      case 3:
        warnings_.emplace_back(p, len);
        break;
      case 4:
        hostnames_.emplace_back(p, len);
        break;
      default:
        break;
    }
    in.Skip(static_cast<int>(len));
  }
  if (planes_.empty())
    throw ImportError(path_ +
                      " holds no profile planes: not a TensorFlow profile (an XSpace "
                      "with at least a /host:CPU or /device: plane)");
}

namespace {

// Parses `size` bytes at `data` into `message`, nested `depth` levels inside an XSpace (protobuf
// allows 100 levels in all).
bool parse_nested(google::protobuf::MessageLite& message, const char* data, std::uint64_t size,
                  int depth) {
  google::protobuf::io::ArrayInputStream raw(data, static_cast<int>(size));
  CodedInputStream in(&raw);
  in.SetTotalBytesLimit(INT_MAX);
  in.SetRecursionLimit(CodedInputStream::GetDefaultRecursionLimit() - depth);
  return message.ParseFromCodedStream(&in) && in.ConsumedEntireMessage();
}

}  // namespace

ParsedPlane XSpaceFile::parse(const PlaneSlice& slice) const {
  ParsedPlane out;
  out.arena = std::make_unique<google::protobuf::Arena>();
  out.plane = google::protobuf::Arena::CreateMessage<xp::XPlane>(out.arena.get());
  if (!parse_nested(*out.plane, data_ + slice.offset, slice.size, 1))
    throw ImportError(path_ + " is not a valid TensorFlow profile: its plane " +
                      std::to_string(slice.index + 1) + " does not parse as an XPlane (corrupt " +
                      "protobuf data between bytes " + std::to_string(slice.offset) + " and " +
                      std::to_string(slice.offset + slice.size) + ")");
  return out;
}

PlaneParts XSpaceFile::parse_parts(const PlaneSlice& slice) const {
  // The plane's fields in order, lines (field 3) set aside and the rest copied for protobuf to
  // parse: the same tag and length rules as the top level, and a group anywhere means the plane
  // is parsed whole instead.
  const char* p = data_ + slice.offset;
  CodedInputStream in(bytes_of(p), static_cast<int>(slice.size));
  in.SetTotalBytesLimit(INT_MAX);
  std::string rest;
  std::vector<std::pair<std::uint64_t, std::uint64_t>> lines;
  bool whole = false;
  while (!whole && in.CurrentPosition() < static_cast<int>(slice.size)) {
    const auto at = static_cast<std::uint64_t>(in.CurrentPosition());
    std::uint64_t tag = 0, len = 0;
    if (!read_varint(in, 5, tag) || tag > 0xffffffffu || (tag >> 3) == 0) {
      whole = true;  // parse() says what is wrong
      break;
    }
    const auto wire = static_cast<std::uint32_t>(tag & 7);
    if (wire != 2) {
      whole = !skip_scalar(in, wire);
    } else if (!read_varint(in, 5, len) ||
               len > slice.size - static_cast<std::uint64_t>(in.CurrentPosition())) {
      whole = true;
    } else if ((tag >> 3) == 3) {
      lines.emplace_back(slice.offset + static_cast<std::uint64_t>(in.CurrentPosition()), len);
      in.Skip(static_cast<int>(len));
      continue;
    } else {
      in.Skip(static_cast<int>(len));
    }
    rest.append(p + at,
                static_cast<std::size_t>(static_cast<std::uint64_t>(in.CurrentPosition()) - at));
  }
  PlaneParts out;
  if (whole) {
    out.header = parse(slice);
    return out;
  }
  out.header.arena = std::make_unique<google::protobuf::Arena>();
  out.header.plane = google::protobuf::Arena::CreateMessage<xp::XPlane>(out.header.arena.get());
  if (!parse_nested(*out.header.plane, rest.data(), rest.size(), 1))
    throw ImportError(path_ + " is not a valid TensorFlow profile: its plane " +
                      std::to_string(slice.index + 1) + " does not parse as an XPlane (corrupt " +
                      "protobuf data between bytes " + std::to_string(slice.offset) + " and " +
                      std::to_string(slice.offset + slice.size) + ")");
  out.lines = std::move(lines);
  return out;
}

xp::XLine* XSpaceFile::parse_line(const PlaneSlice& slice,
                                  std::pair<std::uint64_t, std::uint64_t> line,
                                  google::protobuf::Arena& arena) const {
  auto* out = google::protobuf::Arena::CreateMessage<xp::XLine>(&arena);
  if (!parse_nested(*out, data_ + line.first, line.second, 2))
    throw ImportError(path_ + " is not a valid TensorFlow profile: a line of its plane " +
                      std::to_string(slice.index + 1) + " does not parse as an XLine (corrupt " +
                      "protobuf data between bytes " + std::to_string(line.first) + " and " +
                      std::to_string(line.first + line.second) + ")");
  return out;
}

}  // namespace ts::import
