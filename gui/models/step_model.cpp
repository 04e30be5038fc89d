#include "gui/models/step_model.hpp"

#include <QBrush>
#include <QColor>
#include <algorithm>

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

void StepModel::set_steps(std::vector<analysis::StepSummary> steps) {
  set_steps(std::make_shared<const std::vector<analysis::StepSummary>>(std::move(steps)));
}

void StepModel::set_steps(std::shared_ptr<const std::vector<analysis::StepSummary>> steps) {
  beginResetModel();
  steps_ = steps ? std::move(steps) : std::make_shared<const std::vector<analysis::StepSummary>>();
  origin_ns_ = steps_->empty() ? 0 : steps_->front().start_ns;
  for (const auto& s : *steps_) origin_ns_ = std::min(origin_ns_, s.start_ns);
  endResetModel();
}

int StepModel::row_of_step(std::int64_t step) const {
  for (std::size_t i = 0; i < steps_->size(); ++i)
    if ((*steps_)[i].step == step) return static_cast<int>(i);
  return -1;
}

int StepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(steps_->size());
}

int StepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant StepModel::cell(const analysis::StepSummary& s, int column, bool raw) const {
  if (column >= FirstPart && column < FirstPart + analysis::kPartCount) {
    const std::int64_t ns = s.parts.ns[static_cast<std::size_t>(column - FirstPart)];
    return raw ? QVariant(qint64(ns)) : QVariant(format_ns(ns));
  }
  switch (column) {
    case Step:
      return qint64(s.step);
    case Start:
      return raw ? QVariant(qint64(s.start_ns))
                 : QVariant("+" + format_ns(s.start_ns - origin_ns_));
    case Duration:
      return raw ? QVariant(qint64(s.dur_ns)) : QVariant(format_ns(s.dur_ns));
    case InputPct:
      return raw ? QVariant(s.input_pct) : QVariant(format_pct(s.input_pct));
    case InputBound:
      return raw ? QVariant(s.input_bound)
                 : QVariant(s.input_bound ? tr("input-bound") : QString());
    case DeviceBusy:
      return raw ? QVariant(qint64(s.device_busy_ns)) : QVariant(format_ns(s.device_busy_ns));
    default:
      return {};
  }
}

QVariant StepModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::StepSummary& s = (*steps_)[static_cast<std::size_t>(index.row())];
  switch (role) {
    case Qt::DisplayRole:
      return cell(s, index.column(), false);
    case SortRole:
      return cell(s, index.column(), true);
    case InputBoundRole:
      return s.input_bound;
    case StepNumberRole:
      return qint64(s.step);
    case StartNsRole:
      return qint64(s.start_ns);
    case EndNsRole:
      return qint64(s.start_ns + s.dur_ns);
    case Qt::BackgroundRole:
      return s.input_bound ? QVariant(QBrush(QColor(0xff, 0xeb, 0xee))) : QVariant();
    case Qt::ForegroundRole:
      return s.input_bound && index.column() == InputBound
                 ? QVariant(QBrush(category_color(trace::Category::input_wait).darker(130)))
                 : QVariant();
    case Qt::TextAlignmentRole:
      return index.column() == InputBound ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                          : QVariant(Qt::AlignRight | Qt::AlignVCenter);
    default:
      return {};
  }
}

QVariant StepModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  if (section >= FirstPart && section < FirstPart + analysis::kPartCount)
    return part_label(static_cast<analysis::Part>(section - FirstPart));
  switch (section) {
    case Step:
      return tr("Step");
    case Start:
      return tr("Start");
    case Duration:
      return tr("Duration");
    case InputPct:
      return tr("Input");
    case InputBound:
      return tr("Input-bound");
    case DeviceBusy:
      return tr("Device busy");
    default:
      return {};
  }
}

}  // namespace ts::gui
