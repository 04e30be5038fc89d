// libFuzzer harness for the kept analysis's decoder (profiler/analysis/report_codec.hpp): the input
// is a sequence of parts, each a 4-byte little-endian length and that many bytes (a shorter last
// part takes what is left), fed to ReportDecoder as a trace's `analysis` rows would be. A report
// it accepts goes through the text and JSON reports and is encoded again, and that encoding must
// decode to the same encoding. A crash, a sanitizer report, an exception, a hang or a huge
// allocation is a finding. Built by fuzz/CMakeLists.txt (clang, -fsanitize=fuzzer) and, as a
// regression test over the corpus, by tests/profiler/CMakeLists.txt (any compiler).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "profiler/analysis/report_codec.hpp"

namespace {

std::vector<std::string_view> parts_of(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string_view> parts;
  const char* p = reinterpret_cast<const char*>(data);
  std::size_t left = size;
  while (left >= 4) {
    std::uint32_t n = 0;
    std::memcpy(&n, p, 4);  // little-endian hosts only: any split will do
    p += 4;
    left -= 4;
    const std::size_t take = std::min<std::size_t>(n, left);
    parts.emplace_back(p, take);
    p += take;
    left -= take;
  }
  return parts;
}

std::optional<ts::analysis::Report> decode(const std::vector<std::string>& parts) {
  std::uint64_t all = 0;
  for (const std::string& part : parts) all += part.size();
  ts::analysis::ReportDecoder decoder;
  for (const std::string& part : parts)
    if (!decoder.add(part, all)) return std::nullopt;
  return decoder.finish();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::vector<std::string_view> parts = parts_of(data, size);
  std::uint64_t all = 0;
  for (const std::string_view part : parts) all += part.size();
  ts::analysis::ReportDecoder decoder;
  for (const std::string_view part : parts)
    if (!decoder.add(part, all)) return 0;
  const std::optional<ts::analysis::Report> report = decoder.finish();
  if (!report) return 0;
  const std::size_t printed =
      ts::analysis::to_json(*report).size() + ts::analysis::to_text(*report).size();
  if (printed == 0) std::abort();  // a report always says something
  // What this build encodes, it decodes to the same encoding.
  const std::vector<std::string> again = ts::analysis::encode_report(*report);
  const std::optional<ts::analysis::Report> back = decode(again);
  if (!back || ts::analysis::encode_report(*back) != again) std::abort();
  return 0;
}
