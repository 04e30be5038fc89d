#include "gui/models/lever_model.hpp"

#include "gui/models/format.hpp"
#include "profiler/analysis/figure_format.hpp"

namespace ts::gui {

namespace {

QString text(const std::string& s) {
  return QString::fromStdString(s);
}

// Whether the lever projects step time saved (speed-up 1: it names a fix, saves no step time).
bool projects_time(const analysis::Lever& l) {
  return l.projection.speedup > 1.0;
}

QString confidence_text(const analysis::Lever& l) {
  return l.confidence.empty() ? QString() : text(l.confidence);
}

}  // namespace

QStringList lever_details(const analysis::Lever& l) {
  QStringList lines;
  for (const std::string& e : l.evidence) lines << QObject::tr("Evidence: %1").arg(text(e));
  if (!l.points_at.empty()) {
    QStringList names;
    for (const std::string& p : l.points_at) names << text(p);
    lines << QObject::tr("Points at: %1").arg(names.join(QStringLiteral(", ")));
  }
  for (const std::string& on : l.already_on) lines << QObject::tr("Already on: %1").arg(text(on));
  for (const std::string& f : l.fix) lines << QObject::tr("Fix: %1").arg(text(f));
  if (!l.confidence_why.empty())
    lines << QObject::tr("How (%1): %2").arg(text(l.confidence), text(l.confidence_why));
  return lines;
}

void LeverModel::set_report(const analysis::Report& report) {
  beginResetModel();
  levers_ = report.levers;
  currency_ = report.currency;
  step_mean_ms_ = report.step_time.mean_ms;
  endResetModel();
}

void LeverModel::clear() {
  beginResetModel();
  levers_.clear();
  endResetModel();
}

int LeverModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(levers_.size());
}

int LeverModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant LeverModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::Lever& l = levers_[static_cast<std::size_t>(index.row())];
  const analysis::WhatIf& w = l.projection;
  if (role == LeverIdRole) return text(l.id);
  if (role == DetailsRole) return lever_details(l).join(QLatin1Char('\n'));
  if (role == Qt::ToolTipRole) {
    QStringList lines{QStringLiteral("<b>%1</b>").arg(text(l.title).toHtmlEscaped())};
    for (const QString& line : lever_details(l)) lines << line.toHtmlEscaped();
    return lines.join(QStringLiteral("<br>"));
  }
  if (role == Qt::TextAlignmentRole)
    return index.column() == Title || index.column() == Confidence
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  switch (index.column()) {
    case Title:
      return text(l.title);
    case Speedup:
      if (raw) return w.speedup;
      return projects_time(l) ? QStringLiteral("%1×").arg(w.speedup, 0, 'f', 2)
                              : tr("no step time");
    case StepTime:
      if (raw) return projects_time(l) ? w.step_time_ms : step_mean_ms_;
      return projects_time(l)
                 ? tr("%1 → %2").arg(format_ms(step_mean_ms_), format_ms(w.step_time_ms))
                 : QString();
    case Saved:
      if (raw) return w.saving_device_hours;
      return projects_time(l)
                 ? tr("%1 (%2)").arg(text(analysis::fmt::device_time(w.saving_device_hours)),
                                     format_money(w.saving, currency_))
                 : QString();
    case Confidence:
      return confidence_text(l);
    default:
      return {};
  }
}

QVariant LeverModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Title:
      return tr("Lever");
    case Speedup:
      return tr("Speed-up");
    case StepTime:
      return tr("Step time");
    case Saved:
      return tr("Saved over the run");
    case Confidence:
      return tr("Confidence");
    default:
      return {};
  }
}

}  // namespace ts::gui
