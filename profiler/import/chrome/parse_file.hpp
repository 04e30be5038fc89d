// Parses one trace file (plain or gzip, sniffed by its magic bytes) into a ParsedFile.
//
// A gzip file is inflated on a second thread while this one parses. A large plain file is cut
// into parts parsed in parallel: each cut is guessed at what looks like the start of an event in
// the traceEvents array ("}, {\""), the part after it is parsed behind a synthetic prefix
// ('{"traceEvents":[' or '['), and the guess is confirmed only when the part before it, parsed
// up to exactly that byte, ends between two events of its traceEvents array. A wrong guess (the
// bytes were inside a string, or inside an event's args) is never confirmed: the file is then
// parsed again in one part, so the result is always what a sequential parse gives.
#pragma once

#include <cstdint>
#include <string>

#include "profiler/import/chrome/raw_event.hpp"
#include "profiler/import/common/source_digests.hpp"

namespace ts::import {

inline constexpr std::uint64_t kMinPartBytes = std::uint64_t{16} << 20;

// How the elements of traceEvents are read: each through EventScan where it takes it, else
// RapidJSON (event_scan.hpp; the import's way), or every one by RapidJSON, what the first must
// always equal (its tests and fuzz harness compare the two).
enum class ElementReading : std::uint8_t { scan_plain, rapidjson_only };

// digests: where the digests of the file's blocks go as they are read (source_digests.hpp), for
// the import cache's fingerprint; null for none.
// threads: the most parts to parse in parallel (1: sequential), each of min_part_bytes at least
// (smaller in tests, to split small files). Throws ImportError, one sentence
// naming the file, when it cannot be read or holds no trace events (empty, not JSON, a JSON
// value without a traceEvents array). A file that is cut short or turns invalid after some
// events is not an error: ParsedFile::end says how the parse ended.
ParsedFile parse_file(const std::string& path, int threads,
                      std::uint64_t min_part_bytes = kMinPartBytes,
                      ElementReading reading = ElementReading::scan_plain,
                      SourceDigests* digests = nullptr);

}  // namespace ts::import
