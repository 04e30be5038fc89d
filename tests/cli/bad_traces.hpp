// Damaged and foreign trace files, made from a sample trace in traces/, for the tests that feed
// them to every command: each must give one line on stderr and exit 2, never crash.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "profiler/store/writer.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::test {

// (what it is, path) for every kind of bad input; the files live in `dir`.
inline std::vector<std::pair<std::string, std::string>> bad_traces(const TempDir& dir) {
  const std::string good = read_file("traces/input_bound.db");
  std::vector<std::pair<std::string, std::string>> out;
  const auto add = [&](const std::string& what, const std::string& bytes) {
    const std::string path = dir.file(what + ".db");
    write_file(path, bytes);
    out.emplace_back(what, path);
  };
  add("text_file", "step,loss\n1,0.52\n2,0.47\n");
  // A web page saved under a trace's name (a download that got the login page): judged by its
  // content, not its extension.
  out.emplace_back("html_json", dir.file("html_page.json"));
  write_file(out.back().second, "\n<!DOCTYPE html>\n<html><body>Sign in</body></html>\n");
  add("empty_file", "");
  add("truncated", good.substr(0, good.size() / 2));
  add("truncated_header", good.substr(0, 50));
  std::string corrupt = good;
  for (std::size_t i = 8192; i < corrupt.size(); ++i) corrupt[i] = '\x5a';
  add("corrupt", corrupt);
  add("newer_schema", good);
  exec_rw(out.back().second, "PRAGMA user_version = 99;");
  add("other_sqlite_db", "");
  exec_rw(out.back().second, "CREATE TABLE t(x); INSERT INTO t VALUES (1);");
  {
    const std::string path = dir.file("no_events.db");
    store::Writer w(path);
    w.put_track(1, "main", trace::TrackKind::thread);
    w.put_meta("engine.model", "mlp");
    w.finish();
    out.emplace_back("no_events", path);
  }
  out.emplace_back("missing", dir.file("does_not_exist.db"));
  return out;
}

}  // namespace ts::test
