// The steps table (analysis::StepSummary): one row per step with its duration, its breakdown by
// part, its input share and whether it is input-bound (those rows are tinted).
#pragma once

#include <QAbstractTableModel>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gui/models/packed_steps.hpp"
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
  void set_steps(std::span<const analysis::StepSummary> steps);
  // Keeps `steps` (the session's packed per-step figures, shared with it) instead of a copy.
  void set_steps(std::shared_ptr<const PackedSteps> steps);
  // The row showing step number `step` (of several with that number, the last), or -1.
  int row_of_step(std::int64_t step) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  // Sorts the rows itself (a stable sort of one column's values, read in one pass over the
  // packed steps) rather than through a proxy model, which would read every cell of the column
  // through data() about log2(rows) times: millions of steps sort in well under a second.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

 private:
  QVariant cell(const analysis::StepSummary& s, int column, bool raw) const;
  std::size_t step_of_row(int row) const {
    return order_.empty() ? static_cast<std::size_t>(row) : order_[static_cast<std::size_t>(row)];
  }

  std::shared_ptr<const PackedSteps> steps_ = std::make_shared<const PackedSteps>();
  std::vector<std::uint32_t> order_;  // row -> step index once sorted; empty: in step order
  std::int64_t origin_ns_ = 0;
};

}  // namespace ts::gui
