// libFuzzer harness for the import's gzip reading (GzipSource, ISA-L's inflate), checked against
// zlib on the same bytes: where zlib inflates every member cleanly (a CRC and size checked per
// member, what follows the last that is no member ignored), GzipSource must give exactly the same
// bytes and not call them corrupt; on any input, the two must agree on every byte both give
// (they decode the same deflate stream until one of them finds it damaged). Nothing may crash,
// hang or leak. Built by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and, as a regression
// test over its corpus, by tests/profiler/import/CMakeLists.txt (any compiler).
#include <zlib.h>

#include <cstdint>
#include <cstdlib>
#include <string>

#include "profiler/import/common/byte_source.hpp"
#include "profiler/import/import.hpp"
#include "read_imported.hpp"
#include "scratch_dir.hpp"

namespace {

struct Inflated {
  std::string bytes;
  bool clean = false;  // every member ended with its trailer checked
};

// zlib's reading of the members, as the import read them before ISA-L.
Inflated zlib_inflate(const std::uint8_t* data, std::size_t size) {
  Inflated out;
  z_stream z{};
  if (inflateInit2(&z, 15 + 16) != Z_OK) std::abort();
  z.next_in = const_cast<Bytef*>(data);
  z.avail_in = static_cast<uInt>(size);
  char buf[16384];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof buf;
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.bytes.append(buf, sizeof buf - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in >= 2 && z.next_in[0] == 0x1f && z.next_in[1] == 0x8b) {
        inflateReset(&z);
        continue;
      }
      out.clean = true;
      break;
    }
    if (rc != Z_OK) break;  // damaged, or cut short (no progress possible)
  }
  inflateEnd(&z);
  return out;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // GzipSource reads files that start as gzip does; the sniffing sends no other there.
  if (size < 2 || data[0] != 0x1f || data[1] != 0x8b) return 0;
  const std::string path = ts::fuzz::scratch_dir("fuzz_gzip_source") + "/in.json.gz";
  ts::fuzz::write_input(path, data, size);
  std::string got;
  bool corrupt = false;
  try {
    const ts::import::FileHandle file(path);
    ts::import::GzipSource source(file);
    for (std::span<const char> s = source.next(); !s.empty(); s = source.next())
      got.append(s.data(), s.size());
    corrupt = source.corrupt();
  } catch (const ts::import::ImportError&) {
    return 0;  // past the inflate limits: refused in one sentence
  }
  const Inflated ref = zlib_inflate(data, size);
  const std::size_t common = std::min(got.size(), ref.bytes.size());
  if (got.compare(0, common, ref.bytes, 0, common) != 0) std::abort();
  if (ref.clean && (got != ref.bytes || corrupt)) std::abort();
  return 0;
}
