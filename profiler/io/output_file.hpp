// Writing the files a user names on the command line without ever destroying what the name
// points at, and without ever leaving a half-written file under that name:
//
//   "-"                        standard output
//   nothing, or a regular file the content goes to NAME.partial beside it, which is synced and
//                              renamed over NAME once complete
//   a symbolic link            the same for the file the link points to (the link stays)
//   anything else that exists  written to directly, never replaced: a character device
//                              (/dev/stdout, /dev/null), a FIFO, a socket
//   a directory                refused
//
// Every write, the sync and the close are checked; a failure throws json::WriteError
// ("cannot write NAME: <reason>") after removing NAME.partial.
#pragma once

#include <functional>
#include <ostream>
#include <string>

namespace ts::io {

// Writes the output `path` (as above); `write` puts the content into the stream it is given.
// An exception `write` throws propagates, after the same clean-up. Messages name the output as
// `name` ("--junit report.xml"; default: the path).
void write_output(const std::string& path, const std::function<void(std::ostream&)>& write,
                  const std::string& name = "");

// For an output that can only be a regular file (a SQLite trace, which is built under a
// temporary name and renamed): the file to create or replace, that is `path`, or the file a
// symbolic link at `path` points to. Throws json::WriteError when it exists and is not a regular
// file.
std::string regular_output_path(const std::string& path);

// Whether two outputs name the same file: the same file once symbolic links, "." and ".." are
// resolved (hard links too, when both exist).
bool same_output(const std::string& a, const std::string& b);

}  // namespace ts::io
