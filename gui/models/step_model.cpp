#include "gui/models/step_model.hpp"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <numeric>

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

void StepModel::set_steps(std::span<const analysis::StepSummary> steps) {
  set_steps(std::make_shared<const PackedSteps>(steps));
}

void StepModel::set_steps(std::shared_ptr<const PackedSteps> steps) {
  beginResetModel();
  steps_ = steps ? std::move(steps) : std::make_shared<const PackedSteps>();
  order_.clear();
  origin_ns_ = steps_->earliest_start_ns();
  endResetModel();
}

int StepModel::row_of_step(std::int64_t step) const {
  const std::optional<std::size_t> index = steps_->find_step(step);
  if (!index) return -1;
  if (order_.empty()) return static_cast<int>(*index);
  const auto it = std::find(order_.begin(), order_.end(), *index);
  return it == order_.end() ? -1 : static_cast<int>(it - order_.begin());
}

void StepModel::sort(int column, Qt::SortOrder order) {
  if (column >= ColumnCount || (column < 0 && order_.empty())) return;
  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  std::vector<std::size_t> held;  // the step each persistent index shows
  held.reserve(static_cast<std::size_t>(before.size()));
  for (const QModelIndex& i : before) held.push_back(step_of_row(i.row()));
  if (column < 0) {  // no sort column (the view's sortByColumn(-1)): the steps' own order
    order_.clear();
    QModelIndexList after;
    for (std::size_t k = 0; k < held.size(); ++k)
      after.push_back(index(static_cast<int>(held[k]), before[static_cast<int>(k)].column()));
    changePersistentIndexList(before, after);
    emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
    return;
  }

  // One value per step; the input share is the only column that is not an integer.
  const bool by_pct = column == InputPct;
  std::vector<std::int64_t> ints(by_pct ? 0 : steps_->size());
  std::vector<double> pcts(by_pct ? steps_->size() : 0);
  steps_->for_each([&](std::size_t i, const analysis::StepSummary& s) {
    if (by_pct)
      pcts[i] = s.input_pct;
    else
      ints[i] = cell(s, column, true).toLongLong();
  });
  order_.resize(steps_->size());
  std::iota(order_.begin(), order_.end(), std::uint32_t{0});
  const auto less = [&](std::uint32_t a, std::uint32_t b) {
    return by_pct ? pcts[a] < pcts[b] : ints[a] < ints[b];
  };
  if (order == Qt::AscendingOrder)
    std::stable_sort(order_.begin(), order_.end(), less);
  else
    std::stable_sort(order_.begin(), order_.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return less(b, a); });

  if (!before.isEmpty()) {
    std::vector<std::uint32_t> row_of(order_.size());
    for (std::size_t row = 0; row < order_.size(); ++row)
      row_of[order_[row]] = static_cast<std::uint32_t>(row);
    QModelIndexList after;
    for (std::size_t k = 0; k < held.size(); ++k)
      after.push_back(
          index(static_cast<int>(row_of[held[k]]), before[static_cast<int>(k)].column()));
    changePersistentIndexList(before, after);
  }
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
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
  const analysis::StepSummary s = steps_->at(step_of_row(index.row()));
  // Figures read from the trace file that no longer read back (PackedSteps): said in the row.
  if (s.step < 0 && steps_->read_failed()) {
    if (role == Qt::DisplayRole && index.column() == Step) return tr("unreadable");
    if (role == Qt::ToolTipRole)
      return tr("The trace file changed since it was opened: open it again for these figures.");
    if (role == Qt::DisplayRole) return QString();
  }
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
