// What a window asks gui/models to do, tested without a window (the models library alone, as
// Hotspot tests its models): open a trace (open_trace: a trainscope trace, another tool's trace
// through the import cache, a capture still running and its reloads), check a --steps range
// against a trace, and compare two traces (TraceComparison).
#include <QFile>
#include <QSignalSpy>
#include <QtTest>
#include <exception>
#include <string>
#include <vector>

#include "gui/models/trace_comparison.hpp"
#include "gui/models/trace_opener.hpp"
#include "gui/models/trace_session.hpp"
#include "gui_test_util.hpp"

namespace ts::gui {
namespace {

const QString kInputBound = QStringLiteral(TS_SOURCE_DIR "/traces/input_bound.db");
const QString kTuned = QStringLiteral(TS_SOURCE_DIR "/traces/tuned.db");

// The error open_trace() throws for `path`, or "" when it opens.
QString open_error(const QString& path) {
  try {
    open_trace(path, {});
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

}  // namespace

class TestOpen : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() { QVERIFY(dir_.isValid()); }

  void a_finished_trace_opens_with_its_analysis_and_no_follower() {
    TraceOpenOptions options;
    OpenedTrace opened = open_trace(kInputBound, options);
    QVERIFY(opened.session != nullptr);
    QCOMPARE(opened.session->path(), kInputBound);
    QVERIFY(opened.session->source().isEmpty());
    QVERIFY(!opened.imported);
    QVERIFY(!opened.live());  // it records capture.end_ns
    QVERIFY(!still_capturing(*opened.session));
    opened.session->wait();
    QVERIFY(opened.session->report() != nullptr);
    QCOMPARE(opened.session->report()->verdict, Verdict::high);

    options.analyse = false;  // --no-analysis
    opened = open_trace(kInputBound, options);
    opened.session->wait();
    QVERIFY(opened.session->report() == nullptr);
    QVERIFY(opened.session->analysis_finished());
  }

  void a_file_that_is_no_trace_is_refused_with_its_reason() {
    const QString garbage = dir_.filePath(QStringLiteral("garbage.db"));
    QFile f(garbage);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write(QByteArray(4096, 'x'));
    f.close();
    QVERIFY(!open_error(garbage).isEmpty());
    QVERIFY(!open_error(dir_.filePath(QStringLiteral("missing.db"))).isEmpty());
    QVERIFY(!open_error(dir_.path()).isEmpty());  // a directory of no trace
  }

  // Another tool's trace is imported on first use and the import reused after: the session
  // reads the import and names what was opened as its source.
  void another_tools_trace_opens_through_the_import_cache() {
    const QString trace = dir_.filePath(QStringLiteral("input_bound.pt.trace.json.gz"));
    QVERIFY(QFile::copy(
        QStringLiteral(TS_SOURCE_DIR "/tests/data/pytorch/input_bound.pt.trace.json.gz"), trace));
    OpenedTrace first = open_trace(trace, {});
    QVERIFY(first.imported);
    QVERIFY(!first.live());
    QCOMPARE(first.session->source(), trace);
    QCOMPARE(first.session->path(), trace + QStringLiteral(".trainscope.db"));
    QCOMPARE(first.session->steps().size(), std::size_t{10});
    OpenedTrace again = open_trace(trace, {});
    QVERIFY(!again.imported);  // reused while the source is unchanged
    QCOMPARE(again.session->source(), trace);
    QCOMPARE(again.session->path(), first.session->path());
    first.session->wait();
    again.session->wait();
  }

  // A capture still running opens with the reader its reloads go on from; each reload reads
  // what was committed since, and the capture's end is seen.
  void a_capture_still_running_is_followed_reload_by_reload() {
    const QString path = dir_.filePath(QStringLiteral("live.db"));
    store::WriterOptions writer_options;
    writer_options.staged = true;  // as a capture writes
    store::Writer writer(path.toStdString(), writer_options);
    test::put_step_and_kernel(writer, "kernel", "trainer", "compute");
    std::int64_t t = 1'000'000, step = 0;
    int commits = 0;
    const auto add_steps = [&](int n) {
      std::vector<store::EventRow> rows;
      for (int i = 0; i < n; ++i, ++step, t += 1'000'000) {
        rows.push_back({t, 900'000, 1, 1, step});
        rows.push_back({t + 100'000, 500'000, 2, 2, step});
      }
      writer.append(std::span<const store::EventRow>(rows));
      writer.commit();
      ++commits;
    };
    add_steps(5);
    OpenedTrace opened = open_trace(path, {});
    QVERIFY(opened.live());
    QVERIFY(still_capturing(*opened.session));
    QCOMPARE(opened.session->steps().size(), std::size_t{5});
    opened.session->wait();

    add_steps(4);
    std::unique_ptr<TraceSession> reload = reload_capture(opened.follower, path, {});
    QCOMPARE(reload->steps().size(), std::size_t{9});
    reload->wait();
    QCOMPARE(reload->report()->whole_run.steps, 9);
    // One reader of the file, opened once, indexed each committed block once.
    QCOMPARE(opened.follower->opens(), 1);
    QCOMPARE(opened.follower->blocks_indexed(), static_cast<std::uint64_t>(commits));

    writer.put_meta("capture.end_ns", std::to_string(t));
    writer.finish();
    reload = reload_capture(opened.follower, path, {});
    reload->wait();
    QVERIFY(!still_capturing(*reload));
    QCOMPARE(reload->report()->whole_run.steps, 9);

    // A window that has no follower yet (its first one failed) gets one made.
    std::unique_ptr<LiveFollower> none;
    reload = reload_capture(none, path, {});
    QVERIFY(none != nullptr);
    QCOMPARE(reload->steps().size(), std::size_t{9});
    reload->wait();
  }

  // --steps: a range the trace holds is taken silently, one it holds in part is noted, one it
  // does not hold is an error; a file that does not open is left to the viewer's own error.
  void a_step_range_is_checked_against_the_trace() {
    StepRangeCheck held = check_step_range(kInputBound, {2, 5}, {});
    QVERIFY(held.error.isEmpty());
    QVERIFY(held.note.isEmpty());
    StepRangeCheck part = check_step_range(kInputBound, {10, 100}, {});
    QVERIFY(part.error.isEmpty());
    QVERIFY2(part.note.contains(QStringLiteral("input_bound.db")), qPrintable(part.note));
    StepRangeCheck none = check_step_range(kInputBound, {5000, 6000}, {});
    QVERIFY2(none.error.contains(QStringLiteral("input_bound.db")), qPrintable(none.error));
    QVERIFY(none.note.isEmpty());
    StepRangeCheck missing = check_step_range(dir_.filePath(QStringLiteral("no.db")), {0, 1}, {});
    QVERIFY(missing.error.isEmpty());
    QVERIFY(missing.note.isEmpty());
  }

  // B is analysed with A, so both leave out the same warm-up; the diff follows A's changes.
  void a_comparison_diffs_b_against_the_open_trace() {
    TraceSession input_bound(kInputBound);
    TraceSession tuned(kTuned);
    TraceComparison comparison;
    QSignalSpy changed(&comparison, &TraceComparison::changed);
    QSignalSpy failed(&comparison, &TraceComparison::failed);
    comparison.set_a(&input_bound);
    QVERIFY(comparison.diff() == nullptr);
    QVERIFY(comparison.headline().isEmpty());

    QVERIFY(comparison.open_b(kTuned));
    QCOMPARE(comparison.b_path(), kTuned);
    comparison.wait();
    QVERIFY(comparison.diff() != nullptr);
    QCOMPARE(comparison.diff()->verdict_a, Verdict::high);
    QCOMPARE(comparison.diff()->verdict_b, Verdict::moderate);  // traces/tuned.report.json
    QVERIFY(comparison.diff()->speedup > 1);                    // the tuned run steps faster
    QVERIFY(!comparison.headline().isEmpty());
    QVERIFY(!comparison.notes().isEmpty());
    QCOMPARE(comparison.currency(), std::string("$"));
    QVERIFY(!changed.isEmpty());

    // A file that is no trace fails at once and leaves the comparison as it was.
    QVERIFY(!comparison.open_b(dir_.filePath(QStringLiteral("missing.db"))));
    QCOMPARE(failed.count(), 1);
    QVERIFY(comparison.diff() != nullptr);

    // Another A: compared with B afresh.
    comparison.set_a(&tuned);
    comparison.wait();
    QVERIFY(comparison.diff() != nullptr);
    QCOMPARE(comparison.diff()->verdict_a, Verdict::moderate);
    QCOMPARE(comparison.diff()->speedup, 1.0);  // the same trace on both sides

    comparison.set_a(nullptr);
    QVERIFY(comparison.diff() == nullptr);
    input_bound.wait();
    tuned.wait();
  }
};

}  // namespace ts::gui

QTEST_GUILESS_MAIN(ts::gui::TestOpen)
#include "test_open.moc"
