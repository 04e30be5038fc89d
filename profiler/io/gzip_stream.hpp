// A std::ostream that writes gzip (RFC 1952) to another stream, compressing on a thread of its
// own: the writer fills a block while the previous one is deflated, so an export compressed
// costs about what the slower of the two costs, not their sum (Perfetto UI opens .json.gz).
#pragma once

#include <memory>
#include <ostream>

namespace ts::io {

class GzipOstream : public std::ostream {
 public:
  // `level`: zlib's compression level (1 fastest .. 9 smallest).
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
