// What identifies the content of an imported trace's sources: each trace file's path, size and
// a hash of all its bytes, taken in blocks (profiler/import/common/source_digests.hpp; a
// directory: every file in it that an import reads). An import cached under one fingerprint is
// reused while the fingerprint is unchanged: a source replaced by another of the same size and
// time, or a cache made from another source, never passes for it.
//
// Hashing the whole file, not sampled blocks: one changed number in a JSON trace changes the
// analysis, and a sample would miss it. It costs little beside an import: about 0.3 s a GB on
// one core from the page cache (the same as reading the file), the blocks on every core, where
// importing a JSON trace parses it at under 1 GB a second, and a compressed trace hashes its
// compressed bytes. After an import, only what it did not read is read again: the import takes
// the digests of the blocks it reads whole as it parses them.
#pragma once

#include <string>

#include "profiler/import/common/source_digests.hpp"

namespace ts::import {

// The fingerprint of `path` (a file or a directory of trace files) imported with `options_key`
// (the import options that change the result, e.g. the step marker). Empty when the path cannot
// be read. taken: the digests an import of the same files took as it read them (blocks of
// taken->block_bytes(); the same files: device, inode and size); the blocks it lacks are read.
std::string source_fingerprint(const std::string& path, const std::string& options_key,
                               const SourceDigests* taken = nullptr);

// What tells whether the files of `path` changed between two moments, for the price of a stat
// of each: its files' paths, sizes, modification and change times and inode numbers. Every
// write to a file moves its change time, which no user can set back, so a source whose state
// is the same before and after an import (and its fingerprint) was not written in between. (A
// kernel without fine-grained file times moves it a clock tick, a few ms, at a time: a rewrite
// of the same size within the tick of the write before the import began would pass unseen, a
// file being rewritten as the import starts.) Empty when the path cannot be read.
std::string source_state(const std::string& path);

}  // namespace ts::import
