// The input pipeline table (analysis::PipelineStats): one row per stage, the bottleneck marked.
#pragma once

#include <QAbstractTableModel>
#include <optional>
#include <string>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

class StageModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Stage, Count, Total, PerSample, Threads, Utilisation, Bottleneck, ColumnCount };
  enum Roles { StageSortRole = SortRole, IsBottleneckRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_pipeline(const analysis::PipelineStats& pipeline);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analysis::StageStat> stages_;
  std::optional<std::string> bottleneck_;
};

}  // namespace ts::gui
