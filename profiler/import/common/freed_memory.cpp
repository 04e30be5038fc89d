#include "profiler/import/common/freed_memory.hpp"

#include <mutex>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace ts::import {

namespace {

std::mutex keeping_mutex;
int imports_keeping = 0;

#if defined(__GLIBC__)
constexpr int kLargestHeapBlock = 32 << 20;  // glibc's adaptive mmap threshold's ceiling
constexpr int kKeptWhileImporting = 1 << 30;
constexpr int kKeptAfter = 2 * kLargestHeapBlock;  // glibc's own rule: twice the mmap threshold
#endif

}  // namespace

KeepFreedMemory::KeepFreedMemory(std::uint64_t input_bytes)
    : kept_(input_bytes >= kFromInputBytes) {
  if (!kept_) return;
  const std::lock_guard lock(keeping_mutex);
  if (imports_keeping++ > 0) return;
#if defined(__GLIBC__)
  mallopt(M_MMAP_THRESHOLD, kLargestHeapBlock);
  mallopt(M_TRIM_THRESHOLD, kKeptWhileImporting);
#endif
}

KeepFreedMemory::~KeepFreedMemory() {
  if (kept_) {
    const std::lock_guard lock(keeping_mutex);
#if defined(__GLIBC__)
    if (--imports_keeping == 0) mallopt(M_TRIM_THRESHOLD, kKeptAfter);
#else
    --imports_keeping;
#endif
  }
#if defined(__GLIBC__)
  malloc_trim(0);
#endif
}

}  // namespace ts::import
