// Generators of the hostile inputs, each written into a scratch directory. Sizes are chosen so the
// whole suite runs in well under a minute while each case still shows how the cost scales.
#pragma once

#include <cstdint>
#include <string>

namespace ts::hostile {

// JSON text of a Kineto trace with these events (comma-separated JSON objects).
std::string kineto(const std::string& events, const std::string& top = "");
// A ProfilerStep#i annotation at ts and an aten::add inside it, as one JSON fragment.
std::string step_and_op(std::int64_t i, std::int64_t ts_us, std::int64_t step_us);

void write_text(const std::string& path, const std::string& text);
void write_gzip(const std::string& path, const std::string& text);
// A gzip file of `prefix`, then `repeat` MiB of byte `fill`, then `suffix` (made in a moment:
// each MiB is the same gzip member, about 1 KiB).
void write_gzip_bomb(const std::string& path, const std::string& prefix, char fill, int repeat,
                     const std::string& suffix);
// The inflated text of a gzip file (a fixture of tests/data).
std::string read_gzip(const std::string& path);
// Sets meta key = value in a trainscope trace (SQLite).
void set_meta(const std::string& trace, const std::string& key, const std::string& value);
// Runs SQL statements on a trace as the sqlite3 shell would (an edit made behind trainscope's
// back); throws std::runtime_error with SQLite's message when one fails.
void exec_sql(const std::string& trace, const std::string& statements);

}  // namespace ts::hostile
