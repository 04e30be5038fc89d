// The steps table (analysis::StepSummary): one row per step with its duration, its breakdown by
// part, its input share and whether it is input-bound (those rows are tinted).
#pragma once

#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

class StepModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns {
    Step,
    Start,
    Duration,
    InputPct,
    InputBound,
    FirstPart,  // then one column per analysis::Part, in Part order
    DeviceBusy = FirstPart + analysis::kPartCount,
    ColumnCount
  };
  enum Roles { StepSortRole = SortRole, InputBoundRole, StepNumberRole, StartNsRole, EndNsRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_steps(std::vector<analysis::StepSummary> steps);
  // Keeps `steps` (a report's per-step figures, shared with it) instead of a copy: 208 bytes a
  // step, 460 MB for the 2 M steps of a 100 M-event trace.
  void set_steps(std::shared_ptr<const std::vector<analysis::StepSummary>> steps);
  // The row showing step number `step`, or -1.
  int row_of_step(std::int64_t step) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  QVariant cell(const analysis::StepSummary& s, int column, bool raw) const;

  std::shared_ptr<const std::vector<analysis::StepSummary>> steps_ =
      std::make_shared<const std::vector<analysis::StepSummary>>();
  std::int64_t origin_ns_ = 0;
};

}  // namespace ts::gui
