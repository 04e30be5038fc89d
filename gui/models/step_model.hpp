// The steps table (analysis::StepSummary): one row per step with its duration, its breakdown by
// part, its input share and whether it is input-bound (those rows are tinted). A step without
// device events, of a capture that recorded them on a sample of steps, reads "not sampled" in
// the device columns (device busy and the device parts), not 0.
//
// The rows are fetched kFetchRows at a time (canFetchMore()/fetchMore(): a view asks for more as
// it is scrolled to its end), as a SQL model fetches a large query's: a table view keeps a few
// bytes per row in its vertical header, 35 MB for the 2.2 M steps of a 100 M-event trace, where
// a look at the steps is at the first rows of some order (the slowest steps, the most
// input-bound). A sort orders every step, and keeps the rows fetched.
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
  static constexpr int kFetchRows = 10'000;

  using QAbstractTableModel::QAbstractTableModel;
  void set_steps(std::span<const analysis::StepSummary> steps);
  // Keeps `steps` (the session's packed per-step figures, shared with it) instead of a copy.
  void set_steps(std::shared_ptr<const PackedSteps> steps);
  // The row showing step number `step` (of several with that number, the last), fetched up to
  // it, or -1.
  int row_of_step(std::int64_t step);
  // How many steps there are (rowCount() is how many rows are fetched).
  std::size_t step_count() const { return steps_->size(); }

  // Device busy or a device part's column (device_part()).
  static bool device_column(int column);

  int rowCount(const QModelIndex& parent = {}) const override;
  bool canFetchMore(const QModelIndex& parent) const override;
  void fetchMore(const QModelIndex& parent) override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;
  // Sorts the rows itself (a stable sort of one column's values, read in one pass over the
  // packed steps) rather than through a proxy model, which would read every cell of the column
  // through data() about log2(rows) times: millions of steps sort in well under a second.
  void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

 private:
  QVariant cell(const analysis::StepSummary& s, int column, bool raw) const;
  // The rows of every step in order `column`, `order` (row -> step index).
  std::vector<std::uint32_t> sorted(int column, Qt::SortOrder order) const;
  // Fetches rows up to `rows` (at most every step).
  void fetch_to(std::size_t rows);
  std::size_t step_of_row(int row) const {
    return order_.empty() ? static_cast<std::size_t>(row) : order_[static_cast<std::size_t>(row)];
  }

  std::shared_ptr<const PackedSteps> steps_ = std::make_shared<const PackedSteps>();
  std::vector<std::uint32_t> order_;  // row -> step index once sorted; empty: in step order
  std::size_t fetched_ = 0;           // rows
  std::int64_t origin_ns_ = 0;
};

}  // namespace ts::gui
