// Damaged and hostile input: what is valid is imported, what is not is counted by reason, and
// input that is no trace at all is one ImportError naming the file.
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "profiler/import/chrome/parse_file.hpp"
#include "tests/profiler/import/import_test_util.hpp"

namespace ts::import {
namespace {

using test::ImportDir;
using test::x_event;

std::string three_events() {
  return test::kineto_trace({x_event("cpu_op", "first", 1, 1, "10", "5"),
                             x_event("cpu_op", "second", 1, 1, "20", "5"),
                             x_event("cpu_op", "third", 1, 1, "30", "5")});
}

// The ImportError of importing `text`, "" when it imports.
std::string error_of(const ImportDir& dir, const std::string& text,
                     const std::string& name = "bad.json") {
  try {
    test::import_text(dir, text, {}, name);
  } catch (const ImportError& e) {
    return e.what();
  }
  return "";
}

TEST(ImportBadInput, CutOffMidEventKeepsTheEventsBefore) {
  ImportDir dir;
  const std::string full = three_events();
  const std::string cut = full.substr(0, full.find("third") + 3);  // inside the third event
  const ImportStats stats = test::import_text(dir, cut);
  EXPECT_EQ(stats.skipped.at("truncated_file"), 1u);
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].name, "first");
  EXPECT_EQ(ev[1].name, "second");
  EXPECT_EQ(r.meta("import.skipped.truncated_file"), "1");
}

TEST(ImportBadInput, EveryCutImportsWhatCameBefore) {
  const std::string first = x_event("cpu_op", "first", 1, 1, "10", "5");
  const std::string full = test::kineto_trace({first, x_event("cpu_op", "second", 1, 1, "20", "5"),
                                               x_event("cpu_op", "third", 1, 1, "30", "5")});
  const std::size_t first_end = full.find(first) + first.size();
  std::size_t last = 0;
  for (std::size_t n = 1; n < full.size(); n += 3) {
    ImportDir dir;
    const std::string error = error_of(dir, full.substr(0, n));
    if (n < first_end) {  // no complete event: not a trace
      EXPECT_NE(error.find(dir.file("bad.json")), std::string::npos)
          << "cut at " << n << ": " << error;
      continue;
    }
    ASSERT_EQ(error, "") << "cut at " << n;
    store::Reader r(dir.file("out.db"));
    const std::size_t events = test::all_events(r).size();
    EXPECT_GE(events, std::max<std::size_t>(last, 1)) << "cut at " << n;
    last = events;
    EXPECT_EQ(r.meta("import.skipped.truncated_file"), "1") << "cut at " << n;
  }
  EXPECT_EQ(last, 3u);  // cut after the last event, before "]}"
}

TEST(ImportBadInput, UnterminatedBareArrayIsComplete) {
  ImportDir dir;
  const ImportStats stats =
      test::import_text(dir, "[" + x_event("cpu_op", "a", 1, 1, "1", "1") + ",\n" +
                                 x_event("cpu_op", "b", 1, 1, "2", "1") + ",\n");
  EXPECT_EQ(stats.events_written, 2u);
  EXPECT_EQ(stats.skipped.count("truncated_file"), 0u);
}

TEST(ImportBadInput, InvalidUtf8AndControlCharactersAreRepaired) {
  ImportDir dir;
  test::import_text(
      dir, test::kineto_trace({x_event("cpu_op", "bad\xff\xfe utf8 \xe2\x82", 1, 1, "1", "1"),
                               x_event("cpu_op", "tab\\there\\u0000nul\\u0007", 1, 1, "2", "1"),
                               x_event("cpu_op", "caf\xc3\xa9 \\u00e9", 1, 1, "3", "1")}));
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[0].name, "bad\xEF\xBF\xBD\xEF\xBF\xBD utf8 \xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(ev[1].name, "tab?here?nul?");
  EXPECT_EQ(ev[2].name, "caf\xc3\xa9 \xc3\xa9");
}

TEST(ImportBadInput, NanInfinityAndBadTimes) {
  ImportDir dir;
  const ImportStats stats = test::import_text(
      dir, test::kineto_trace({
               x_event("cpu_op", "ok", 1, 1, "10", "1"),
               x_event("cpu_op", "nan ts", 1, 1, "NaN", "1"),
               x_event("cpu_op", "inf dur", 1, 1, "11", "Infinity"),
               x_event("cpu_op", "neg dur", 1, 1, "12", "-3"),
               x_event("cpu_op", "huge ts", 1, 1, "1e300", "1"),
               x_event("cpu_op", "beyond 2^61", 1, 1, "2400000000000000", "1"),
               x_event("cpu_op", "string ts", 1, 1, "\"12x\"", "1"),
               x_event("cpu_op", "negative ts", 1, 1, "-5", "1"),
               "{\"ph\":\"X\",\"name\":\"no dur\",\"pid\":1,\"tid\":1,\"ts\":13}",
               "{\"ph\":\"X\",\"name\":\"no ts\",\"pid\":1,\"tid\":1,\"dur\":13}",
               "{\"name\":\"no ph\",\"pid\":1,\"tid\":1,\"ts\":13}",
               "{\"ph\":\"Z\",\"name\":\"unknown ph\",\"pid\":1,\"tid\":1,\"ts\":13}",
               "{\"ph\":\"Xylophone\",\"name\":\"long ph\",\"pid\":1,\"tid\":1,\"ts\":13}",
               "[1,2]",
               "42",
               "null",
               "{\"ph\":\"X\",\"name\":\"string "
               "pid\",\"pid\":\"Spans\",\"tid\":\"x\",\"ts\":14,\"dur\":1}",
           }));
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  std::set<std::string> names;
  for (const auto& e : ev) names.insert(e.name);
  EXPECT_EQ(names, (std::set<std::string>{"ok", "negative ts", "string pid"}));
  EXPECT_EQ(test::find_event(ev, "negative ts")->e.start_ns, -5000);
  EXPECT_EQ(stats.skipped.at("invalid_timestamp"), 4u);  // NaN, 1e300, 2.4e15 us, "12x"
  EXPECT_EQ(stats.skipped.at("invalid_duration"), 1u);
  EXPECT_EQ(stats.skipped.at("negative_duration"), 1u);
  EXPECT_EQ(stats.skipped.at("missing_duration"), 1u);
  EXPECT_EQ(stats.skipped.at("missing_timestamp"), 1u);
  EXPECT_EQ(stats.skipped.at("missing_phase"), 1u);
  EXPECT_EQ(stats.skipped.at("unknown_phase"), 2u);
  EXPECT_EQ(stats.skipped.at("not_an_object"), 3u);
  EXPECT_EQ(stats.events_read, 17u);
  EXPECT_EQ(test::find_event(ev, "string pid")->track, "pid Spans tid x");
}

TEST(ImportBadInput, DeepNestingStopsTheParseButKeepsWhatCameBefore) {
  ImportDir dir;
  std::string deep =
      "{\"ph\":\"X\",\"name\":\"deep\",\"pid\":1,\"tid\":1,\"ts\":40,\"dur\":1,\"args\":";
  for (int i = 0; i < 100000; ++i) deep += "[";
  const ImportStats stats = test::import_text(
      dir, test::kineto_trace({x_event("cpu_op", "before", 1, 1, "1", "1"), deep}));
  EXPECT_EQ(stats.skipped.at("nesting_too_deep"), 1u);
  EXPECT_EQ(stats.events_written, 1u);
}

TEST(ImportBadInput, SyntaxErrorAfterSomeEvents) {
  ImportDir dir;
  std::string t = three_events();
  t.insert(t.find("{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"third\""), "garbage ");
  const ImportStats stats = test::import_text(dir, t);
  EXPECT_EQ(stats.skipped.at("syntax_error"), 1u);
  EXPECT_EQ(stats.events_written, 2u);
  store::Reader r(dir.file("out.db"));
  EXPECT_NE(r.meta("import.error").value_or("").find("at byte"), std::string::npos);
}

TEST(ImportBadInput, GiganticNamesAreCut) {
  ImportDir dir;
  std::string name(40000, 'k');
  name.replace(16382, 3, "\xe2\x82\xac");  // a 3-byte character across the 16 KiB cut
  const ImportStats stats =
      test::import_text(dir, test::kineto_trace({x_event("kernel", name, 0, 7, "1", "1")}));
  EXPECT_EQ(stats.skipped.at("name_truncated"), 1u);
  store::Reader r(dir.file("out.db"));
  const auto ev = test::all_events(r);
  ASSERT_EQ(ev.size(), 1u);
  EXPECT_EQ(ev[0].name, std::string(16382, 'k'));  // cut before the character, not inside it
}

TEST(ImportBadInput, NotATraceIsAnError) {
  ImportDir dir;
  const std::string file = dir.file("bad.json");
  for (const std::string& text :
       {std::string(""), std::string("   \n"), std::string("hello"),
        std::string("\x7f"
                    "ELF"),
        std::string("{\"a\":1}"), std::string("{\"traceEvents\":[]}"), std::string("[]"),
        std::string("42"), std::string("{\"traceEvents\":{}}"),
        std::string("{\"traceEvents\": [ tru"), std::string("{\"traceEvents\":")}) {
    const std::string e = error_of(dir, text);
    EXPECT_NE(e, "") << "imported: " << text;
    EXPECT_NE(e.find(file), std::string::npos) << e;
    EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.partial")));
  }
  const std::vector<std::string> missing{dir.file("missing.json")};
  EXPECT_THROW(import_traces(missing, dir.file("out.db")), ImportError);
  // Gzip that inflates to nothing useful, and corrupt gzip.
  EXPECT_NE(error_of(dir, std::string("\x1f\x8b\x08\x00garbage", 11)).find("gzip"),
            std::string::npos);
}

TEST(ImportBadInput, DirectoriesWithoutTraces) {
  ImportDir dir;
  std::filesystem::create_directory(dir.file("empty"));
  std::filesystem::create_directory(dir.file("other"));
  dir.write("other/notes.txt", "hello");
  for (const std::string& d : {dir.file("empty"), dir.file("other")}) {
    const std::vector<std::string> src{d};
    try {
      import_traces(src, dir.file("out.db"));
      ADD_FAILURE() << d;
    } catch (const ImportError& e) {
      EXPECT_NE(std::string(e.what()).find(d), std::string::npos) << e.what();
    }
  }
}

TEST(ImportBadInput, RefusesToReplaceAFileThatIsNotATrace) {
  ImportDir dir;
  dir.write("precious.db", "my thesis");
  const std::vector<std::string> src{dir.write("t.json", three_events())};
  EXPECT_THROW(import_traces(src, dir.file("precious.db")), ImportError);
  std::ifstream in(dir.file("precious.db"));
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(content, "my thesis");
  // An earlier trace is replaced, and what its journals left is not replayed into the new one.
  import_traces(src, dir.file("out.db"));
  dir.write("out.db-journal", std::string(4096, 'j'));
  dir.write("out.db-wal", std::string(4096, 'w'));
  import_traces(src, dir.file("out.db"));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db-journal")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db-wal")));
  EXPECT_EQ(test::all_events(store::Reader(dir.file("out.db"))).size(), 3u);
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.partial")));
  EXPECT_THROW(import_traces(src, dir.file("no/such/dir/out.db")), ImportError);
}

TEST(ImportBadInput, GzipCutShortOrCorrupt) {
  ImportDir dir;
  // Incompressible padding after the events: the middle of the gzip data lies in it.
  std::string pad;
  std::uint32_t x = 12345;
  for (int i = 0; i < 200000; ++i) {
    x = x * 1103515245u + 12345u;
    pad += static_cast<char>('a' + (x >> 16) % 26);
  }
  std::string text = three_events();
  text.insert(text.size() - 1, ",\"pad\":\"" + pad + "\"");
  const std::string gz = dir.write_gz("t.json.gz", text);
  std::string bytes;
  {
    std::ifstream in(gz, std::ios::binary);
    bytes.assign((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }
  // Cut before the end of the deflate stream: the JSON ends early.
  const std::vector<std::string> cut{dir.write("cut.json.gz", bytes.substr(0, bytes.size() / 2))};
  const ImportStats s1 = import_traces(cut, dir.file("a.db"));
  EXPECT_EQ(s1.events_written, 3u);
  EXPECT_EQ(s1.skipped.at("truncated_file"), 1u);
  // Corrupt deflate data after the events.
  std::string corrupt = bytes;
  for (std::size_t i = bytes.size() / 2; i < bytes.size() / 2 + 8; ++i)
    corrupt[i] = static_cast<char>(0xff);
  const std::vector<std::string> bad{dir.write("bad.json.gz", corrupt)};
  const ImportStats s2 = import_traces(bad, dir.file("b.db"));
  EXPECT_EQ(s2.events_written, 3u);
  EXPECT_EQ(s2.skipped.at("gzip_error"), 1u);
}

// 40 events, the sixth holding `bad` (a number RapidJSON cannot hold in a double) as `where`.
std::string forty_events_one_too_big(const std::string& bad, const std::string& where) {
  std::vector<std::string> events;
  for (int i = 0; i < 40; ++i) {
    const std::string ts = std::to_string(10 * (i + 1));
    if (i != 5) {
      events.push_back(x_event("cpu_op", "op" + std::to_string(i), 1, 1, ts, "5"));
    } else if (where == "dur") {
      events.push_back(x_event("cpu_op", "op5", 1, 1, ts, bad));
    } else {  // deep in args, after nested containers holding braces in strings
      events.push_back(x_event("cpu_op", "op5", 1, 1, ts, "5",
                               "{\"a\":[{\"s\":\"}]\\\"{\"},[" + bad + ",{\"x\":1}]],\"b\":2}"));
    }
  }
  return test::kineto_trace(events);
}

TEST(ImportBadInput, NumberTooBigSkipsItsEventOnly) {
  const std::string big_int = "1" + std::string(400, '0');
  for (const std::string& bad : {std::string("1e999"), big_int, std::string("-1e400")}) {
    for (const std::string where : {"dur", "args"}) {
      const std::string text = forty_events_one_too_big(bad, where);
      ImportDir dir;
      for (const bool gzip : {false, true}) {
        const std::vector<std::string> src{gzip ? dir.write_gz("t.json.gz", text)
                                                : dir.write("t.json", text)};
        const ImportStats s = import_traces(src, dir.file(gzip ? "g.db" : "p.db"));
        EXPECT_EQ(s.events_written, 39u) << bad << " in " << where << (gzip ? " gzip" : "");
        EXPECT_EQ(s.events_read, 40u);
        EXPECT_EQ(s.skipped.at("number_out_of_range"), 1u);
        EXPECT_EQ(s.skipped.count("syntax_error"), 0u);
      }
      // Parsed in parts of 64 bytes: the same events as one part.
      const std::string path = dir.write("t.json", text);
      const ParsedFile one = parse_file(path, 1);
      for (const std::uint64_t part : {64ull, 300ull}) {
        const ParsedFile many = parse_file(path, 4, part);
        EXPECT_EQ(many.events_read, one.events_read) << part;
        EXPECT_EQ(many.skipped[Skip::number_out_of_range], 1u) << part;
        EXPECT_EQ(many.end, ParseEnd::complete) << part;
      }
    }
  }
}

TEST(ImportBadInput, NumberTooBigAsAnElementOrInABareArray) {
  ImportDir dir;
  const std::string a = x_event("cpu_op", "a", 1, 1, "10", "5");
  const std::string b = x_event("cpu_op", "b", 1, 1, "20", "5");
  const ImportStats s1 = test::import_text(dir, "[" + a + ", 1e999 ,\n" + b + "]");
  EXPECT_EQ(s1.events_written, 2u);
  EXPECT_EQ(s1.skipped.at("number_out_of_range"), 1u);
  // The number cut short by the end of the file: what came before is kept.
  const ImportStats s2 = test::import_text(
      dir, "{\"traceEvents\":[" + a + "," + x_event("cpu_op", "b", 1, 1, "20", "1e999"));
  EXPECT_EQ(s2.events_written, 1u);
  EXPECT_EQ(s2.skipped.at("number_out_of_range"), 1u);
}

TEST(ImportBadInput, AStrayEventFarFromTheRestMovesTheKeyOrigin) {
  // A PyTorch trace in epoch microseconds with one event at ts 0: the stray is the one left out.
  std::vector<std::string> events{x_event("cpu_op", "stray", 1, 1, "0", "1")};
  for (int i = 0; i < 300; ++i)
    events.push_back(
        x_event("cpu_op", "op", 1, 1, std::to_string(1712195495519689LL + i * 10), "5"));
  ImportDir dir;
  const ImportStats s = test::import_text(dir, test::kineto_trace(events));
  EXPECT_EQ(s.events_written, 300u);
  EXPECT_EQ(s.skipped.at("out_of_key_range"), 1u);
  EXPECT_EQ(lost_share_error("t.json", s), "");
  store::Reader r(dir.file("out.db"));
  EXPECT_EQ(r.meta("clock.origin_ns"), "1712195495519689000");
  // Three early events, then 70 h later one event ("before"), 30 h after it five, and 35 h
  // after those one more: the origin that keys the most is the first of the five (the early
  // three are too far from it), and "before", 30 h earlier, is written last but kept.
  std::vector<std::string> two;
  const long long h = 3600LL * 1000 * 1000;  // microseconds
  for (int i = 0; i < 3; ++i)
    two.push_back(x_event("cpu_op", "early", 1, 1, std::to_string(i), "1"));
  two.push_back(x_event("cpu_op", "before", 1, 1, std::to_string(70 * h), "1"));
  for (int i = 0; i < 5; ++i)
    two.push_back(x_event("cpu_op", "late", 1, 1, std::to_string(100 * h + i), "1"));
  two.push_back(x_event("cpu_op", "after", 1, 1, std::to_string(135 * h), "1"));
  ImportDir dir2;
  const ImportStats s2 = test::import_text(dir2, test::kineto_trace(two));
  EXPECT_EQ(s2.events_written, 7u);
  EXPECT_EQ(s2.skipped.at("out_of_key_range"), 3u);
  store::Reader r2(dir2.file("out.db"));
  const auto ev = test::all_events(r2);
  ASSERT_EQ(ev.size(), 7u);
  EXPECT_EQ(ev.front().name, "before");
}

TEST(ImportBadInput, LosingMoreThanOnePercentFailsUnlessPartialIsAllowed) {
  std::vector<std::string> events;
  for (int i = 0; i < 50; ++i)
    events.push_back(
        x_event("cpu_op", "op", 1, 1, std::to_string(10 * (i + 1)), i < 2 ? "-3" : "5"));
  ImportDir dir;
  ImportOptions strict;
  strict.allow_partial = false;
  try {
    test::import_text(dir, test::kineto_trace(events), strict, "neg.json");
    ADD_FAILURE() << "a 4 % loss imported";
  } catch (const ImportError& e) {
    const std::string m = e.what();
    EXPECT_NE(
        m.find("neg.json: 4.0 % of its 50 events could not be imported (2 negative_duration)"),
        std::string::npos)
        << m;
    EXPECT_NE(m.find("--allow-partial"), std::string::npos) << m;
  }
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db")));
  EXPECT_FALSE(std::filesystem::exists(dir.file("out.db.partial")));
  // Allowed: imported, the skips counted.
  const ImportStats s = test::import_text(dir, test::kineto_trace(events), {}, "neg.json");
  EXPECT_EQ(s.events_written, 48u);
  // Left out by design (instants, flows, duplicates) is no loss.
  ImportStats by_design;
  by_design.events_read = 10;
  by_design.skipped = {{"instant_event", 5}, {"flow", 3}, {"duplicate", 1}};
  EXPECT_EQ(lost_share_error("x", by_design), "");
  ImportStats one_percent;
  one_percent.events_read = 100;
  one_percent.skipped = {{"unpaired_end", 1}};
  EXPECT_EQ(lost_share_error("x", one_percent), "");
}

}  // namespace
}  // namespace ts::import
