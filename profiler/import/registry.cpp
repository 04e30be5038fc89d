#include "profiler/import/registry.hpp"

#include <array>

#include "profiler/import/chrome/chrome_reader.hpp"
#include "profiler/import/xplane/xplane_reader.hpp"

namespace ts::import {

std::span<const TraceReader> trace_readers() {
  // One row per format (README.md, "Adding a format"). TensorFlow profiles come before JSON:
  // a TensorBoard log directory may hold stray *.json files beside plugins/profile. The JSON
  // reader, which takes any Chrome trace-event file, is last.
  static const std::array<TraceReader, 2> kReaders = {
      xplane_reader(),
      chrome_reader(),
  };
  return kReaders;
}

const TraceReader& reader_for(const std::string& path) {
  const std::span<const TraceReader> readers = trace_readers();
  for (const TraceReader& r : readers)
    if (r.sniff(path)) return r;
  return readers.back();
}

}  // namespace ts::import
