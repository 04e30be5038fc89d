// The kernel statistics table (analysis::KernelStat): one row per kernel name.
#pragma once

#include <QAbstractTableModel>
#include <QSortFilterProxyModel>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::gui {

class KernelModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Name, Count, Total, Mean, Min, Max, Share, ColumnCount };
  // KernelNameRole: the kernel's name, in every column (what leads to its instances).
  enum Roles { KernelSortRole = SortRole, SharePctRole, KernelNameRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_kernels(std::vector<analysis::KernelStat> kernels);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analysis::KernelStat> kernels_;
};

// Sorts kernels by raw values and filters them by name (case-insensitive substring).
class KernelProxyModel : public QSortFilterProxyModel {
  Q_OBJECT

 public:
  explicit KernelProxyModel(QObject* parent = nullptr);
  void set_name_filter(const QString& text);
};

}  // namespace ts::gui
