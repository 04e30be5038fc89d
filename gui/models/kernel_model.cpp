#include "gui/models/kernel_model.hpp"

#include "gui/models/format.hpp"

namespace ts::gui {

void KernelModel::set_kernels(std::vector<analysis::KernelStat> kernels) {
  beginResetModel();
  kernels_ = std::move(kernels);
  endResetModel();
}

int KernelModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(kernels_.size());
}

int KernelModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::KernelStat& k = kernels_[static_cast<std::size_t>(index.row())];
  if (role == SharePctRole) return k.share_pct;
  if (role == KernelNameRole) return QString::fromStdString(k.name);
  if (role == Qt::TextAlignmentRole)
    return index.column() == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role == Qt::ToolTipRole && index.column() == Name) return display_text(k.name);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  switch (index.column()) {
    case Name:
      return display_text(k.name);
    case Count:
      return raw ? QVariant(qint64(k.count)) : QVariant(format_count(k.count));
    case Total:
      return raw ? QVariant(qint64(k.total_ns)) : QVariant(format_ns(k.total_ns));
    case Mean:
      return raw ? QVariant(qint64(k.mean_ns)) : QVariant(format_ns(k.mean_ns));
    case Min:
      return raw ? QVariant(qint64(k.min_ns)) : QVariant(format_ns(k.min_ns));
    case Max:
      return raw ? QVariant(qint64(k.max_ns)) : QVariant(format_ns(k.max_ns));
    case Share:
      return raw ? QVariant(k.share_pct) : QVariant(format_pct(k.share_pct));
    default:
      return {};
  }
}

QVariant KernelModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Kernel");
    case Count:
      return tr("Count");
    case Total:
      return tr("Total");
    case Mean:
      return tr("Mean");
    case Min:
      return tr("Min");
    case Max:
      return tr("Max");
    case Share:
      return tr("Share of device time");
    default:
      return {};
  }
}

KernelProxyModel::KernelProxyModel(QObject* parent) : QSortFilterProxyModel(parent) {
  setSortRole(SortRole);
  setFilterKeyColumn(KernelModel::Name);
  setFilterCaseSensitivity(Qt::CaseInsensitive);
}

void KernelProxyModel::set_name_filter(const QString& text) {
  setFilterFixedString(text);
}

}  // namespace ts::gui
