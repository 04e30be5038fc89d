// What identifies the content of an imported trace's sources without reading them: each trace
// file's path, size and modification time (a directory: every file in it that an import reads).
// An import cached under one fingerprint is reused while the fingerprint is unchanged.
#pragma once

#include <string>

namespace ts::import {

// The fingerprint of `path` (a file or a directory of trace files) imported with `options_key`
// (the import options that change the result, e.g. the step marker). Empty when the path cannot
// be read.
std::string source_fingerprint(const std::string& path, const std::string& options_key);

}  // namespace ts::import
