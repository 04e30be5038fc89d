// The table models (kernels, pipeline stages, steps, diff), each under QAbstractItemModelTester,
// filled from real analyses of synthetic traces and from hand-made reports.
#include <sqlite3.h>

#include <QAbstractItemModelTester>
#include <QBrush>
#include <QRegularExpression>
#include <QSortFilterProxyModel>
#include <QtTest>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <set>
#include <vector>

#include "gui/models/diff_model.hpp"
#include "gui/models/format.hpp"
#include "gui/models/job_table.hpp"
#include "gui/models/kernel_model.hpp"
#include "gui/models/lever_model.hpp"
#include "gui/models/overview_figures.hpp"
#include "gui/models/packed_steps.hpp"
#include "gui/models/rank_heatmap.hpp"
#include "gui/models/stage_model.hpp"
#include "gui/models/step_bars.hpp"
#include "gui/models/step_model.hpp"
#include "gui/models/timeline/label_cache.hpp"
#include "gui_test_util.hpp"
#include "profiler/analysis/diff.hpp"
#include "profiler/analysis/kept_report.hpp"
#include "profiler/analysis/report_codec.hpp"
#include "profiler/store/analysis_table.hpp"
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

// Every field of two step summaries.
bool same_step(const ts::analysis::StepSummary& a, const ts::analysis::StepSummary& b) {
  return a.step == b.step && a.start_ns == b.start_ns && a.dur_ns == b.dur_ns &&
         a.parts.ns == b.parts.ns && a.input_ns == b.input_ns && a.input_pct == b.input_pct &&
         a.input_bound == b.input_bound && a.device_busy_ns == b.device_busy_ns &&
         a.idle_by_cause_ns == b.idle_by_cause_ns && a.h2d_all_ns == b.h2d_all_ns &&
         a.input_wait_all_ns == b.input_wait_all_ns &&
         a.input_work_in_wait_ns == b.input_work_in_wait_ns && a.rank_index == b.rank_index &&
         a.epoch == b.epoch && a.warmup == b.warmup;
}

// Steps over several packing blocks, with numbers that repeat (two ranks) and go back.
std::vector<ts::analysis::StepSummary> varied_steps(std::size_t n) {
  std::vector<ts::analysis::StepSummary> steps(n);
  for (std::size_t i = 0; i < n; ++i) {
    auto& s = steps[i];
    const auto k = static_cast<std::int64_t>(i);
    s.step = i % 2 == 0 ? k / 2 : k / 2 + (i % 7 == 0 ? -3 : 0);
    s.start_ns = 1'700'000'000'000'000'000 + k * 1'000'003 - (i % 5) * 17;
    s.dur_ns = 900'000 + (k * 7919) % 100'000;
    for (std::size_t p = 0; p < s.parts.ns.size(); ++p) s.parts.ns[p] = (k + 1) * (p + 3);
    s.input_ns = k % 1000;
    s.input_pct = static_cast<double>(k % 97) / 3.0;
    s.input_bound = i % 3 == 0;
    s.device_busy_ns = k * 11;
    for (std::size_t c = 0; c < s.idle_by_cause_ns.size(); ++c) s.idle_by_cause_ns[c] = k % (c + 2);
    s.h2d_all_ns = -k;  // hostile files carry anything: packing keeps it
    s.input_wait_all_ns = k << 20;
    s.input_work_in_wait_ns = 1;
    s.rank_index = static_cast<int>(i % 2);
    s.epoch = static_cast<int>(i / 1000) + 1;
    s.warmup = i < 10;
  }
  return steps;
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

  // The analysis' levers in its order, each projection in words, the details in two roles.
  void lever_model_shows_levers_and_their_details() {
    LeverModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    QVERIFY(!a_.levers.empty());
    model.set_report(a_);
    QCOMPARE(model.rowCount(), static_cast<int>(a_.levers.size()));
    QCOMPARE(model.columnCount(), int(LeverModel::ColumnCount));
    read_all(model);
    const auto& top = a_.levers.front();
    QCOMPARE(model.index(0, LeverModel::Title).data().toString(),
             QString::fromStdString(top.title));
    QCOMPARE(model.index(0, LeverModel::Title).data(LeverModel::LeverIdRole).toString(),
             QString::fromStdString(top.id));
    QCOMPARE(model.index(0, LeverModel::Speedup).data(SortRole).toDouble(), top.projection.speedup);

    Report r;
    r.currency = "€";
    r.step_time.mean_ms = 10;
    ts::analysis::Lever input;
    input.id = "input_pipeline";
    input.title = "Input pipeline";
    input.evidence = {"input wait is 53 % of step time"};
    input.points_at = {"decode", "map"};
    input.already_on = {"2 workers"};
    input.fix = {"--workers 4"};
    input.confidence = "modelled";
    input.confidence_why = "the step without its input wait";
    input.projection.speedup = 2.13;
    input.projection.step_time_ms = 4.7;
    input.projection.saving = 1.5;
    input.projection.saving_device_hours = 0.6;
    ts::analysis::Lever kernels;
    kernels.id = "model_kernels";
    kernels.title = "Model and kernels";
    kernels.confidence = "heuristic";
    r.levers = {input, kernels};
    model.set_report(r);
    QCOMPARE(model.rowCount(), 2);
    read_all(model);
    QCOMPARE(model.index(0, LeverModel::Speedup).data().toString(), QStringLiteral("2.13×"));
    QCOMPARE(model.index(0, LeverModel::StepTime).data().toString(),
             format_ms(10) + QStringLiteral(" → ") + format_ms(4.7));
    QVERIFY(model.index(0, LeverModel::Saved).data().toString().contains(QStringLiteral("€1.50")));
    QCOMPARE(model.index(0, LeverModel::Confidence).data().toString(), QStringLiteral("modelled"));
    const QString details =
        model.index(0, LeverModel::Title).data(LeverModel::DetailsRole).toString();
    QCOMPARE(
        details.split(QLatin1Char('\n')),
        QStringList({QStringLiteral("Evidence: input wait is 53 % of step time"),
                     QStringLiteral("Points at: decode, map"),
                     QStringLiteral("Already on: 2 workers"), QStringLiteral("Fix: --workers 4"),
                     QStringLiteral("How (modelled): the step without its input wait")}));
    QVERIFY(model.index(0, LeverModel::Speedup)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("Fix: --workers 4")));
    // A lever that saves no step time says so, and shows no saving.
    QCOMPARE(model.index(1, LeverModel::Speedup).data().toString(), QStringLiteral("no step time"));
    QVERIFY(model.index(1, LeverModel::Saved).data().toString().isEmpty());
    model.clear();
    QCOMPARE(model.rowCount(), 0);
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
    model.set_steps(a_.per_step.to_vector());
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

  // Every lever of either run, as `trainscope diff` lists them: gone in B (green), new in B
  // (red), or A's and B's projection; the real diff's levers row for row.
  void lever_diff_model_says_gone_new_or_both() {
    const auto real = ts::analysis::diff(a_, b_);
    LeverDiffModel from_real;
    QAbstractItemModelTester t0(&from_real, QAbstractItemModelTester::FailureReportingMode::QtTest);
    from_real.set_levers(real.levers);
    QCOMPARE(from_real.rowCount(), static_cast<int>(real.levers.size()));
    read_all(from_real);
    for (int r = 0; r < from_real.rowCount(); ++r)
      QCOMPARE(from_real.index(r, LeverDiffModel::Title).data().toString(),
               QString::fromStdString(real.levers[static_cast<std::size_t>(r)].title));

    ts::analysis::LeverDelta gone, fresh, both;
    gone.id = "input_pipeline";
    gone.title = "Input pipeline";
    gone.in_a = true;
    gone.speedup = {2.5, 0};
    gone.step_time_ms = {1.6, 0};
    gone.saving_device_hours = {0.5, 0};
    gone.saving = {1.5, 0};
    gone.confidence_a = "measured";
    fresh.id = "optimizer";
    fresh.title = "Optimizer";
    fresh.in_b = true;
    fresh.speedup = {0, 1.25};
    fresh.step_time_ms = {0, 0.8};
    fresh.confidence_b = "modelled";
    both = gone;
    both.id = "mixed_precision";
    both.title = "Mixed precision";
    both.in_b = true;
    both.speedup = {1.5, 1.2};
    both.confidence_b = "heuristic";
    LeverDiffModel m;
    QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.set_levers({gone, fresh, both}, "$");
    QCOMPARE(m.rowCount(), 3);
    read_all(m);
    const auto cell = [&](int r, int c) { return m.index(r, c).data().toString(); };
    const auto colour = [&](int r) {
      return m.index(r, LeverDiffModel::Change).data(Qt::ForegroundRole).value<QBrush>().color();
    };
    QCOMPARE(cell(0, LeverDiffModel::Change), QStringLiteral("gone in B"));
    QCOMPARE(cell(0, LeverDiffModel::InA), QStringLiteral("2.50×, 1.60 ms a step"));
    QCOMPARE(cell(0, LeverDiffModel::InB), QStringLiteral("—"));
    QVERIFY(cell(0, LeverDiffModel::SavedA).contains(QStringLiteral("$1.50")));
    QCOMPARE(colour(0), QColor(0x2e, 0x7d, 0x32));
    QCOMPARE(cell(1, LeverDiffModel::Change), QStringLiteral("new in B"));
    QCOMPARE(cell(1, LeverDiffModel::InA), QStringLiteral("—"));
    QCOMPARE(colour(1), QColor(0xc6, 0x28, 0x28));
    QCOMPARE(cell(1, LeverDiffModel::Confidence), QStringLiteral("modelled"));
    QCOMPARE(cell(2, LeverDiffModel::Change), QStringLiteral("1.50× → 1.20×"));
    QCOMPARE(colour(2), QColor(0x2e, 0x7d, 0x32));  // less left to gain in B
    QCOMPARE(cell(2, LeverDiffModel::Confidence), QStringLiteral("measured / heuristic"));
    QCOMPARE(m.index(2, LeverDiffModel::InB).data(SortRole).toDouble(), 1.2);
    QCOMPARE(m.index(0, LeverDiffModel::Title).data(Qt::ToolTipRole).toString(),
             QString::fromStdString(ts::analysis::lever_sentence(gone)));
    m.set_levers({});
    QCOMPARE(m.rowCount(), 0);
  }

  // The rank x step heat map: a cell per rank and step (a run of steps past max_columns), the
  // mean of the chosen figure, the colour scale of the analysed steps only, the slowest rank.
  void rank_heatmap_lays_ranks_against_steps() {
    ts::analysis::Report report;
    for (int r = 0; r < 3; ++r) {
      ts::analysis::RankFigures f;
      f.process = 10 + r;
      f.rank = r;
      report.ranks.push_back(f);
    }
    std::vector<ts::analysis::StepSummary> steps;
    for (int s = 0; s < 8; ++s)
      for (int r = 0; r < 3; ++r) {
        if (r == 1 && s == 6) continue;  // rank 1 has no step 6
        ts::analysis::StepSummary x;
        x.step = s;
        x.rank_index = r;
        x.start_ns = s * 10'000'000 + r;
        x.dur_ns = (r == 2 ? 4'000'000 : 2'000'000) + (s == 0 ? 50'000'000 : 0);
        x.parts.ns[static_cast<std::size_t>(ts::analysis::Part::collective)] =
            r == 2 ? 0 : 1'000'000;
        x.warmup = s == 0;
        steps.push_back(x);
      }
    const PackedSteps packed(steps);
    const RankHeatmap map = make_rank_heatmap(packed, report);
    QCOMPARE(map.ranks.size(), std::size_t{3});
    QCOMPARE(map.ranks[1].process, std::int64_t{11});
    QCOMPARE(map.ranks[2].name, QStringLiteral("r2"));
    QCOMPARE(map.columns, std::size_t{8});
    QCOMPARE(map.value(2, 3), 4.0);
    QVERIFY(std::isnan(map.value(1, 6)));
    QCOMPARE(map.start_ns[map.at(2, 3)], std::int64_t{30'000'002});
    QCOMPARE(map.end_ns[map.at(2, 3)], std::int64_t{34'000'002});
    QCOMPARE(map.lo_ms, 2.0);  // the 52 ms warm-up step is left out of the scale
    QCOMPARE(map.hi_ms, 4.0);
    QCOMPARE(map.color_of(100.0), map.color_of(4.0));  // clamped
    QVERIFY(map.color_of(2.0) != map.color_of(4.0));
    QVERIFY(slowest_rank_line(map).contains(QStringLiteral("r2")));
    QCOMPARE(cell_text(map, 1, 6), QStringLiteral("r1 · step 6: no step"));

    // Four columns of two steps each: means.
    const RankHeatmap runs = make_rank_heatmap(packed, report, std::nullopt, 4);
    QCOMPARE(runs.columns, std::size_t{4});
    QCOMPARE(runs.per_column, std::int64_t{2});
    QCOMPARE(runs.steps_of(1), std::make_pair(std::int64_t{2}, std::int64_t{3}));
    QCOMPARE(runs.value(0, 0), 27.0);  // (52 + 2) / 2
    QVERIFY(cell_text(runs, 0, 1).startsWith(QStringLiteral("r0 · steps 2-3: mean step time")));

    // By one part: rank 2 spends nothing in collectives, the others 1 ms a step.
    const RankHeatmap coll = make_rank_heatmap(packed, report, ts::analysis::Part::collective);
    QCOMPARE(coll.value(0, 4), 1.0);
    QCOMPARE(coll.value(2, 4), 0.0);
    QVERIFY(!slowest_rank_line(coll).contains(QStringLiteral("r2")));

    // One rank: no heat map.
    report.ranks.resize(1);
    QVERIFY(make_rank_heatmap(packed, report).empty());
  }

  // A capture with device events on one step in 4: a step without them reads "not sampled" in
  // the heat map (by a device part), the steps table's device columns, never 0; its step time
  // and host parts still read; a column of several steps means its sampled steps only; the
  // overview says where the device figures come from.
  void unsampled_steps_say_not_sampled() {
    Report report;
    for (int r = 0; r < 2; ++r) {
      ts::analysis::RankFigures f;
      f.process = r + 1;
      f.rank = r;
      report.ranks.push_back(f);
    }
    constexpr auto compute = static_cast<std::size_t>(ts::analysis::Part::device_compute);
    constexpr auto input = static_cast<std::size_t>(ts::analysis::Part::input_wait);
    std::vector<ts::analysis::StepSummary> steps;
    for (int s = 0; s < 8; ++s)
      for (int r = 0; r < 2; ++r) {
        ts::analysis::StepSummary x;
        x.step = s;
        x.rank_index = r;
        x.start_ns = s * 10'000'000;
        x.dur_ns = 5'000'000;
        x.device_sampled = s % 4 == 0;
        x.parts.ns[compute] = x.device_sampled ? 3'000'000 : 0;
        x.parts.ns[input] = 1'000'000;
        x.parts.ns[static_cast<std::size_t>(ts::analysis::Part::other)] =
            x.dur_ns - x.parts.ns[compute] - x.parts.ns[input];
        x.device_busy_ns = x.device_sampled ? 3'500'000 : 0;
        steps.push_back(x);
      }
    const PackedSteps packed(steps);

    const RankHeatmap by_compute =
        make_rank_heatmap(packed, report, ts::analysis::Part::device_compute);
    QVERIFY(by_compute.sampled(1, 0));
    QCOMPARE(by_compute.value(1, 0), 3.0);
    QVERIFY(!by_compute.sampled(1, 1));
    QVERIFY(std::isnan(by_compute.value(1, 1)));
    QCOMPARE(cell_text(by_compute, 1, 1),
             QStringLiteral("r1 · step 1: device compute not sampled (no device events recorded)"));
    QCOMPARE(by_compute.lo_ms, 3.0);  // the unsampled steps' 0 is not on the scale
    QVERIFY(by_compute.end_ns[by_compute.at(1, 1)] > by_compute.start_ns[by_compute.at(1, 1)]);
    // Columns of four steps: the mean of the one sampled step, not of 3, 0, 0, 0.
    const RankHeatmap runs =
        make_rank_heatmap(packed, report, ts::analysis::Part::device_compute, 2);
    QCOMPARE(runs.value(0, 1), 3.0);
    // Step time and host parts are known in every step.
    const RankHeatmap by_time = make_rank_heatmap(packed, report);
    QVERIFY(by_time.sampled(1, 1));
    QCOMPARE(by_time.value(1, 1), 5.0);
    QVERIFY(slowest_rank_line(by_time).isEmpty());  // every rank as slow: none named
    const RankHeatmap by_input = make_rank_heatmap(packed, report, ts::analysis::Part::input_wait);
    QCOMPARE(by_input.value(1, 1), 1.0);
    QVERIFY(!cell_text(by_input, 1, 1).contains(QStringLiteral("not sampled")));

    StepModel m;
    m.set_steps(std::span<const ts::analysis::StepSummary>(steps));
    const int compute_column = StepModel::FirstPart + static_cast<int>(compute);
    const int input_column = StepModel::FirstPart + static_cast<int>(input);
    // Row 2 is rank 0's step 1 (unsampled), row 0 its step 0 (sampled).
    QCOMPARE(m.index(2, StepModel::DeviceBusy).data().toString(), QStringLiteral("not sampled"));
    QCOMPARE(m.index(2, compute_column).data().toString(), QStringLiteral("not sampled"));
    QVERIFY(m.index(2, StepModel::DeviceBusy)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("sample of steps")));
    QCOMPARE(m.index(2, input_column).data().toString(), format_ns(1'000'000));
    QCOMPARE(m.index(0, StepModel::DeviceBusy).data().toString(), format_ns(3'500'000));
    QCOMPARE(m.index(0, compute_column).data().toString(), format_ns(3'000'000));
    // Sorted by device busy, unsampled steps come before a sampled step's 0.
    QCOMPARE(m.index(2, StepModel::DeviceBusy).data(SortRole).toLongLong(), qint64{-1});

    // The overview's step chart: a bar knows how many of its steps hold no device events.
    const std::vector<StepBar> bars = step_bars(steps);
    QCOMPARE(bars.size(), steps.size());
    QCOMPARE(bars[0].unsampled, std::size_t{0});
    QCOMPARE(bars[2].unsampled, std::size_t{1});
    QCOMPARE(step_bars(steps, 2).front().unsampled, std::size_t{6});  // steps 0-3 of both ranks

    report.device.has_device = true;
    report.device_sampling = Report::DeviceSampling{4, 2, 8};
    const std::vector<Figure> figures = overview_figures(report);
    const auto busy = std::find_if(figures.begin(), figures.end(), [](const Figure& f) {
      return f.json_key == QStringLiteral("device.busy_pct");
    });
    QVERIFY(busy != figures.end());
    QCOMPARE(busy->detail, QStringLiteral("device figures from 1 step in 4 (2 of 8 steps)"));
  }

  // The job overview as tables: the spread's median, p90 and worst figures, the ranks holding the
  // job back with cause, extra work and the others' wait (the heat map's row for each), and the
  // sentence above them.
  void job_tables_list_the_ranks_holding_the_job_back() {
    Report report;
    for (int r = 0; r < 4; ++r) {
      ts::analysis::RankFigures f;
      f.process = 100 + r;
      f.rank = r;
      report.ranks.push_back(f);
    }
    ts::analysis::JobOverview job;
    job.ranks = 4;
    job.step_ms = {10.0, 12.0, 13.5};
    job.input_ms = {1.0, 2.5, 3.0};
    job.collective_ms = {2.0, 3.0, 3.5};
    job.own_ms = {8.0, 10.0, 11.5};
    job.median_rank = 1;
    job.threshold_ms = 0.5;
    ts::analysis::JobOverview::HoldingBack slow;
    slow.index = 3;
    slow.own_ms = 11.5;
    slow.excess_ms = 3.5;
    slow.cause = "device compute";
    slow.wait_ms_per_step = 9.0;
    slow.wait_pct = 17.5;
    ts::analysis::JobOverview::HoldingBack input = slow;
    input.index = 2;
    input.excess_ms = 1.25;
    input.cause = "input";
    input.wait_ms_per_step = 3.0;
    input.wait_pct = 5.0;
    job.holding_back = {slow, input};
    report.job = job;

    JobSpreadModel spread;
    QAbstractItemModelTester spread_tester(&spread);
    spread.set_report(&report);
    QCOMPARE(spread.rowCount(), 3);
    QCOMPARE(spread.index(JobSpreadModel::Median, JobSpreadModel::StepTime).data().toString(),
             format_ms(10.0));
    QCOMPARE(spread.index(JobSpreadModel::P90, JobSpreadModel::Input).data().toString(),
             format_ms(2.5));
    QCOMPARE(spread.index(JobSpreadModel::Worst, JobSpreadModel::OwnWork).data(SortRole).toDouble(),
             11.5);
    QVERIFY(spread.index(JobSpreadModel::Median, 0)
                .data(Qt::ToolTipRole)
                .toString()
                .contains(QStringLiteral("r1")));
    read_all(spread);

    HoldingBackModel holding;
    QAbstractItemModelTester holding_tester(&holding);
    holding.set_report(&report);
    QCOMPARE(holding.rowCount(), 2);
    QCOMPARE(holding.index(0, HoldingBackModel::Rank).data().toString(), QStringLiteral("r3"));
    QCOMPARE(holding.index(0, HoldingBackModel::Cause).data().toString(),
             QStringLiteral("device compute"));
    QCOMPARE(holding.index(0, HoldingBackModel::Extra).data().toString(),
             QStringLiteral("+") + format_ms(3.5));
    QCOMPARE(holding.index(0, HoldingBackModel::Wait).data().toString(), format_ms(9.0));
    QCOMPARE(holding.index(0, HoldingBackModel::WaitShare).data().toString(), format_pct(17.5));
    QCOMPARE(holding.index(1, HoldingBackModel::Cause).data().toString(), QStringLiteral("input"));
    QCOMPARE(holding.rank_index(1), 2);
    QCOMPARE(holding.index(1, 0).data(HoldingBackModel::RankIndexRole).toInt(), 2);
    QCOMPARE(holding.rank_index(2), -1);
    read_all(holding);
    QCOMPARE(holding_back_line(report),
             QStringLiteral("2 of 4 ranks hold the job back: the others wait %1 a step for r3 "
                            "(device compute), %2 of the job's device time.")
                 .arg(format_ms(9.0), format_pct(17.5)));

    report.job->holding_back.clear();
    holding.set_report(&report);
    QCOMPARE(holding.rowCount(), 0);
    QVERIFY(holding_back_line(report).startsWith(QStringLiteral("No rank holds the job back")));
    report.job->collective_ms = {};
    QVERIFY(holding_back_line(report).contains(QStringLiteral("do not meet in collectives")));
    report.job.reset();
    spread.set_report(&report);
    QCOMPARE(spread.rowCount(), 0);
    QVERIFY(holding_back_line(report).isEmpty());
  }

  // The compare table's units: a share changes by percentage points ("pp"), never by "%"; a
  // figure a run lacks (samples/s of an imported trace without a batch size) is "n/a", not 0;
  // money reads at the scale that shows cents, with the sign before the currency.
  void diff_model_writes_points_missing_figures_and_money_readably() {
    ts::analysis::RunDiff d;
    d.input_pct = {60.0, 22.7};
    d.samples_per_s = {0.0, 0.0};
    d.device_a = d.device_b = true;
    d.device_busy_pct = {40.0, 90.0};
    d.idle_cost_per_1000_steps = {0.00042, 0.0000381};  // $0.42 and $0.0381 per 1 M steps
    DiffModel m;
    QAbstractItemModelTester t(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.set_diff(d);
    const auto row = [&](const QString& prefix) {
      for (int r = 0; r < m.rowCount(); ++r)
        if (m.index(r, DiffModel::Figure).data().toString().startsWith(prefix)) return r;
      return -1;
    };
    const int input = row(QStringLiteral("Input share"));
    QVERIFY(input >= 0);
    QCOMPARE(m.index(input, DiffModel::Delta).data().toString(), QStringLiteral("-37.3 pp"));
    QVERIFY(m.index(input, DiffModel::Change).data().toString().isEmpty());
    const int rate = row(QStringLiteral("Samples/s"));
    QVERIFY(rate >= 0);
    QCOMPARE(m.index(rate, DiffModel::A).data().toString(), QStringLiteral("n/a"));
    QCOMPARE(m.index(rate, DiffModel::B).data().toString(), QStringLiteral("n/a"));
    const int cost = row(QStringLiteral("Idle cost per "));
    QVERIFY(cost >= 0);
    QCOMPARE(m.index(cost, DiffModel::Figure).data().toString(),
             QStringLiteral("Idle cost per 1 M steps"));
    const QString a = m.index(cost, DiffModel::A).data().toString();
    const QString delta = m.index(cost, DiffModel::Delta).data().toString();
    QCOMPARE(a, QStringLiteral("$0.42"));
    QVERIFY2(delta.startsWith(QStringLiteral("-$")), qPrintable(delta));
    for (int r = 0; r < m.rowCount(); ++r)
      for (int c = DiffModel::A; c <= DiffModel::Change; ++c) {
        const QString text = m.index(r, c).data().toString();
        QVERIFY2(!text.contains(QRegularExpression("\\de[-+]")), qPrintable(text));  // 1e-05
        QVERIFY2(!text.contains(QStringLiteral("$-")), qPrintable(text));
      }
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
    // A capture without device events says so, rather than leaving the device out unexplained.
    ts::analysis::Report host_only = a_;
    host_only.device = {};
    host_only.device_events_off = true;
    bool said = false;
    for (const Figure& x : overview_figures(host_only))
      said = said ||
             (x.json_key == QLatin1String("device.present") &&
              x.value == QLatin1String("not traced") && x.detail.contains("--trace-device off"));
    QVERIFY(said);
  }

  // Packed steps read back every field of every step, in any order, at a third of the memory.
  void packed_steps_read_back_what_they_packed() {
    const auto steps = varied_steps(3 * PackedSteps::kBlockSteps + 17);
    const PackedSteps packed(steps);
    QCOMPARE(packed.size(), steps.size());
    QVERIFY(packed.packed_bytes() * 3 < steps.size() * sizeof(ts::analysis::StepSummary));
    for (std::size_t i = steps.size(); i-- > 0;) QVERIFY(same_step(packed.at(i), steps[i]));
    std::size_t next = 0;
    packed.for_each([&](std::size_t i, const ts::analysis::StepSummary& s) {
      QCOMPARE(i, next++);
      QVERIFY(same_step(s, steps[i]));
    });
    QCOMPARE(next, steps.size());
    const auto earliest = std::min_element(
        steps.begin(), steps.end(), [](auto& a, auto& b) { return a.start_ns < b.start_ns; });
    QCOMPARE(packed.earliest_start_ns(), earliest->start_ns);
    // The last step with a number, wherever it lies.
    for (const std::int64_t number : {std::int64_t{0}, std::int64_t{700}, std::int64_t{1500}}) {
      std::optional<std::size_t> want;
      for (std::size_t i = 0; i < steps.size(); ++i)
        if (steps[i].step == number) want = i;
      QCOMPARE(packed.find_step(number), want);
    }
    QCOMPARE(packed.find_step(-12345), std::optional<std::size_t>());
    QVERIFY(PackedSteps().empty());

    // Built in pieces of any size, it packs the same; a share the encoding refuses (a hostile
    // trace's) reads as 0, and the rest of its block reads back whole.
    auto odd = steps;
    odd[1500].input_pct = std::numeric_limits<double>::quiet_NaN();
    odd[1501].input_pct = 1e300;
    PackedSteps pieces;
    for (std::size_t at = 0; at < odd.size(); at += 333)
      pieces.append(std::span(odd).subspan(at, std::min<std::size_t>(333, odd.size() - at)));
    pieces.finish();
    QCOMPARE(pieces.size(), odd.size());
    QCOMPARE(pieces.packed_bytes(), packed.packed_bytes());
    QCOMPARE(pieces.at(1500).input_pct, 0.0);
    QCOMPARE(pieces.at(1501).input_pct, 0.0);
    odd[1500].input_pct = odd[1501].input_pct = 0;
    for (std::size_t i = 0; i < odd.size(); ++i) QVERIFY(same_step(pieces.at(i), odd[i]));
  }

  // The steps of a report the trace keeps stay in the file: indexed, read back a block at a time
  // across its parts, the same as the report's; a part that no longer reads back reads as empty
  // steps, without a crash.
  void packed_steps_read_a_kept_report_from_the_file() {
    const QString path = test::synth_trace(dir_, 5000, 0.3, QStringLiteral("kept.db"));
    const ts::store::Reader reader(path.toStdString());
    ts::analysis::AnalysisOptions o;
    o.keep_gaps = false;
    Report many = ts::analysis::analyse(reader, o);  // kept under the trace's key: its steps
    many.per_step = varied_steps(40'000);            // are what comes back
    QVERIFY(ts::analysis::keep_report(reader, many, o));

    PackedStepsSink sink(path.toStdString());
    const Report got = ts::analysis::analyse_or_reuse(reader, o, sink, 0);
    QVERIFY(got.per_step.empty());
    const auto packed = sink.finish();
    QVERIFY(packed->in_file());
    QCOMPARE(packed->size(), many.per_step.size());
    QVERIFY(packed->packed_bytes() < many.per_step.size() * 4);  // an index, not the steps
    for (std::size_t i = many.per_step.size(); i-- > 0;)  // backwards: every block read again
      QVERIFY(same_step(packed->at(i), many.per_step[i]));
    packed->for_each([&](std::size_t i, const ts::analysis::StepSummary& s) {
      QVERIFY(same_step(s, many.per_step[i]));
    });
    std::optional<std::size_t> last_700;
    for (std::size_t i = 0; i < many.per_step.size(); ++i)
      if (many.per_step[i].step == 700) last_700 = i;
    QVERIFY(last_700);
    QCOMPARE(packed->find_step(700), last_700);
    QVERIFY(!packed->read_failed());

    // The trace's kept report replaced behind the viewer's back: empty steps, said once.
    sqlite3* db = nullptr;
    QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
    QCOMPARE(sqlite3_exec(db, "UPDATE analysis SET data = x'01' WHERE part = 2", nullptr, nullptr,
                          nullptr),
             SQLITE_OK);
    sqlite3_close(db);
    const auto lost = packed->at(PackedSteps::kBlockSteps * 20);  // in part 2
    QCOMPARE(lost.step, std::int64_t{-1});
    QVERIFY(packed->read_failed());
    StepModel model;  // the steps table says so in the row
    model.set_steps(packed);
    while (static_cast<std::size_t>(model.rowCount()) <= PackedSteps::kBlockSteps * 20)
      model.fetchMore({});
    const QModelIndex row = model.index(PackedSteps::kBlockSteps * 20, StepModel::Step);
    QCOMPARE(row.data().toString(), QStringLiteral("unreadable"));
    QVERIFY(row.data(Qt::ToolTipRole).toString().contains(QStringLiteral("open it again")));
    QCOMPARE(model.index(5, StepModel::Step).data().toLongLong(), many.per_step[5].step);
    QVERIFY(same_step(packed->at(5), many.per_step[5]));  // part 1 still reads
  }

  // A kept report's parts may be of any length in a hostile file, and steps packed in memory may
  // come before and after them: every step reads back at its index, whatever the blocks' sizes.
  void packed_steps_mix_blocks_of_any_length() {
    const QString path = test::synth_trace(dir_, 5000, 0.3, QStringLiteral("parts.db"));
    const ts::store::Reader reader(path.toStdString());
    ts::analysis::AnalysisOptions o;
    o.keep_gaps = false;
    Report report = ts::analysis::analyse(reader, o);
    report.per_step = varied_steps(4700);
    QVERIFY(ts::analysis::keep_report(reader, report, o));
    const std::vector<ts::analysis::StepSummary> steps = report.per_step.to_vector();
    const std::span<const ts::analysis::StepSummary> all(steps);
    // Parts of 1000, 3000 and 700 steps in place of the one of 4700, kept (and sealed) under
    // the same key after the same head.
    std::string key, head;
    {
      sqlite3* db = nullptr;
      QCOMPARE(sqlite3_open(path.toUtf8().constData(), &db), SQLITE_OK);
      sqlite3_stmt* st = nullptr;
      sqlite3_prepare_v2(db, "SELECT key, data FROM analysis WHERE part = 0", -1, &st, nullptr);
      QCOMPARE(sqlite3_step(st), SQLITE_ROW);
      key = reinterpret_cast<const char*>(sqlite3_column_text(st, 0));
      head.assign(static_cast<const char*>(sqlite3_column_blob(st, 1)),
                  static_cast<std::size_t>(sqlite3_column_bytes(st, 1)));
      sqlite3_finalize(st);
      sqlite3_close(db);
    }
    const std::array<std::pair<std::size_t, std::size_t>, 3> runs{
        {{0, 1000}, {1000, 4000}, {4000, 4700}}};
    std::vector<std::string> parts;
    for (const auto& [from, to] : runs)
      parts.push_back(ts::analysis::encode_step_run(all.subspan(from, to - from),
                                                    from == 0 ? nullptr : &all[from - 1]));
    QVERIFY(ts::store::keep_analysis(path.toStdString(), key, ts::analysis::analysis_build_id(),
                                     1 + parts.size(),
                                     [&](std::size_t i) { return i == 0 ? head : parts[i - 1]; }));

    const auto reads_back = [&](const PackedSteps& packed) {
      QCOMPARE(packed.size(), all.size());
      for (std::size_t i = all.size(); i-- > 0;) QVERIFY(same_step(packed.at(i), all[i]));
      std::size_t next = 1500;
      bool in_order = true;
      packed.for_each_from(1500, [&](std::size_t i, const ts::analysis::StepSummary& s) {
        in_order = in_order && i == next++ && same_step(s, all[i]);
        return i < 4100;
      });
      QVERIFY(in_order);
      QCOMPARE(next, std::size_t{4101});
      std::optional<std::size_t> last_700;
      for (std::size_t i = 0; i < all.size(); ++i)
        if (all[i].step == 700) last_700 = i;
      QCOMPARE(packed.find_step(700), last_700);
    };
    {  // through the analysis, as the viewer takes them: every part from the file
      PackedStepsSink sink(path.toStdString());
      (void)ts::analysis::analyse_or_reuse(reader, o, sink, 0);
      const auto packed = sink.finish();
      QVERIFY(packed->in_file());
      reads_back(*packed);
    }
    // In memory, then from the file, then in memory again.
    PackedSteps mixed;
    mixed.append(all.first(1000));
    QVERIFY(mixed.add_kept_part(path.toStdString(), key, 2, parts[1]));
    mixed.append(all.subspan(4000, 333));
    mixed.append(all.subspan(4333));
    mixed.finish();
    QVERIFY(mixed.in_file());
    reads_back(mixed);
  }

  // The steps table sorts itself: stable, every column, and a held index follows its step.
  void step_model_sorts_itself_stably() {
    const auto steps = varied_steps(2 * PackedSteps::kBlockSteps + 5);
    StepModel model;
    QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::QtTest);
    model.set_steps(steps);
    const QPersistentModelIndex held = model.index(1234, StepModel::Duration);
    const std::int64_t held_step = steps[1234].step;
    const std::int64_t held_start = steps[1234].start_ns;
    for (const int column : {int(StepModel::Duration), int(StepModel::InputPct),
                             int(StepModel::InputBound), int(StepModel::Step)}) {
      for (const Qt::SortOrder order : {Qt::AscendingOrder, Qt::DescendingOrder}) {
        model.sort(column, order);
        QCOMPARE(model.rowCount(), static_cast<int>(steps.size()));
        std::set<std::int64_t> starts;
        for (int r = 0; r < model.rowCount(); ++r) {
          starts.insert(model.index(r, 0).data(StepModel::StartNsRole).toLongLong());
          if (r == 0) continue;
          const QVariant a = model.index(r - 1, column).data(SortRole);
          const QVariant b = model.index(r, column).data(SortRole);
          const bool in_order = order == Qt::AscendingOrder
                                    ? QVariant::compare(a, b) != QPartialOrdering::Greater
                                    : QVariant::compare(a, b) != QPartialOrdering::Less;
          QVERIFY2(in_order, qPrintable(QStringLiteral("column %1 row %2").arg(column).arg(r)));
          // Equal values keep the steps' order (their starts ascend), whichever way it sorts.
          if (QVariant::compare(a, b) == QPartialOrdering::Equivalent)
            QVERIFY(model.index(r - 1, 0).data(StepModel::StartNsRole).toLongLong() <
                    model.index(r, 0).data(StepModel::StartNsRole).toLongLong());
        }
        QCOMPARE(starts.size(), steps.size());  // every step once
        QVERIFY(held.isValid());
        QCOMPARE(held.data(StepModel::StepNumberRole).toLongLong(), held_step);
        QCOMPARE(held.data(StepModel::StartNsRole).toLongLong(), held_start);
        const int row = model.row_of_step(steps.back().step);
        QVERIFY(row >= 0);
        QCOMPARE(model.index(row, 0).data(StepModel::StepNumberRole).toLongLong(),
                 steps.back().step);
      }
    }
    // No sort column: the steps' own order again, the held index still on its step.
    model.sort(-1);
    for (int r : {0, 1234, static_cast<int>(steps.size()) - 1})
      QCOMPARE(model.index(r, 0).data(StepModel::StartNsRole).toLongLong(),
               steps[static_cast<std::size_t>(r)].start_ns);
    QCOMPARE(held.row(), 1234);
  }

  // The rows are fetched a batch at a time (a table view's vertical header keeps a few bytes per
  // row it knows of: test_overview's steps page). A sort orders every step; a held index sorted
  // past them is fetched to.
  void step_model_fetches_its_rows_as_asked() {
    const std::size_t n = 2 * StepModel::kFetchRows + 123;
    const auto steps = varied_steps(n);
    StepModel model;  // (QAbstractItemModelTester fetches rows itself, as a view would)
    model.set_steps(steps);
    QCOMPARE(model.step_count(), n);
    QCOMPARE(model.rowCount(), StepModel::kFetchRows);
    QVERIFY(model.canFetchMore({}));
    model.fetchMore({});
    QCOMPARE(model.rowCount(), 2 * StepModel::kFetchRows);
    model.fetchMore({});
    QCOMPARE(model.rowCount(), static_cast<int>(n));
    QVERIFY(!model.canFetchMore({}));

    // The shortest of the first rows, held, goes past them when sorted longest first.
    model.set_steps(steps);
    std::size_t shortest = 0;
    for (std::size_t i = 0; i < static_cast<std::size_t>(StepModel::kFetchRows); ++i)
      if (steps[i].dur_ns < steps[shortest].dur_ns) shortest = i;
    const auto longer = std::count_if(steps.begin(), steps.end(), [&](const auto& s) {
      return s.dur_ns > steps[shortest].dur_ns;
    });
    QVERIFY(longer >= StepModel::kFetchRows);
    const QPersistentModelIndex held = model.index(static_cast<int>(shortest), StepModel::Start);
    model.sort(StepModel::Duration, Qt::DescendingOrder);
    QVERIFY(held.isValid());
    QVERIFY(held.row() >= longer);
    QVERIFY(model.rowCount() > held.row());
    QCOMPARE(held.data(StepModel::StartNsRole).toLongLong(), steps[shortest].start_ns);
    // In the steps' order again, the first rows still fetched; finding a step fetches to it.
    model.sort(-1);
    QCOMPARE(held.row(), static_cast<int>(shortest));
    model.set_steps(steps);
    const int last = model.row_of_step(steps.back().step);
    QCOMPARE(last, static_cast<int>(n) - 1);
    QCOMPARE(model.rowCount(), static_cast<int>(n));
    QCOMPARE(model.index(last, 0).data(StepModel::StartNsRole).toLongLong(), steps.back().start_ns);
  }

  void step_bars_bucket_long_runs() {
    const auto one = step_bars(a_.per_step.to_vector(), 100000);
    QCOMPARE(one.size(), a_.per_step.size());
    std::size_t marked = 0;
    for (const StepBar& b : one) marked += b.marked();
    QCOMPARE(marked, static_cast<std::size_t>(a_.input_bound_steps));
    const auto few = step_bars(a_.per_step.to_vector(), 7);
    QVERIFY(few.size() <= 7);
    std::size_t steps = 0;
    for (const StepBar& b : few) steps += b.count;
    QCOMPARE(steps, a_.per_step.size());
    QVERIFY(step_bars(std::span<const ts::analysis::StepSummary>{}, 10).empty());
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

  // A bar is marked with the highest input class of its analysed steps, and counts both.
  void step_bars_mark_the_highest_class_of_their_steps() {
    using ts::analysis::Verdict;
    std::vector<ts::analysis::StepSummary> steps(6);
    const Verdict classes[] = {Verdict::high,     Verdict::none, Verdict::moderate,
                               Verdict::moderate, Verdict::none, Verdict::none};
    for (std::size_t i = 0; i < steps.size(); ++i) {
      steps[i].step = static_cast<std::int64_t>(i);
      steps[i].dur_ns = 1000;
      steps[i].parts[ts::analysis::Part::other] = 1000;
      steps[i].input_verdict = classes[i];
      steps[i].input_bound = classes[i] != Verdict::none;
    }
    steps[0].warmup = true;  // left out of the counts and marks, as the report leaves it out
    const auto one = step_bars(steps, 100);
    QCOMPARE(one[0].mark(), Verdict::none);
    QCOMPARE(one[2].mark(), Verdict::moderate);
    const auto pairs = step_bars(steps, 3);  // steps 0-1, 2-3, 4-5
    QCOMPARE(pairs.size(), std::size_t{3});
    QCOMPARE(pairs[0].mark(), Verdict::none);
    QCOMPARE(pairs[1].mark(), Verdict::moderate);
    QCOMPARE(pairs[1].input_bound, std::size_t{2});
    QCOMPARE(pairs[1].input_bound_high, std::size_t{0});
    QCOMPARE(pairs[2].mark(), Verdict::none);
    steps[0].warmup = false;
    const auto counted = step_bars(steps, 3);
    QCOMPARE(counted[0].mark(), Verdict::high);
    QCOMPARE(counted[0].input_bound_high, std::size_t{1});
  }

  // Text from a trace is cut before it becomes a label, a cell, a tooltip or the overview: a
  // 1 MB name or meta value costs the viewer nothing more than a short one.
  void trace_text_is_cut_for_display() {
    const std::string huge(1 << 20, 'n');
    const QString cut = display_text(huge);
    QVERIFY(cut.size() < static_cast<qsizetype>(kMaxShownNameBytes) + 40);
    QVERIFY(cut.startsWith(QString(64, QLatin1Char('n'))));
    QVERIFY2(cut.endsWith(QStringLiteral("(%1 more bytes)").arg(huge.size() - kMaxShownNameBytes)),
             qPrintable(cut.right(40)));
    QCOMPARE(display_text("conv2d"), QStringLiteral("conv2d"));
    std::string accents;  // 2-byte characters: the cut falls inside one and backs off it
    for (int i = 0; i < 300'000; ++i) accents += "é";
    QVERIFY(!display_text(accents, 101).contains(QChar::ReplacementCharacter));

    ts::analysis::KernelStat k;
    k.name = huge;
    k.count = 1;
    KernelModel kernels;
    kernels.set_kernels({k});
    const QModelIndex name = kernels.index(0, KernelModel::Name);
    QCOMPARE(name.data().toString(), cut);
    QCOMPARE(name.data(Qt::ToolTipRole).toString(), cut);
    QCOMPARE(name.data(KernelModel::KernelNameRole).toString().size(),
             static_cast<qsizetype>(huge.size()));  // what finds its instances stays whole

    Report r;
    r.model = std::string(100'000, 'm');
    r.backend = "cpu";
    const QString title = run_title(r);
    QVERIFY(title.size() < static_cast<qsizetype>(kMaxTitleValueBytes) + 60);
    QVERIFY(title.endsWith(QStringLiteral(" · cpu")));

    // A warning quoting a 1 MB write error: its start and its end are shown, and the value
    // can wrap (a break opportunity in every long run without a space).
    std::vector<std::string> warnings(kMaxBannerWarnings + 10, "rank 3's part did not arrive");
    warnings[0] = "the capture stopped writing after an error (" + huge +
                  "): 12 events are missing and the trace ends early";
    const QStringList banner = warning_banner(warnings).split(QLatin1Char('\n'));
    QCOMPARE(banner.size(), static_cast<qsizetype>(kMaxBannerWarnings) + 1);
    QVERIFY(banner[0].size() < static_cast<qsizetype>(kMaxShownSentenceBytes) + 100);
    QVERIFY(banner[0].contains(QStringLiteral("the capture stopped writing after an error (")));
    QVERIFY2(banner[0].endsWith(QStringLiteral("the trace ends early")), qPrintable(banner[0]));
    QVERIFY(banner[0].contains(QStringLiteral("bytes left out")));
    const QStringList unbroken =
        banner[0].split(QRegularExpression(QStringLiteral("[\\s\\x{200B}]")));
    for (const QString& run : unbroken) QVERIFY(run.size() <= kUnbrokenChars);
    QCOMPARE(banner[1], QStringLiteral("⚠ Partial trace: rank 3's part did not arrive"));
    QVERIFY2(banner.back().contains(QStringLiteral("10 more warnings")), qPrintable(banner.back()));
    QVERIFY(!display_sentence(accents, 301).contains(QChar::ReplacementCharacter));
  }

  // The timeline's labels, from a trace whose kernel name is 1 MB (the store's reader keeps
  // 64 KiB of it): cut again for display.
  void timeline_labels_of_a_huge_name_are_cut() {
    const QString path = dir_.filePath(QStringLiteral("huge_name.db"));
    {
      ts::store::Writer w(path.toStdString());
      const std::string huge(1 << 20, 'k');
      test::put_step_and_kernel(w, huge.c_str(), "main", "GPU 0 stream 7");
      const std::vector<ts::store::EventRow> rows{{1'000'000, 5'000, 1, 1, 0, ts::store::kNull},
                                                  {1'001'000, 1'000, 2, 2, 0, ts::store::kNull}};
      w.append(std::span<const ts::store::EventRow>(rows));
      w.finish();
    }
    const ts::store::Reader reader(path.toStdString());
    LabelCache labels;
    labels.reset(&reader);
    const QString name = labels.get(2).name;
    QVERIFY(name.size() < static_cast<qsizetype>(kMaxShownNameBytes) + 40);
    QVERIFY(name.endsWith(QStringLiteral("more bytes)")));
    QCOMPARE(labels.get(1).name, QStringLiteral("step"));
  }
};

QTEST_GUILESS_MAIN(TestModels)
#include "test_models.moc"
