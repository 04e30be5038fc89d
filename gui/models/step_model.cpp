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
  fetched_ = std::min<std::size_t>(steps_->size(), kFetchRows);
  origin_ns_ = steps_->earliest_start_ns();
  endResetModel();
}

int StepModel::row_of_step(std::int64_t step) {
  const std::optional<std::size_t> index = steps_->find_step(step);
  if (!index) return -1;
  std::size_t row = *index;
  if (!order_.empty()) {
    const auto it = std::find(order_.begin(), order_.end(), *index);
    if (it == order_.end()) return -1;
    row = static_cast<std::size_t>(it - order_.begin());
  }
  fetch_to(row + 1);
  return static_cast<int>(row);
}

void StepModel::fetch_to(std::size_t rows) {
  rows = std::min(rows, steps_->size());
  if (rows <= fetched_) return;
  beginInsertRows({}, static_cast<int>(fetched_), static_cast<int>(rows) - 1);
  fetched_ = rows;
  endInsertRows();
}

bool StepModel::canFetchMore(const QModelIndex& parent) const {
  return !parent.isValid() && fetched_ < steps_->size();
}

void StepModel::fetchMore(const QModelIndex& parent) {
  if (!parent.isValid()) fetch_to(fetched_ + kFetchRows);
}

std::vector<std::uint32_t> StepModel::sorted(int column, Qt::SortOrder order) const {
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
  std::vector<std::uint32_t> rows(steps_->size());
  std::iota(rows.begin(), rows.end(), std::uint32_t{0});
  const auto less = [&](std::uint32_t a, std::uint32_t b) {
    return by_pct ? pcts[a] < pcts[b] : ints[a] < ints[b];
  };
  if (order == Qt::AscendingOrder)
    std::stable_sort(rows.begin(), rows.end(), less);
  else
    std::stable_sort(rows.begin(), rows.end(),
                     [&](std::uint32_t a, std::uint32_t b) { return less(b, a); });
  return rows;
}

void StepModel::sort(int column, Qt::SortOrder order) {
  if (column >= ColumnCount || (column < 0 && order_.empty())) return;
  // column < 0: no sort column (the view's sortByColumn(-1)): the steps' own order.
  std::vector<std::uint32_t> next =
      column < 0 ? std::vector<std::uint32_t>{} : sorted(column, order);
  std::vector<std::uint32_t> row_of;  // step -> its row in `next`, made when asked
  const auto new_row = [&](std::size_t step) -> std::size_t {
    if (next.empty()) return step;
    if (row_of.empty()) {
      row_of.resize(next.size());
      for (std::size_t row = 0; row < next.size(); ++row)
        row_of[next[row]] = static_cast<std::uint32_t>(row);
    }
    return row_of[step];
  };
  // The rows persistent indexes (the selection, the current row) move to are fetched first: a
  // selected step may be sorted far down.
  std::size_t need = fetched_;
  for (const QModelIndex& i : persistentIndexList())
    need = std::max(need, new_row(step_of_row(i.row())) + 1);
  fetch_to(need);

  emit layoutAboutToBeChanged({}, QAbstractItemModel::VerticalSortHint);
  const QModelIndexList before = persistentIndexList();
  std::vector<std::size_t> held;  // the step each persistent index shows
  held.reserve(static_cast<std::size_t>(before.size()));
  for (const QModelIndex& i : before) held.push_back(step_of_row(i.row()));
  QModelIndexList after;
  for (std::size_t k = 0; k < held.size(); ++k) {
    // A row the view made persistent only now, moving past the fetched rows, is dropped.
    const std::size_t row = new_row(held[k]);
    after.push_back(row < fetched_
                        ? index(static_cast<int>(row), before[static_cast<int>(k)].column())
                        : QModelIndex());
  }
  order_ = std::move(next);
  if (!before.isEmpty()) changePersistentIndexList(before, after);
  emit layoutChanged({}, QAbstractItemModel::VerticalSortHint);
}

int StepModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(fetched_);
}

int StepModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

bool StepModel::device_column(int column) {
  return column == DeviceBusy ||
         (column >= FirstPart && column < FirstPart + analysis::kPartCount &&
          device_part(static_cast<analysis::Part>(column - FirstPart)));
}

QVariant StepModel::cell(const analysis::StepSummary& s, int column, bool raw) const {
  // A step without device events (a capture sampling them): unknown, sorted below every figure.
  if (!s.device_sampled && device_column(column))
    return raw ? QVariant(qint64(-1)) : QVariant(tr("not sampled"));
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
      // Sorted by class: none, moderate, high.
      return raw ? QVariant(static_cast<int>(s.input_verdict))
                 : QVariant(input_class_label(s.input_verdict));
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
    case Qt::ToolTipRole:
      return !s.device_sampled && device_column(index.column())
                 ? QVariant(tr("The capture recorded device events on a sample of steps, not on "
                               "this one: its device figures are unknown."))
                 : QVariant();
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
      return s.input_bound ? QVariant(QBrush(input_class_tint(s.input_verdict))) : QVariant();
    case Qt::ForegroundRole:
      if (!s.device_sampled && device_column(index.column()))
        return QBrush(QColor(0x90, 0x9a, 0xa4));
      return s.input_bound && index.column() == InputBound
                 ? QVariant(QBrush(input_class_color(s.input_verdict).darker(130)))
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
