// The timeline's data: the summary scan, range loading of exact windows (with its cap), the
// window cache and search by name, all checked against the reader.
#include <sqlite3.h>

#include <QFile>
#include <QSignalSpy>
#include <QtTest>
#include <atomic>
#include <bit>
#include <optional>
#include <set>
#include <span>

#include "gui/models/event_search.hpp"
#include "gui/models/event_window.hpp"
#include "gui/models/initial_view.hpp"
#include "gui/models/live_summary.hpp"
#include "gui/models/step_index.hpp"
#include "gui/models/summary_builder.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/window_cache.hpp"
#include "gui_test_util.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "tests/profiler/test_util.hpp"

using namespace ts::gui;

namespace {

void check_rows(const TrackRows& t) {
  for (const Row& r : t.rows)
    for (std::size_t i = 1; i < r.zones.size(); ++i) {
      QVERIFY(r.zones[i - 1].end_ns <= r.zones[i].start_ns);  // sorted, never overlapping
      QVERIFY(r.zones[i].start_ns <= r.zones[i].end_ns);
    }
}

bool same_step(const ts::store::Step& a, const ts::store::Step& b) {
  return a.step == b.step && a.start_ns == b.start_ns && a.dur_ns == b.dur_ns && a.track == b.track;
}

bool same_steps(std::span<const ts::store::Step> a, std::span<const ts::store::Step> b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), same_step);
}

// Records what the opening's pass hands on.
struct RecordedSteps : StepConsumer {
  std::vector<ts::store::Step> seen;
  int restarts = 0;
  void add(const ts::store::Step& s) override { seen.push_back(s); }
  void restart(std::size_t count) override {
    seen.clear();
    seen.reserve(count);
    ++restarts;
  }
};

// A StepIndex of `path` against the list of its steps: every answer, at steps chosen across it.
void check_step_index(const QString& path, bool held) {
  const ts::store::Reader reader(path.toStdString());
  const std::vector<ts::store::Step> all = reader.steps();
  QVERIFY(all.size() > 3 * StepIndex::kSampleEvery);
  RecordedSteps recorded;
  const StepIndex index(reader, recorded);
  QCOMPARE(recorded.restarts, held ? 1 : 0);
  QVERIFY(same_steps(recorded.seen, all));
  QCOMPARE(index.size(), all.size());
  std::int64_t begin = all.front().start_ns, end = begin;
  for (const auto& s : all) end = std::max(end, s.start_ns + s.dur_ns);
  QCOMPARE(index.extent(), std::optional(std::pair{begin, end}));
  const auto before = [&](std::int64_t t) {
    return static_cast<std::size_t>(
        std::partition_point(all.begin(), all.end(),
                             [&](const auto& s) { return s.start_ns < t; }) -
        all.begin());
  };
  QCOMPARE(index.starting_before(INT64_MIN / 2), std::size_t{0});
  QCOMPARE(index.starting_before(INT64_MAX / 2), all.size());
  std::vector<std::size_t> picks = {0, 1, 255, 256, 257, 511, 512, all.size() - 1};
  for (std::size_t i = 3; i < all.size(); i += 97) picks.push_back(i);
  for (const std::size_t i : picks) {
    const ts::store::Step& s = all[i];
    QVERIFY(same_step(index.at(i), s));
    for (const std::int64_t t : {s.start_ns - 1, s.start_ns, s.start_ns + 1})
      QCOMPARE(index.starting_before(t), before(t));
    const std::int64_t t0 = s.start_ns + s.dur_ns / 2, t1 = t0 + 3 * s.dur_ns;
    QCOMPARE(index.starting_in(t0, t1), before(t1) - before(t0));
    const std::size_t from = before(t0) > 0 ? before(t0) - 1 : 0;
    QVERIFY(same_steps(index.from_before(t0, t1), std::span(all).subspan(from, before(t1) - from)));
    const auto first_numbered =
        std::find_if(all.begin(), all.end(), [&](const auto& x) { return x.step == s.step; });
    const auto found = index.numbered(s.step);
    QVERIFY(found && same_step(*found, *first_numbered));
    const auto k = static_cast<std::size_t>(first_numbered - all.begin());
    if (k > 0 && all[k - 1].start_ns == all[k].start_ns) continue;  // placed by its start
    const StepIndex::Around near = index.around(s.step, 1, 3);
    const std::size_t lo = k > 0 ? k - 1 : 0;
    QVERIFY(same_steps(near.steps, std::span(all).subspan(lo, std::min(all.size(), k + 4) - lo)));
    QCOMPARE(near.centre, k - lo);
  }
  const StepIndex::Around middle = index.around(std::nullopt, 1, 3);
  QVERIFY(same_step(middle.steps[middle.centre], all[all.size() / 2]));
  QVERIFY(!index.numbered(-424242).has_value());
  std::vector<ts::store::Step> numbered, want;
  index.each_numbered(10, 20, [&](const ts::store::Step& s) { numbered.push_back(s); });
  for (const auto& s : all)
    if (s.step >= 10 && s.step <= 20) want.push_back(s);
  QVERIFY(same_steps(numbered, want));
}

bool same_zones(const Row& a, const Row& b) {
  if (a.zones.size() != b.zones.size()) return false;
  for (std::size_t i = 0; i < a.zones.size(); ++i) {
    const Zone& x = a.zones[i];
    const Zone& y = b.zones[i];
    if (x.start_ns != y.start_ns || x.end_ns != y.end_ns || x.label != y.label ||
        x.count != y.count)
      return false;
  }
  return true;
}

// Two overviews hold the same rows, counters and label index.
bool same_overview(const ts::store::Overview& a, const ts::store::Overview& b) {
  if (a.begin_ns != b.begin_ns || a.end_ns != b.end_ns || a.events != b.events ||
      a.tracks.size() != b.tracks.size() || a.counters.size() != b.counters.size() ||
      a.labels.size() != b.labels.size())
    return false;
  for (std::size_t t = 0; t < a.tracks.size(); ++t) {
    if (a.tracks[t].track != b.tracks[t].track ||
        a.tracks[t].rows.size() != b.tracks[t].rows.size())
      return false;
    for (std::size_t r = 0; r < a.tracks[t].rows.size(); ++r)
      if (!same_zones(a.tracks[t].rows[r], b.tracks[t].rows[r])) return false;
  }
  for (std::size_t c = 0; c < a.counters.size(); ++c)
    if (a.counters[c].ts_ns != b.counters[c].ts_ns || a.counters[c].values != b.counters[c].values)
      return false;
  for (const auto& [id, l] : a.labels) {
    const auto it = b.labels.find(id);
    if (it == b.labels.end() || it->second.name != l.name || it->second.count != l.count ||
        it->second.bins != l.bins || it->second.bin_counts != l.bin_counts)
      return false;
  }
  return true;
}

}  // namespace

class TestSummary : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  QString path_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    path_ = test::synth_trace(dir_, 60000);
  }

  // Every source of the summary holds every event: the overview stored in the trace, a scan of
  // the trace, and what the per-user cache kept of a scan. The stored one equals the scan.
  void summary_holds_every_event() {
    const ts::store::Reader reader(path_.toStdString());
    SummarySources scan_only;
    scan_only.stored = false;
    scan_only.cache = false;
    SummarySources stored;
    stored.cache = false;
    TraceSummary scanned, from_file;
    for (auto [summary, sources] :
         {std::pair{&scanned, scan_only}, std::pair{&from_file, stored}}) {
      std::atomic<bool> cancel{false};
      std::vector<double> progress;
      build_summary(
          path_.toStdString(), *summary, cancel, [&](double f) { progress.push_back(f); }, sources);
      summary->read([&](const SummaryData& d) {
        QVERIFY(d.done);
        QVERIFY(d.error.empty());
        QCOMPARE(d.source,
                 sources.stored ? SummaryData::Source::stored : SummaryData::Source::scan);
        QCOMPARE(static_cast<std::int64_t>(d.events), reader.event_count());
        std::uint64_t in_rows = 0;
        for (const TrackRows& t : d.tracks) {
          check_rows(t);
          for (const Row& r : t.rows) in_rows += r.events(0, r.zones.size());
        }
        QCOMPARE(static_cast<std::int64_t>(in_rows), reader.event_count());
        std::uint64_t labelled = 0;
        for (const auto& [id, l] : d.labels) labelled += l.count;
        QCOMPARE(static_cast<std::int64_t>(labelled), reader.event_count());
        QVERIFY(!d.counters.empty());  // the prefetch buffer fill
        const auto range = reader.time_range();
        QCOMPARE(d.begin_ns, range.start_ns);
        QCOMPARE(d.end_ns, range.end_ns);
      });
      QVERIFY(!progress.empty());
      QCOMPARE(progress.back(), 1.0);
      QVERIFY(std::is_sorted(progress.begin(), progress.end()));
    }
    scanned.read([&](const SummaryData& a) {
      from_file.read([&](const SummaryData& b) { QVERIFY(same_overview(a, b)); });
    });
  }

  // A trace without a stored overview (written before it was stored) is scanned once; the scan
  // is kept in the cache and used while the file is unchanged.
  void cache_keeps_a_scan_until_the_trace_changes() {
    const QString old = test::synth_trace(dir_, 20000, 0.3, QStringLiteral("old.db"));
    ts::test::exec_rw(old.toStdString(), "DELETE FROM overview");
    QTemporaryDir cache;
    SummarySources sources;
    sources.cache_dir = cache.path().toStdString();
    const auto open = [&](SummaryData::Source want) {
      TraceSummary summary;
      std::atomic<bool> cancel{false};
      build_summary(old.toStdString(), summary, cancel, {}, sources);
      summary.read([&](const SummaryData& d) {
        QVERIFY(d.done);
        QCOMPARE(d.source, want);
        QCOMPARE(static_cast<std::int64_t>(d.events),
                 ts::store::Reader(old.toStdString()).event_count());
      });
    };
    open(SummaryData::Source::scan);
    open(SummaryData::Source::cache);
    ts::test::exec_rw(old.toStdString(), "INSERT OR REPLACE INTO meta VALUES ('note', 'changed')");
    open(SummaryData::Source::scan);  // the file changed: scanned again, and kept again
    open(SummaryData::Source::cache);
  }

  void cancelled_scan_stops() {
    TraceSummary summary;
    std::atomic<bool> cancel{true};
    SummarySources scan_only;
    scan_only.stored = false;
    scan_only.cache = false;
    build_summary(path_.toStdString(), summary, cancel, {}, scan_only);
    summary.read([](const SummaryData& d) { QVERIFY(!d.done); });
  }

  void window_is_exact() {
    const ts::store::Reader reader(path_.toStdString());
    const auto range = reader.time_range();
    const std::int64_t t0 = range.start_ns + (range.end_ns - range.start_ns) / 3;
    const std::int64_t t1 = t0 + (range.end_ns - range.start_ns) / 50;
    const auto w = load_window(reader, t0, t1, 1'000'000);
    QVERIFY(w.has_value());
    const auto expected = reader.events(t0, t1);
    QCOMPARE(w->events, static_cast<std::uint64_t>(expected.size()));
    std::set<std::pair<std::int64_t, std::uint32_t>> want, got;
    for (const auto& e : expected)
      if (reader.track(e.track)->kind != ts::trace::TrackKind::counter)
        want.insert({e.start_ns, e.track});
    for (const TrackRows& t : w->tracks) {
      check_rows(t);
      for (const Row& r : t.rows)
        for (const Zone& z : r.zones) {
          QCOMPARE(z.count, 1u);
          got.insert({z.start_ns, t.track});
        }
    }
    QVERIFY(got == want);
    // The counters' samples in the window, exactly, so the window draws their lanes too.
    std::size_t counter_tracks = 0;
    for (const ts::store::Track& t : reader.tracks()) {
      if (t.kind != ts::trace::TrackKind::counter) continue;
      ++counter_tracks;
      const CounterSeries* c = w->counter_of(t.id);
      QVERIFY(c);
      const auto samples = reader.counter(t.id, t0, t1);
      QVERIFY(!samples.empty());
      QCOMPARE(c->ts_ns.size(), samples.size());
      for (std::size_t i = 0; i < samples.size(); ++i) {
        QCOMPARE(c->ts_ns[i], samples[i].ts_ns);
        QCOMPARE(c->values[i], samples[i].value);
      }
    }
    QVERIFY(counter_tracks > 0);
    QCOMPARE(w->counters.size(), counter_tracks);
    QVERIFY(!load_window(reader, range.start_ns, range.end_ns + 1, 100).has_value());  // capped
  }

  // The steps left in the file answer as the list of them does (step_index.hpp); a hostile
  // file whose steps come back repeated (two at one start on tracks that are no ids, both read
  // as track 0) has them held, sorted, and answers the same.
  void the_step_index_answers_as_the_steps_do() {
    const QString path = test::synth_trace(dir_, 120000, 0.3, QStringLiteral("index.db"));
    check_step_index(path, false);
    const QString hostile = dir_.filePath(QStringLiteral("repeated_steps.db"));
    QVERIFY(QFile::copy(path, hostile));
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(hostile.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(
        sqlite3_exec(db,
                     "INSERT INTO step_span SELECT start_ns, -5, 999999, dur_ns FROM step_span "
                     "WHERE step = 40; INSERT INTO step_span SELECT start_ns, -7, 999998, "
                     "dur_ns FROM step_span WHERE step = 40",
                     nullptr, nullptr, nullptr),
        SQLITE_OK);
    sqlite3_close(db);
    check_step_index(hostile, true);
    TraceSession session(hostile);  // steps that need cleaning: the first look reads them again
    session.wait();
    QCOMPARE(session.steps().size(), ts::store::Reader(hostile.toStdString()).steps().size());
    QVERIFY(session.initial_range().has_value());
  }

  // Opening looks for the first input-bound step itself (initial_view.hpp): the same step as
  // the whole analysis finds, or none when the budget of events runs out first.
  void first_input_bound_step_matches_the_analysis() {
    QStringList traces = test::sample_traces();
    traces << path_ << test::synth_trace(dir_, 30000, 0.02, QStringLiteral("rare.db"))
           << test::synth_trace(dir_, 30000, 0.0, QStringLiteral("never.db"));
    int found = 0, later = 0, from_opening = 0;
    for (const QString& path : traces) {
      const ts::store::Reader reader(path.toStdString());
      const auto steps = reader.steps();
      for (const double pct : {5.0, 25.0, 1000.0}) {
        ts::analysis::AnalysisOptions o;
        o.step_input_bound_pct = pct;
        const ts::analysis::Report r = ts::analysis::analyse(reader, o);
        std::optional<std::int64_t> want;
        std::size_t index = 0;
        for (const ts::analysis::StepSummary& st : r.per_step) {
          if (st.input_bound && !st.warmup) {
            want = st.step;
            break;
          }
          ++index;
        }
        const auto got = first_input_bound_step(reader, steps, kInputBoundSearchEvents, o);
        QVERIFY2(got == want, qPrintable(path + QStringLiteral(" at %1 %").arg(pct)));
        // The same from what the opening's pass keeps of clean steps (OpeningSteps).
        OpeningSteps opening(ts::analysis::run_shape(reader), o, steps.size());
        for (const ts::store::Step& s : steps) opening.add(s);
        if (opening.clean()) {
          QCOMPARE(first_input_bound_step(reader, opening.prefix(), opening.analysed(),
                                          opening.tracks(), kInputBoundSearchEvents, o),
                   want);
          QCOMPARE(opening.first_analysed(), first_analysed_step(reader, steps, o));
          ++from_opening;
        }
        found += want.has_value();
        later += index >= 4 && want.has_value();
        if (want && index > 0)  // a budget that ends before the step: not found
          QVERIFY(!first_input_bound_step(reader, steps, 1, o).has_value());
      }
    }
    QVERIFY(found >= 4);
    QVERIFY(later >= 1);  // not only first steps: the search goes past them
    QVERIFY(from_opening >= 3 * static_cast<int>(traces.size()) - 3);
  }

  void window_cache_loads_in_the_background() {
    WindowCache cache(path_.toStdString());
    const ts::store::Reader reader(path_.toStdString());
    const auto range = reader.time_range();
    const std::int64_t t0 = range.start_ns,
                       t1 = range.start_ns + (range.end_ns - range.start_ns) / 10;
    QVERIFY(!cache.find(t0, t1));
    QSignalSpy loaded(&cache, &WindowCache::loaded);
    cache.request(t0, t1);
    QVERIFY(loaded.wait(10000) || cache.find(t0, t1));
    QVERIFY(cache.find(t0, t1));
    QVERIFY(cache.find(t0 + 1, t1 - 1));
    QVERIFY(!cache.find(t0, t1 + (t1 - t0)));
    const std::int64_t u0 = t1 * 2 - t0;  // a second window; the first stays cached
    QSignalSpy failed(&cache, &WindowCache::failed);
    cache.request(u0, u0 + (t1 - t0));
    cache.wait();
    QCOMPARE(failed.count(), 0);
    QVERIFY(cache.find(u0, u0 + (t1 - t0)));
    QVERIFY(cache.find(t0, t1));
    QVERIFY(cache.cached_events() > 0);
  }

  void search_steps_through_matches_in_order() {
    TraceSummary summary;
    std::atomic<bool> cancel{false};
    build_summary(path_.toStdString(), summary, cancel);
    const ts::store::Reader reader(path_.toStdString());
    // The brute-force answer: every event whose name contains "wait", in (start, track) order.
    std::vector<ts::store::Event> all;
    const auto range = reader.time_range();
    for (const auto& e : reader.events(range.start_ns, range.end_ns + 1))
      if (QString::fromStdString(std::string(reader.name(e)))
              .contains(QStringLiteral("WAIT"), Qt::CaseInsensitive))
        all.push_back(e);
    QVERIFY(all.size() > 10);
    EventSearch search;
    summary.read([&](const SummaryData& d) { search.set_query(QStringLiteral("WAIT"), d); });
    QCOMPARE(search.matches(), static_cast<std::uint64_t>(all.size()));
    std::int64_t at = std::numeric_limits<std::int64_t>::min();
    std::uint32_t track = 0;
    for (std::size_t i = 0; i < 25; ++i) {
      const auto e = search.step(reader, at, track, true);
      QVERIFY(e.has_value());
      QCOMPARE(e->start_ns, all[i].start_ns);
      QCOMPARE(e->track, all[i].track);
      QCOMPARE(search.ordinal(reader, *e), static_cast<std::uint64_t>(i + 1));
      at = e->start_ns;
      track = e->track;
    }
    const auto back = search.step(reader, at, track, false);  // and one back
    QVERIFY(back.has_value());
    QCOMPARE(back->start_ns, all[23].start_ns);
    QVERIFY(!search.step(reader, all.back().start_ns, all.back().track, true).has_value());
    QCOMPARE(search.ordinal(reader, all.back()), static_cast<std::uint64_t>(all.size()));
    summary.read(
        [&](const SummaryData& d) { search.set_query(QStringLiteral("no such name"), d); });
    QCOMPARE(search.matches(), std::uint64_t{0});
  }

  // --no-analysis: the events only; nothing waits for an analysis that never runs.
  // A capture still running, reloaded: the live summary goes on from the last reload's and is
  // exactly the overview of the whole trace over its extent, also when events come late and when
  // the trace outgrows the extent.
  void live_summary_goes_on_from_the_last_reload() {
    const std::string path = dir_.filePath(QStringLiteral("live_summary.db")).toStdString();
    ts::store::WriterOptions staged;
    staged.staged = true;
    ts::store::Writer w(path, staged);
    test::put_step_and_kernel(w, "gemm", "trainer", "gpu0");
    std::int64_t t = 1'000'000'000, step = 0;
    // n steps of 1 ms, each with two kernels; `late`: the kernels of the first step wait for
    // the next commit.
    std::vector<ts::store::EventRow> held;
    const auto commit = [&](int n, bool late = false) {
      std::vector<ts::store::EventRow> rows = std::move(held);
      held.clear();
      for (int i = 0; i < n; ++i, ++step, t += 1'000'000) {
        rows.push_back({t, 900'000, 1, 1, step});
        auto& kernels = late && i == 0 ? held : rows;
        kernels.push_back({t + 100'000, 300'000, 2, 2, step});
        kernels.push_back({t + 500'000, 200'000, 2, 2, step});
      }
      w.append(std::span<const ts::store::EventRow>(rows));
      w.commit();
    };
    commit(100);  // 100 ms: an extent of 2^27 ns, room for what follows until it is outgrown
    ts::store::Reader reader(path);
    LiveSummary live(5'000'000);  // goes on from 5 ms before the end
    const std::atomic<bool> cancel{false};
    const auto reload = [&] {
      TraceSummary summary;
      if (!live.build(reader, summary, cancel)) return false;
      const ts::store::TimeRange range = reader.time_range();
      return summary.read([&](const SummaryData& d) {
        // Its extent covers the trace, with a power-of-two span no longer than twice what a
        // summary built now would take; the summary is the whole trace's over that extent.
        const auto span = static_cast<std::uint64_t>(d.end_ns - d.begin_ns);
        const auto now = LiveSummary::extent_for(range);
        const ts::store::Overview whole = ts::store::build_overview(reader, {d.begin_ns, d.end_ns});
        return d.done && d.begin_ns == range.start_ns && range.end_ns < d.end_ns &&
               std::has_single_bit(span) &&
               span <= 2 * static_cast<std::uint64_t>(now.end_ns - now.start_ns) &&
               d.content_end_ns == range.end_ns && same_overview(d, whole) &&
               d.events == static_cast<std::uint64_t>(reader.event_count());
      });
    };
    QVERIFY(reload());
    QCOMPARE(live.reused_events(), std::uint64_t{0});
    for (int r = 0; r < 3; ++r) {
      commit(5);
      reader.refresh();
      live.note_changed(reader.changed_from_ns());
      QVERIFY(reload());
      QVERIFY(live.reused_events() > 0);
    }
    // Kernels committed after steps that start later: the reload reads everything again when
    // they reach before where it would go on from.
    commit(10, true);  // the held step starts 10 ms before the end, before where it goes on
    reader.refresh();
    live.note_changed(reader.changed_from_ns());
    QVERIFY(reload());
    commit(5);
    reader.refresh();
    live.note_changed(reader.changed_from_ns());
    QVERIFY(reload());
    QCOMPARE(live.reused_events(), std::uint64_t{0});
    // Outgrowing the extent: built again over one twice as long.
    const auto before = LiveSummary::extent_for(reader.time_range());
    commit(static_cast<int>((before.end_ns - before.start_ns) / 1'000'000));
    reader.refresh();
    live.note_changed(reader.changed_from_ns());
    QVERIFY(reload());
    QCOMPARE(live.reused_events(), std::uint64_t{0});
    QVERIFY(LiveSummary::extent_for(reader.time_range()).end_ns > before.end_ns);
    commit(5);
    reader.refresh();
    live.note_changed(reader.changed_from_ns());
    QVERIFY(reload());
    QVERIFY(live.reused_events() > 0);
  }

  void session_without_analysis() {
    TraceSession session(path_, {}, false);
    QSignalSpy report(&session, &TraceSession::reportReady);
    session.wait();
    QVERIFY(!session.analyses());
    QVERIFY(session.analysis_finished());
    QVERIFY(!session.report());
    QVERIFY(session.analysis_error().isEmpty());
    QVERIFY(session.summary_done());
    QCOMPARE(report.count(), 0);
  }

  void session_signals_when_done() {
    TraceSession session(path_);
    QSignalSpy report(&session, &TraceSession::reportReady);
    QSignalSpy summary(&session, &TraceSession::summaryFinished);
    QVERIFY(!session.steps().empty());
    const auto [b, e] = session.extent();
    QVERIFY(b < e);
    session.wait();
    QVERIFY(session.report());
    QVERIFY(session.summary_done());
    QCOMPARE(report.count(), 1);
    QCOMPARE(summary.count(), 1);
    QCOMPARE(session.report()->whole_run.steps, static_cast<std::int64_t>(session.steps().size()));
    QCOMPARE(session.report()->steps + session.report()->warmup.steps,
             session.report()->whole_run.steps);
  }

  // A trace of few steps that keeps an analysis: the session reuses it (its idle gaps load per
  // view) instead of analysing again to list every gap; one that keeps none lists them all.
  void session_reuses_a_kept_analysis_of_few_steps() {
    const QString path = test::synth_trace(dir_, 20000, 0.3, QStringLiteral("few.db"));
    {
      TraceSession session(path);
      session.wait();
      QVERIFY(session.steps().size() <= TraceSession::whole_gaps_steps());
      QVERIFY(session.gap_windows() == nullptr);  // nothing kept (too few events): every gap
      QVERIFY(session.report());
      QVERIFY(session.report()->device.listed_gaps > 0);
    }
    {
      const ts::store::Reader reader(path.toStdString());
      ts::analysis::AnalysisOptions o;
      o.keep_gaps = false;
      ts::analysis::analyse_or_reuse(reader, o, 0);  // kept, whatever the trace's size
    }
    TraceSession session(path);
    QSignalSpy checked(&session, &TraceSession::keptAnalysisChecked);
    session.wait();
    QVERIFY(session.gap_windows() != nullptr);
    QCOMPARE(checked.count(), 1);  // the kept report was shown, then checked
    QCOMPARE(checked.at(0).at(0).toBool(), true);
    QVERIFY(session.report());
    QVERIFY(session.report()->device.listed_gaps > 0);
  }

  // A kept analysis is shown before its events are checked; the check follows, and one whose
  // events were edited since is replaced by the events' own figures.
  void session_checks_a_kept_analysis_after_showing_it() {
    const QString path = test::synth_trace(dir_, 20000, 0.0, QStringLiteral("kept.db"));
    // A kept report holds no idle gaps: the session reuses one for a trace whose gaps it loads
    // per view (more steps than this).
    const std::size_t whole_gaps = TraceSession::whole_gaps_steps();
    TraceSession::set_whole_gaps_steps(10);
    {
      const ts::store::Reader reader(path.toStdString());
      ts::analysis::AnalysisOptions o;
      o.keep_gaps = false;  // as the session asks for a trace of more steps than it lists gaps of
      ts::analysis::analyse_or_reuse(reader, o, 0);
    }
    double kept_busy = 0;
    {
      TraceSession session(path);
      QSignalSpy checked(&session, &TraceSession::keptAnalysisChecked);
      session.wait();
      QCOMPARE(checked.count(), 1);
      QCOMPARE(checked.at(0).at(0).toBool(), true);
      QVERIFY(session.report());
      kept_busy = session.report()->device.busy_pct;
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db,
                          "UPDATE event SET dur_ns = 1 WHERE label IN (SELECT label.id FROM label "
                          "JOIN category ON category.id = label.category WHERE category.name = "
                          "'kernel') AND id > (SELECT min(id) FROM event) AND id < (SELECT "
                          "max(id) FROM event)",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(db);
    TraceSession session(path);
    QSignalSpy checked(&session, &TraceSession::keptAnalysisChecked);
    QSignalSpy report(&session, &TraceSession::reportReady);
    session.wait();
    QCOMPARE(checked.count(), 1);
    QCOMPARE(checked.at(0).at(0).toBool(), false);
    QCOMPARE(report.count(), 2);  // the kept report, then the events' own
    QVERIFY(session.report());
    ts::analysis::AnalysisOptions o;
    o.keep_gaps = false;
    const ts::analysis::Report fresh =
        ts::analysis::analyse(ts::store::Reader(path.toStdString()), o);
    QCOMPARE(session.report()->device.busy_pct, fresh.device.busy_pct);
    QVERIFY(session.report()->device.busy_pct < kept_busy / 2);
    TraceSession::set_whole_gaps_steps(whole_gaps);
  }
};

QTEST_GUILESS_MAIN(TestSummary)
#include "test_summary.moc"
