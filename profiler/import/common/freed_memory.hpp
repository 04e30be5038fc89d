// While a large import runs, the memory it frees stays with the allocator for its next file
// instead of going back to the system at once. A job's import allocates and frees about half a
// file's size again (the parsed events, their rows, the batches between threads); memory handed
// back is faulted in and zeroed again at its next use: on the 10.9 GB job, 1.06 M page faults and
// 2 s of system time, against 0.23 M with this. With glibc, the thresholds at which free() trims
// the heap and malloc() maps a block of its own (mallopt) are raised while at least one such
// import runs; when the last one ends they are set to what glibc's adaptive thresholds reach on
// their own (a block of up to 32 MiB from the heap). Every import, large or not, hands back what
// it freed at its end (malloc_trim): the parse's memory, held in the arenas of its threads, would
// otherwise stay under the analysis that usually follows (3.6 M tiny steps: 210 MB). Elsewhere
// than glibc it does nothing.
#pragma once

#include <cstdint>

namespace ts::import {

class KeepFreedMemory {
 public:
  // Imports of less JSON than this keep nothing: their blocks stay under glibc's own thresholds
  // (256 files of 2 MB: the same time, 50-70 MB more memory if kept).
  static constexpr std::uint64_t kFromInputBytes = std::uint64_t{1} << 30;

  explicit KeepFreedMemory(std::uint64_t input_bytes);
  ~KeepFreedMemory();
  KeepFreedMemory(const KeepFreedMemory&) = delete;
  KeepFreedMemory& operator=(const KeepFreedMemory&) = delete;

 private:
  bool kept_;
};

}  // namespace ts::import
