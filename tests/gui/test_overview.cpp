// The overview page: its figures are the analysis's — analyse() on the same file and the golden
// `report --json` output of the sample traces (traces/*.report.json) — and the chart marks the
// input-bound steps. Runs on every sample trace, and on a synthetic trace.
#include <sqlite3.h>

#include <QFile>
#include <QHeaderView>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QScatterSeries>
#include <QScrollBar>
#include <QTableView>
#include <QtTest>
#include <map>

#include "gui/models/palette.hpp"
#include "gui/models/table_roles.hpp"
#include "gui/widgets/main_window.hpp"
#include "gui/widgets/tables/steps_page.hpp"
#include "gui_test_util.hpp"
#include "profiler/store/reader.hpp"

using namespace ts::gui;

namespace {

// The value at a dotted path ("device.idle_pct") of a JSON object.
QJsonValue at(const QJsonObject& o, const QString& path) {
  QJsonValue v = o;
  for (const QString& k : path.split('.')) v = v.toObject().value(k);
  return v;
}

}  // namespace

class TestOverview : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;

 private slots:
  void initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(dir_.isValid());
  }

  void figures_data() {
    QTest::addColumn<QString>("trace");
    for (const QString& t : test::sample_traces())
      QTest::newRow(qPrintable(QFileInfo(t).fileName())) << t;
    QTest::newRow("synthetic") << test::synth_trace(dir_, 30000);
  }

  void figures() {
    QFETCH(QString, trace);
    MainWindow w;
    QCOMPARE(w.open(trace, false), QString());
    w.session()->wait();
    QVERIFY(w.session()->report());

    // analyse() on its own reader: the same figures, the same verdict.
    const ts::store::Reader reader(trace.toStdString());
    const ts::analysis::Report r = ts::analysis::analyse(reader);
    QCOMPARE(w.overview()->verdict_text(),
             QString::fromStdString(ts::analysis::verdict_sentence(r)));
    const auto expected = overview_figures(r);
    const auto& shown = w.overview()->figures();
    QCOMPARE(shown.size(), expected.size());
    for (std::size_t i = 0; i < shown.size(); ++i) {
      QCOMPARE(shown[i].json_key, expected[i].json_key);
      QCOMPARE(shown[i].value, expected[i].value);
      QCOMPARE(shown[i].raw, expected[i].raw);
      // The card on the page shows that text.
      auto* card = w.overview()->findChild<QWidget*>(shown[i].json_key);
      QVERIFY2(card, qPrintable(shown[i].json_key));
      auto* value = card->findChild<QLabel*>(QStringLiteral("value"));
      QVERIFY(value);
      QCOMPARE(value->text(), shown[i].value);
    }
    QCOMPARE(w.overview()->warnings_text().isEmpty(), r.warnings.empty());
    QCOMPARE(w.overview()->recommendations().size(),
             std::max<qsizetype>(1, static_cast<qsizetype>(r.recommendations.size())));
    // The levers, in the analysis' order; the first is selected and its details shown.
    QCOMPARE(w.overview()->levers()->rowCount(), static_cast<int>(r.levers.size()));
    if (!r.levers.empty()) {
      QCOMPARE(w.overview()->levers()->index(0, 0).data().toString(),
               QString::fromStdString(r.levers.front().title));
      QCOMPARE(w.overview()->lever_table()->currentIndex().row(), 0);
      QVERIFY(w.overview()->lever_details_text().startsWith(
          QString::fromStdString(r.levers.front().title)));
      for (const std::string& fix : r.levers.front().fix)
        QVERIFY(w.overview()->lever_details_text().contains(QString::fromStdString(fix)));
    } else {
      QCOMPARE(w.overview()->lever_details_text(),
               QStringLiteral("No lever applies to this trace."));
    }

    // The golden `report --json` of a sample trace: every figure's raw value is in it.
    const QString golden =
        QString(trace).replace(QStringLiteral(".db"), QStringLiteral(".report.json"));
    if (QFile::exists(golden)) {
      QFile f(golden);
      QVERIFY(f.open(QIODevice::ReadOnly));
      const QJsonObject json = QJsonDocument::fromJson(f.readAll()).object();
      QVERIFY(!json.isEmpty());
      for (const Figure& fig : shown) {
        const QJsonValue v = at(json, fig.json_key);
        QVERIFY2(v.isDouble(), qPrintable(fig.json_key));
        // report --json rounds to 3 decimals (4 for the idle cost).
        QVERIFY2(std::abs(v.toDouble() - fig.raw) <= 0.0006 + 1e-9 * std::abs(fig.raw),
                 qPrintable(QStringLiteral("%1: json %2, viewer %3")
                                .arg(fig.json_key)
                                .arg(v.toDouble())
                                .arg(fig.raw)));
      }
      QCOMPARE(w.overview()->verdict_text(),
               at(json, QStringLiteral("verdict_sentence")).toString());
    }

    // The chart: a bar per step (or per run of steps), input-bound ones marked.
    const auto& bars = w.overview()->chart()->bars();
    const auto want = step_bars(r.per_step.to_vector());
    QCOMPARE(bars.size(), want.size());
    std::size_t marked = 0;
    for (std::size_t i = 0; i < bars.size(); ++i) {
      QCOMPARE(bars[i].first_step, want[i].first_step);
      QCOMPARE(bars[i].marked(), want[i].marked());
      marked += bars[i].marked();
    }
    if (bars.size() == r.per_step.size())
      QCOMPARE(static_cast<std::int64_t>(marked), r.input_bound_steps);

    // The steps page: every step of the analysis, from the session's packed figures, with the
    // model itself behind the view (it sorts itself).
    StepModel* model = w.steps()->model();
    QCOMPARE(model->rowCount(), static_cast<int>(r.per_step.size()));
    for (int row = 0; row < model->rowCount(); ++row) {
      const auto& st = r.per_step[static_cast<std::size_t>(row)];
      QCOMPARE(model->index(row, 0).data(StepModel::StepNumberRole).toLongLong(), st.step);
      QCOMPARE(model->index(row, StepModel::Duration).data(SortRole).toLongLong(), st.dur_ns);
      QCOMPARE(model->index(row, 0).data(StepModel::InputBoundRole).toBool(), st.input_bound);
    }
    QCOMPARE(w.steps()->findChild<QTableView*>()->model(), static_cast<QAbstractItemModel*>(model));
  }

  // The steps table knows of its first rows only, and fetches more as it is scrolled to its end:
  // its vertical header keeps a few bytes per row (35 MB for the 2.2 M steps of 100 M events).
  void the_steps_table_fetches_rows_as_it_scrolls() {
    std::vector<ts::analysis::StepSummary> figures(2 * StepModel::kFetchRows + 5);
    for (std::size_t i = 0; i < figures.size(); ++i) {
      figures[i].step = static_cast<std::int64_t>(i);
      figures[i].start_ns = static_cast<std::int64_t>(i) * 1000;
      figures[i].dur_ns = 1000;
    }
    StepsPage page;
    page.resize(600, 400);
    page.set_steps(std::make_shared<const PackedSteps>(figures));
    page.show();
    auto* view = page.findChild<QTableView*>();
    QCOMPARE(view->verticalHeader()->count(), StepModel::kFetchRows);
    const auto scroll_to_end = [&] {
      QApplication::processEvents();  // the scroll bar's range follows the rows fetched
      view->verticalScrollBar()->setValue(view->verticalScrollBar()->maximum());
    };
    scroll_to_end();
    QTRY_COMPARE(view->verticalHeader()->count(), 2 * StepModel::kFetchRows);
    scroll_to_end();
    QTRY_COMPARE(view->verticalHeader()->count(), static_cast<int>(figures.size()));
    QCOMPARE(view->model()->index(view->model()->rowCount() - 1, 0).data(StepModel::StepNumberRole),
             QVariant(qint64(figures.back().step)));
  }

  // A trace that lacks data says so above the figures, one line per gap; a complete one shows
  // no banner.
  void a_partial_trace_shows_a_banner() {
    const QString path = test::synth_trace(dir_, 5000, 0.3, QStringLiteral("partial.db"));
    {
      MainWindow w;
      QCOMPARE(w.open(path, false), QString());
      w.session()->wait();
      QVERIFY(w.overview()->warnings_text().isEmpty());
      QVERIFY(w.overview()->findChild<QLabel*>(QStringLiteral("warnings"))->isHidden());
    }
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db,
                          "UPDATE meta SET value = '77' WHERE key = 'dropped_events';"
                          "INSERT INTO meta VALUES ('dist.missing_ranks', '2');",
                          nullptr, nullptr, nullptr),
             SQLITE_OK);
    sqlite3_close(db);
    MainWindow w;
    QCOMPARE(w.open(path, false), QString());
    w.session()->wait();
    const QStringList lines = w.overview()->warnings_text().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 2);
    QVERIFY2(lines[0].contains(QStringLiteral("77 events were dropped")), qPrintable(lines[0]));
    QVERIFY2(lines[1].contains(QStringLiteral("rank(s) 2")), qPrintable(lines[1]));
    QVERIFY(!w.overview()->findChild<QLabel*>(QStringLiteral("warnings"))->isHidden());
  }

  void a_bar_opens_its_step_in_the_timeline() {
    MainWindow w;
    QCOMPARE(w.open(test::synth_trace(dir_, 20000, 0.5, QStringLiteral("bars.db")), false),
             QString());
    w.session()->wait();
    const std::vector<ts::store::Step> steps = w.session()->reader().steps();
    const std::int64_t step = steps[steps.size() / 2].step;
    emit w.overview()->chart()->stepActivated(step);
    QCOMPARE(w.tabs()->currentWidget(), static_cast<QWidget*>(w.timeline()));
    const Selection& sel = w.timeline()->view()->selection();
    QCOMPARE(sel.kind, Selection::Kind::step);
    const auto& m = w.timeline()->view()->mapping();
    QVERIFY(m.view_begin() <= steps[steps.size() / 2].start_ns);
    QVERIFY(m.view_end() >= steps[steps.size() / 2].start_ns + steps[steps.size() / 2].dur_ns);
    QVERIFY(m.view_span_ns() < 3.0 * static_cast<double>(steps[steps.size() / 2].dur_ns));
  }

  // Steps at 3 %, 10 % and 30 % input are classed by the verdict's thresholds: none, moderately
  // and highly input-bound, counted apart on the card and marked apart (colour and text) in the
  // chart, the steps table and the timeline's step lane.
  void steps_are_classed_and_marked_by_the_verdicts_thresholds() {
    using ts::analysis::Verdict;
    const QString path = dir_.filePath(QStringLiteral("shares.db"));
    test::write_input_share_trace(path, {3, 10, 30});
    MainWindow w;
    QCOMPARE(w.open(path, false), QString());
    w.session()->wait();
    const ts::analysis::Report* r = w.session()->report();
    QVERIFY(r);
    QCOMPARE(r->steps, 3);  // three steps: no warm-up left out
    QCOMPARE(r->input_bound_steps, 2);
    QCOMPARE(r->input_bound_steps_high, 1);
    const Verdict want[] = {Verdict::none, Verdict::moderate, Verdict::high};

    bool card = false;
    for (const Figure& f : w.overview()->figures())
      if (f.json_key == QLatin1String("input_pct")) {
        QCOMPARE(f.detail, QStringLiteral("2 of 3 steps input-bound: 1 highly, 1 moderately"));
        card = true;
      }
    QVERIFY(card);

    // The chart: a bar per step with its class, and a triangle of the class's colour over it.
    const auto& bars = w.overview()->chart()->bars();
    QCOMPARE(bars.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) QCOMPARE(bars[i].mark(), want[i]);
    std::map<QRgb, QList<QPointF>> triangles;
    for (QAbstractSeries* series : w.overview()->chart()->chart()->series())
      if (auto* scatter = qobject_cast<QScatterSeries*>(series))
        triangles[scatter->color().rgb()] += scatter->points();
    QCOMPARE(triangles[input_class_color(Verdict::high).rgb()].size(), 1);
    QCOMPARE(triangles[input_class_color(Verdict::high).rgb()].front().x(), 2.0);
    QCOMPARE(triangles[input_class_color(Verdict::moderate).rgb()].size(), 1);
    QCOMPARE(triangles[input_class_color(Verdict::moderate).rgb()].front().x(), 1.0);
    QVERIFY(input_class_color(Verdict::high) != input_class_color(Verdict::moderate));

    // The steps table: the class in words, the row tinted by it, sorted by it.
    StepModel* model = w.steps()->model();
    QCOMPARE(model->rowCount(), 3);
    for (int row = 0; row < 3; ++row) {
      const QModelIndex cell = model->index(row, StepModel::InputBound);
      QCOMPARE(cell.data().toString(), input_class_label(want[row]));
      QCOMPARE(cell.data(SortRole).toInt(), static_cast<int>(want[row]));
      QCOMPARE(model->index(row, 0).data(StepModel::InputBoundRole).toBool(),
               want[row] != Verdict::none);
    }
    QCOMPARE(model->index(1, 0).data(Qt::BackgroundRole).value<QBrush>().color(),
             input_class_tint(Verdict::moderate));
    QCOMPARE(model->index(2, 0).data(Qt::BackgroundRole).value<QBrush>().color(),
             input_class_tint(Verdict::high));

    // The timeline's step lane: each step's class, and the counts of a run of them.
    const StepRow& lane = w.session()->step_row();
    QCOMPARE(lane.numbers.size(), std::size_t{3});
    for (std::size_t i = 0; i < 3; ++i) QCOMPARE(lane.input_class(i), want[i]);
    QCOMPARE(lane.bound_in(0, 3), 2u);
    QCOMPARE(lane.high_in(0, 3), 1u);

    // The thresholds are options: at 40 % for high, the 30 % step is moderate.
    ts::analysis::AnalysisOptions o;
    o.step_input_high_pct = 40;
    const ts::store::Reader reader(path.toStdString());
    const ts::analysis::Report higher = ts::analysis::analyse(reader, o);
    QCOMPARE(higher.input_bound_steps, 2);
    QCOMPARE(higher.input_bound_steps_high, 0);
  }
};

QTEST_MAIN(TestOverview)
#include "test_overview.moc"
