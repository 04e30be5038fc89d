// The levers table of the overview (analysis::Lever, Report::levers): one row per lever, largest
// saving first as the analysis ranks them, with its projection and confidence; the evidence,
// what it points at, what is already on and the fix are the row's details (tooltip, DetailsRole).
#pragma once

#include <QAbstractTableModel>
#include <string>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

class LeverModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Title, Speedup, StepTime, Saved, Confidence, ColumnCount };
  // DetailsRole: the lever's evidence, points-at, already-on, fix and how-projected lines, one
  // per line (what the overview shows for the selected lever); LeverIdRole: "input_pipeline", ...
  enum Roles { LeverSortRole = SortRole, DetailsRole, LeverIdRole };

  using QAbstractTableModel::QAbstractTableModel;
  // The report's levers and what their figures are written in (its currency, its step time).
  void set_report(const analysis::Report& report);
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analysis::Lever> levers_;
  std::string currency_ = "$";
  double step_mean_ms_ = 0;
};

// A lever's details as lines: "Evidence: …", "Points at: a, b", "Already on: …", "Fix: …",
// "How: …" (what the tooltip and the overview's details show).
QStringList lever_details(const analysis::Lever& lever);

}  // namespace ts::gui
