// The table models (kernels, pipeline stages, steps, diff), each under QAbstractItemModelTester,
// filled from real analyses of synthetic traces and from hand-made reports.
#include <QAbstractItemModelTester>
#include <QSortFilterProxyModel>
#include <QtTest>

#include "gui/models/diff_model.hpp"
#include "gui/models/format.hpp"
#include "gui/models/kernel_model.hpp"
#include "gui/models/overview_figures.hpp"
#include "gui/models/stage_model.hpp"
#include "gui/models/step_bars.hpp"
#include "gui/models/step_model.hpp"
#include "gui_test_util.hpp"
#include "profiler/analysis/diff.hpp"
#include "profiler/store/reader.hpp"

using namespace ts::gui;
using ts::analysis::Report;

namespace {

Report analyse_file(const QString& path) {
  const ts::store::Reader reader(path.toStdString());
  return ts::analysis::analyse(reader);
}

// Reads every cell in every role the views use; the tester checks the model's consistency.
void read_all(const QAbstractItemModel& m) {
  for (int r = 0; r < m.rowCount(); ++r)
    for (int c = 0; c < m.columnCount(); ++c) {
      const QModelIndex i = m.index(r, c);
      for (int role : {int(Qt::DisplayRole), int(SortRole), int(Qt::TextAlignmentRole),
                       int(Qt::BackgroundRole), int(Qt::ForegroundRole), int(Qt::ToolTipRole)})
        (void)m.data(i, role);
    }
  for (int c = 0; c < m.columnCount(); ++c)
    QVERIFY(!m.headerData(c, Qt::Horizontal).toString().isEmpty());
}

}  // namespace

class TestModels : public QObject {
  Q_OBJECT

  QTemporaryDir dir_;
  Report a_, b_;

 private slots:
  void initTestCase() {
    QVERIFY(dir_.isValid());
    a_ = analyse_file(test::synth_trace(dir_, 20000, 0.3, QStringLiteral("a.db")));
    b_ = analyse_file(test::synth_trace(dir_, 30000, 0.0, QStringLiteral("b.db")));
    QVERIFY(!a_.kernels.empty());
    QVERIFY(a_.input_bound_steps > 0);
  }

  // Times from the trace's start keep microseconds at any size; memory counters read in bytes.
  void times_and_counters_read_in_their_units() {
    QCOMPARE(format_offset_ns(4'000), QStringLiteral("+0.004 ms"));
    QCOMPARE(format_offset_ns(813'204'000), QStringLiteral("+813.204 ms"));
    QVERIFY(format_offset_ns(813'204'000) != format_offset_ns(813'208'000));
    QCOMPARE(format_offset_ns(12'345'678'900), QStringLiteral("+12.345679 s"));
    QCOMPARE(format_offset_ns(-2'000'000), QStringLiteral("-2.000 ms"));
    QCOMPARE(format_counter(28.4 * 1024 * 1024, QStringLiteral("GPU memory allocated")),
             QStringLiteral("28.4 MiB"));
    QCOMPARE(format_counter(3, QStringLiteral("r0 · prefetch buffer fill")), format_compact(3));
  }

  void kernel_model_sorts_and_filters() {
    KernelModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_kernels(a_.kernels);
    QCOMPARE(model.rowCount(), static_cast<int>(a_.kernels.size()));
    QCOMPARE(model.columnCount(), int(KernelModel::ColumnCount));
    read_all(model);
    const auto& k0 = a_.kernels.front();
    QCOMPARE(model.index(0, KernelModel::Name).data().toString(), QString::fromStdString(k0.name));
    QCOMPARE(model.index(0, KernelModel::Count).data(SortRole).toLongLong(), k0.count);
    QCOMPARE(model.index(0, KernelModel::Share).data(KernelModel::SharePctRole).toDouble(),
             k0.share_pct);

    KernelProxyModel proxy;
    QAbstractItemModelTester ptester(&proxy,
                                     QAbstractItemModelTester::FailureReportingMode::QtTest);
    proxy.setSourceModel(&model);
    proxy.sort(KernelModel::Total, Qt::AscendingOrder);  // numbers sort as numbers
    for (int r = 1; r < proxy.rowCount(); ++r)
      QVERIFY(proxy.index(r - 1, KernelModel::Total).data(SortRole).toLongLong() <=
              proxy.index(r, KernelModel::Total).data(SortRole).toLongLong());
    const QString name = QString::fromStdString(k0.name);
    proxy.set_name_filter(name.left(3).toUpper());  // case-insensitive substring
    QVERIFY(proxy.rowCount() >= 1);
    for (int r = 0; r < proxy.rowCount(); ++r)
      QVERIFY(proxy.index(r, KernelModel::Name)
                  .data()
                  .toString()
                  .contains(name.left(3), Qt::CaseInsensitive));
    proxy.set_name_filter(QStringLiteral("no kernel is called this"));
    QCOMPARE(proxy.rowCount(), 0);
    model.set_kernels({});
    QCOMPARE(model.rowCount(), 0);
  }

  void stage_model_marks_the_bottleneck() {
    StageModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_pipeline(a_.pipeline);
    QCOMPARE(model.rowCount(), static_cast<int>(a_.pipeline.stages.size()));
    read_all(model);
    int marked = 0;
    for (int r = 0; r < model.rowCount(); ++r)
      if (model.index(r, 0).data(StageModel::IsBottleneckRole).toBool()) {
        ++marked;
        QCOMPARE(model.index(r, StageModel::Stage).data().toString(),
                 QString::fromStdString(*a_.pipeline.bottleneck_stage));
      }
    QCOMPARE(marked, a_.pipeline.bottleneck_stage ? 1 : 0);
    model.set_pipeline({});
    QCOMPARE(model.rowCount(), 0);
  }

  void step_model_flags_input_bound_steps() {
    StepModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_steps(a_.per_step);
    QCOMPARE(model.rowCount(), static_cast<int>(a_.per_step.size()));
    read_all(model);
    int bound = 0;
    for (int r = 0; r < model.rowCount(); ++r) {
      const auto& s = a_.per_step[static_cast<std::size_t>(r)];
      QCOMPARE(model.index(r, 0).data(StepModel::InputBoundRole).toBool(), s.input_bound);
      QCOMPARE(model.index(r, 0).data(StepModel::StepNumberRole).toLongLong(), s.step);
      bound += s.input_bound;
      std::int64_t parts = 0;
      for (int p = 0; p < ts::analysis::kPartCount; ++p)
        parts += model.index(r, StepModel::FirstPart + p).data(SortRole).toLongLong();
      QCOMPARE(parts, s.dur_ns);  // the breakdown columns add up to the step
      QCOMPARE(model.index(r, StepModel::InputBound).data(Qt::BackgroundRole).isValid(),
               s.input_bound);
    }
    QCOMPARE(bound, static_cast<int>(a_.input_bound_steps));
    QCOMPARE(model.row_of_step(a_.per_step.back().step), model.rowCount() - 1);
    QCOMPARE(model.row_of_step(-12345), -1);
  }

  void diff_models_show_both_runs() {
    const auto d = ts::analysis::diff(a_, b_);
    DiffModel figures;
    QAbstractItemModelTester t1(&figures, QAbstractItemModelTester::FailureReportingMode::QtTest);
    figures.set_diff(d);
    QVERIFY(figures.rowCount() > 10);
    read_all(figures);
    bool found = false;
    for (int r = 0; r < figures.rowCount(); ++r)
      if (figures.index(r, DiffModel::Figure).data().toString() ==
          QStringLiteral("Step time, mean")) {
        found = true;
        QCOMPARE(figures.index(r, DiffModel::A).data(SortRole).toDouble(), d.step_mean_ms.a);
        QCOMPARE(figures.index(r, DiffModel::B).data(SortRole).toDouble(), d.step_mean_ms.b);
        QCOMPARE(figures.index(r, DiffModel::Delta).data(SortRole).toDouble(),
                 d.step_mean_ms.delta());
      }
    QVERIFY(found);
    figures.clear();
    QCOMPARE(figures.rowCount(), 0);

    KernelDiffModel kernels;
    QAbstractItemModelTester t2(&kernels, QAbstractItemModelTester::FailureReportingMode::QtTest);
    kernels.set_kernels(d.kernels);
    QCOMPARE(kernels.rowCount(), static_cast<int>(d.kernels.size()));
    read_all(kernels);
  }

  void overview_figures_name_their_report_keys() {
    const auto f = overview_figures(a_);
    QStringList keys;
    for (const Figure& x : f) keys << x.json_key;
    for (const char* k :
         {"steps", "step_time_ms.mean", "step_time_ms.p90", "samples_per_s", "input_pct",
          "device.busy_pct", "device.idle_pct", "idle_cost_per_1000_steps"})
      QVERIFY2(keys.contains(QLatin1String(k)), k);
    QCOMPARE(f[0].raw, static_cast<double>(a_.steps));
  }

  void step_bars_bucket_long_runs() {
    const auto one = step_bars(a_.per_step, 100000);
    QCOMPARE(one.size(), a_.per_step.size());
    std::size_t marked = 0;
    for (const StepBar& b : one) marked += b.marked();
    QCOMPARE(marked, static_cast<std::size_t>(a_.input_bound_steps));
    const auto few = step_bars(a_.per_step, 7);
    QVERIFY(few.size() <= 7);
    std::size_t steps = 0;
    for (const StepBar& b : few) steps += b.count;
    QCOMPARE(steps, a_.per_step.size());
    QVERIFY(step_bars({}, 10).empty());
    // A bar of several steps keeps its slowest: a spike does not vanish in the mean.
    for (const StepBar& b : few) {
      QVERIFY(b.max_ms + 1e-9 >= b.total_ms());
      bool found = false;
      for (std::size_t k = b.first_index; k < b.first_index + b.count; ++k)
        if (a_.per_step[k].step == b.worst_step)
          found = std::abs(static_cast<double>(a_.per_step[k].dur_ns) / 1e6 - b.max_ms) < 1e-9;
      QVERIFY(found);
    }
  }

  void step_bars_mark_exceptions_relative_to_the_run() {
    StepBar b;
    b.count = 1;
    b.part_ms[static_cast<std::size_t>(ts::analysis::Part::input_wait)] = 3;
    b.part_ms[static_cast<std::size_t>(ts::analysis::Part::device_compute)] = 7;
    QCOMPARE(b.input_pct(), 30.0);
    QVERIFY(b.exceptional(10));   // twice 10 % and over 5 %
    QVERIFY(!b.exceptional(20));  // a run at 20 % input: 30 % is not twice as much
    QVERIFY(!b.exceptional(1) || b.input_pct() >= 5);
  }
};

QTEST_GUILESS_MAIN(TestModels)
#include "test_models.moc"
