#include "gui/models/stage_model.hpp"

#include <QBrush>
#include <QColor>

#include "gui/models/format.hpp"

namespace ts::gui {

void StageModel::set_pipeline(const analysis::PipelineStats& pipeline) {
  beginResetModel();
  stages_ = pipeline.stages;
  bottleneck_ = pipeline.bottleneck_stage;
  endResetModel();
}

int StageModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(stages_.size());
}

int StageModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant StageModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::StageStat& s = stages_[static_cast<std::size_t>(index.row())];
  const bool bottleneck = bottleneck_ && *bottleneck_ == s.stage;
  if (role == IsBottleneckRole) return bottleneck;
  if (role == Qt::BackgroundRole)
    return bottleneck ? QVariant(QBrush(QColor(0xff, 0xeb, 0xee))) : QVariant();
  if (role == Qt::TextAlignmentRole)
    return index.column() == Stage || index.column() == Bottleneck
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  switch (index.column()) {
    case Stage:
      return display_text(s.stage);
    case Count:
      return raw ? QVariant(qint64(s.count)) : QVariant(format_count(s.count));
    case Total:
      return raw ? QVariant(qint64(s.total_ns)) : QVariant(format_ns(s.total_ns));
    case PerSample:
      return raw ? QVariant(s.ns_per_sample) : QVariant(format_ns(s.ns_per_sample));
    case Threads:
      return s.threads;
    case Utilisation:
      return raw ? QVariant(s.utilisation_pct) : QVariant(format_pct(s.utilisation_pct));
    case Bottleneck:
      return raw ? QVariant(bottleneck) : QVariant(bottleneck ? tr("bottleneck") : QString());
    default:
      return {};
  }
}

QVariant StageModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Stage:
      return tr("Stage");
    case Count:
      return tr("Events");
    case Total:
      return tr("Total");
    case PerSample:
      return tr("Time per sample");
    case Threads:
      return tr("Threads");
    case Utilisation:
      return tr("Worker utilisation");
    case Bottleneck:
      return tr("Critical path");
    default:
      return {};
  }
}

}  // namespace ts::gui
