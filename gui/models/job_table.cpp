#include "gui/models/job_table.hpp"

#include "gui/models/format.hpp"

namespace ts::gui {

namespace {

const analysis::RankFigures* rank_at(const analysis::Report& report, int index) {
  return index >= 0 && static_cast<std::size_t>(index) < report.ranks.size()
             ? &report.ranks[static_cast<std::size_t>(index)]
             : nullptr;
}

QString name_at(const analysis::Report& report, int index) {
  const analysis::RankFigures* r = rank_at(report, index);
  return r ? rank_name(*r) : QStringLiteral("#%1").arg(index);
}

QVariant alignment(bool left) {
  return left ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
              : QVariant(Qt::AlignRight | Qt::AlignVCenter);
}

}  // namespace

QString rank_name(const analysis::RankFigures& rank) {
  return rank.rank ? QStringLiteral("r%1").arg(*rank.rank) : display_text(rank.name);
}

void JobSpreadModel::set_report(const analysis::Report* report) {
  beginResetModel();
  job_ = report ? report->job : std::nullopt;
  median_rank_ = job_ ? name_at(*report, job_->median_rank) : QString();
  endResetModel();
}

int JobSpreadModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !job_ ? 0 : RowCount;
}

int JobSpreadModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant JobSpreadModel::data(const QModelIndex& index, int role) const {
  if (!job_ ||
      !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  if (role == Qt::TextAlignmentRole) return alignment(index.column() == Figure);
  if (role == Qt::ToolTipRole && index.row() == Median)
    return tr("The median over %1 ranks; the median rank by own work is %2")
        .arg(job_->ranks)
        .arg(median_rank_);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  if (index.column() == Figure) {
    switch (index.row()) {
      case Median:
        return tr("median");
      case P90:
        return tr("p90");
      default:
        return tr("worst");
    }
  }
  const analysis::JobOverview::Spread* spread = nullptr;
  switch (index.column()) {
    case StepTime:
      spread = &job_->step_ms;
      break;
    case Input:
      spread = &job_->input_ms;
      break;
    case Collective:
      spread = &job_->collective_ms;
      break;
    default:
      spread = &job_->own_ms;
  }
  const double ms = index.row() == Median ? spread->median
                    : index.row() == P90  ? spread->p90
                                          : spread->max;
  return role == SortRole ? QVariant(ms) : QVariant(format_ms(ms));
}

QVariant JobSpreadModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole && section == OwnWork)
    return tr("Step time less the collective: the work a rank does before it waits for the others");
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Figure:
      return job_ ? tr("Per step, %1 ranks").arg(job_->ranks) : tr("Per step");
    case StepTime:
      return tr("Step time");
    case Input:
      return tr("Input");
    case Collective:
      return tr("Collective");
    case OwnWork:
      return tr("Own work");
    default:
      return {};
  }
}

void HoldingBackModel::set_report(const analysis::Report* report) {
  beginResetModel();
  rows_.clear();
  if (report && report->job)
    for (const analysis::JobOverview::HoldingBack& h : report->job->holding_back)
      rows_.push_back({h, name_at(*report, h.index)});
  endResetModel();
}

int HoldingBackModel::rank_index(int row) const {
  return row >= 0 && static_cast<std::size_t>(row) < rows_.size()
             ? rows_[static_cast<std::size_t>(row)].figures.index
             : -1;
}

int HoldingBackModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int HoldingBackModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant HoldingBackModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& row = rows_[static_cast<std::size_t>(index.row())];
  const analysis::JobOverview::HoldingBack& h = row.figures;
  if (role == RankIndexRole) return h.index;
  if (role == Qt::TextAlignmentRole)
    return alignment(index.column() == Rank || index.column() == Cause);
  if (role == Qt::ToolTipRole)
    return tr("%1: own work %2 a step, %3 over the median rank's; %4 %5 over the median rank's "
              "(%6 of its own work). The others wait %7 over the run. Click: its row in the heat "
              "map; double-click: its slowest step in the timeline.")
        .arg(row.name, format_ms(h.own_ms), format_ms(h.excess_ms), display_text(h.cause),
             format_ms(h.cause_excess_ms), format_pct(h.cause_pct), format_ms(h.wait_ms));
  const bool raw = role == SortRole;
  if (role != Qt::DisplayRole && !raw) return {};
  switch (index.column()) {
    case Rank:
      return raw ? QVariant(h.index) : QVariant(row.name);
    case Cause:
      return display_text(h.cause);
    case Extra:
      return raw ? QVariant(h.excess_ms) : QVariant(QStringLiteral("+") + format_ms(h.excess_ms));
    case Wait:
      return raw ? QVariant(h.wait_ms_per_step) : QVariant(format_ms(h.wait_ms_per_step));
    case WaitShare:
      return raw ? QVariant(h.wait_pct) : QVariant(format_pct(h.wait_pct));
    default:
      return {};
  }
}

QVariant HoldingBackModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal) return {};
  if (role == Qt::ToolTipRole) {
    switch (section) {
      case Extra:
        return tr("Its own work per step over the median rank's");
      case Wait:
        return tr("The other ranks' wait for it per step, summed over them");
      case WaitShare:
        return tr("That wait as a share of the job's device time (every rank's step time)");
      default:
        return {};
    }
  }
  if (role != Qt::DisplayRole) return {};
  switch (section) {
    case Rank:
      return tr("Holding back");
    case Cause:
      return tr("Cause");
    case Extra:
      return tr("Extra / step");
    case Wait:
      return tr("Others' wait / step");
    case WaitShare:
      return tr("Of device time");
    default:
      return {};
  }
}

QString holding_back_line(const analysis::Report& report) {
  if (!report.job) return {};
  const analysis::JobOverview& job = *report.job;
  if (job.holding_back.empty()) {
    if (job.collective_ms.max <= 0)
      return QObject::tr("The ranks do not meet in collectives: none waits for another.");
    return QObject::tr(
               "No rank holds the job back: every rank's own work per step is within %1 of the "
               "median rank's (%2).")
        .arg(format_ms(job.threshold_ms), name_at(report, job.median_rank));
  }
  const analysis::JobOverview::HoldingBack& first = job.holding_back.front();
  return QObject::tr(
             "%1 of %2 ranks %3 the job back: the others wait %4 a step for %5 (%6), "
             "%7 of the job's device time.")
      .arg(job.holding_back.size())
      .arg(job.ranks)
      .arg(job.holding_back.size() == 1 ? QStringLiteral("holds") : QStringLiteral("hold"))
      .arg(format_ms(first.wait_ms_per_step), name_at(report, first.index),
           display_text(first.cause), format_pct(first.wait_pct));
}

}  // namespace ts::gui
