// Where trainscope keeps what it derives from a user's files: the per-user cache directory and
// stable file names in it.
#pragma once

#include <string>

namespace ts::import {

// `override_dir` when set, else $XDG_CACHE_HOME/trainscope, ~/.cache/trainscope, or
// /tmp/trainscope-cache-UID when there is no home.
std::string user_cache_dir(const std::string& override_dir = {});

// FNV-1a, 64 bits, in hex: a stable file name for a string (an absolute path).
std::string path_hash(const std::string& s);

}  // namespace ts::import
