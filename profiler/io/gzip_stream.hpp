// A std::ostream that writes gzip (RFC 1952, one member) to another stream, compressing on a
// thread of its own: the writer fills a block while the previous one is deflated, so an export
// compressed costs about what the slower of the two costs, not their sum (Perfetto UI opens
// .json.gz). Deflated by ISA-L's igzip (Debian's libisal-dev), which takes the 2 GB of JSON of
// 10 M events at level 1 in a fraction of zlib's time at its level 1, into fewer bytes.
#pragma once

#include <memory>
#include <ostream>

namespace ts::io {

class GzipOstream : public std::ostream {
 public:
  // `level`: igzip's compression level (0 fastest .. 3 smallest); json::WriteError for another.
  explicit GzipOstream(std::ostream& sink, int level = 1);
  ~GzipOstream() override;  // finishes, ignoring errors: call finish() to see them
  GzipOstream(const GzipOstream&) = delete;
  GzipOstream& operator=(const GzipOstream&) = delete;

  // Compresses what is left, writes the gzip trailer and flushes the sink. Throws
  // json::WriteError when compressing or writing failed.
  void finish();

 private:
  class Buffer;
  std::unique_ptr<Buffer> buffer_;
};

// Whether an output name asks for gzip: it ends in ".gz".
bool gzip_output_name(const std::string& path);

}  // namespace ts::io
