// The Ranks tab's job overview (analysis::JobOverview, Report::job) as two small tables:
//   - JobSpreadModel: the ranks' per-step figures as a distribution, one row each for the
//     median, the p90 and the worst rank's figure (step time, input, collective, own work);
//   - HoldingBackModel: the ranks that hold the job back, one row each with the cause, its own
//     work per step over the median rank's and the other ranks' wait for it (per step, and as a
//     share of the job's device time). RankIndexRole gives the row's index into Report::ranks,
//     which is the heat map's row (rank_heatmap.hpp).
// Both are empty for a report without a job overview (fewer than two ranks with steps).
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <optional>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

class JobSpreadModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Figure, StepTime, Input, Collective, OwnWork, ColumnCount };
  enum Rows { Median, P90, Worst, RowCount };

  using QAbstractTableModel::QAbstractTableModel;
  void set_report(const analysis::Report* report);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::optional<analysis::JobOverview> job_;
  QString median_rank_;  // the median rank's name ("r7")
};

class HoldingBackModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Rank, Cause, Extra, Wait, WaitShare, ColumnCount };
  enum Roles { HoldingSortRole = SortRole, RankIndexRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_report(const analysis::Report* report);
  // The row's index into Report::ranks (the heat map's row), or -1.
  int rank_index(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  struct Row {
    analysis::JobOverview::HoldingBack figures;
    QString name;
  };
  std::vector<Row> rows_;
};

// A rank of the report as the viewer names it: "r3", or its process's name when it has no rank.
QString rank_name(const analysis::RankFigures& rank);

// The job overview in a sentence, above its tables: "2 of 64 ranks hold the job back: the others
// wait 3.10 ms a step for r5 (input), 4.2 % of the job's device time." or "No rank holds the
// job back: every rank's own work per step is within 0.20 ms of the median rank's (r7)."; empty
// without a job overview.
QString holding_back_line(const analysis::Report& report);

}  // namespace ts::gui
