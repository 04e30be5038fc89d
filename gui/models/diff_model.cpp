#include "gui/models/diff_model.hpp"

#include <QBrush>
#include <QColor>
#include <algorithm>
#include <cmath>

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"
#include "profiler/analysis/figure_format.hpp"

namespace ts::gui {

namespace {

QString signed_text(double v, const QString& text) {
  return (v > 0 ? "+" : "") + text;
}

// "313-1564 (1 252 of 1 565)": the steps one side's figures cover.
QString scope_text(const analysis::DiffScope& s) {
  QString out = s.first == s.last ? QString::number(s.first)
                                  : QStringLiteral("%1-%2").arg(s.first).arg(s.last);
  if (s.steps != s.whole_steps)
    out += QStringLiteral(" (%1 of %2)").arg(format_count(s.steps), format_count(s.whole_steps));
  return out;
}

QString change_text(const analysis::Delta& d) {
  const auto pct = d.change_pct();
  if (!pct) return d.b != 0 ? QStringLiteral("new") : QString();
  return signed_text(*pct, QString::number(*pct, 'f', 1) + " %");
}

QVariant change_brush(double delta, int better) {
  if (better == 0 || delta == 0) return {};
  const bool worse = (better < 0) == (delta > 0);
  return QBrush(worse ? QColor(0xc6, 0x28, 0x28) : QColor(0x2e, 0x7d, 0x32));
}

QString verdict_text(analysis::Verdict v) {
  switch (v) {
    case analysis::Verdict::high:
      return QStringLiteral("highly input-bound");
    case analysis::Verdict::moderate:
      return QStringLiteral("moderately input-bound");
    case analysis::Verdict::none:
      break;
  }
  return QStringLiteral("not input-bound");
}

}  // namespace

void DiffModel::set_diff(const analysis::RunDiff& d, const std::string& currency) {
  beginResetModel();
  currency_ = currency;
  lines_.clear();
  const auto add = [&](QString name, const analysis::Delta& delta, Unit unit, int better) {
    lines_.push_back({std::move(name), delta, unit, better, {}, {}});
  };
  lines_.push_back(
      {tr("Steps compared"), {}, Unit::text, 0, scope_text(d.scope_a), scope_text(d.scope_b)});
  add(tr("Steps"), d.steps, Unit::count, 0);
  add(tr("Step time, mean"), d.step_mean_ms, Unit::ms, -1);
  add(tr("Step time, p50"), d.step_p50_ms, Unit::ms, -1);
  add(tr("Step time, p90"), d.step_p90_ms, Unit::ms, -1);
  add(tr("Step time, mean over every step"), d.whole_step_mean_ms, Unit::ms, -1);
  add(tr("Samples/s"), d.samples_per_s, Unit::rate, +1);
  add(tr("Input share of step time"), d.input_pct, Unit::pct, -1);
  lines_.push_back(
      {tr("Verdict"), {}, Unit::text, 0, verdict_text(d.verdict_a), verdict_text(d.verdict_b)});
  add(tr("Input-bound steps"), d.input_bound_steps, Unit::count, -1);
  for (int p = 0; p < analysis::kPartCount; ++p)
    add(part_label(static_cast<analysis::Part>(p)) + tr(" per step"),
        d.breakdown_ms_per_step[static_cast<std::size_t>(p)], Unit::ms,
        p == static_cast<int>(analysis::Part::device_compute) ? 0 : -1);
  if (d.device_a || d.device_b) {
    add(tr("Device busy"), d.device_busy_pct, Unit::pct, +1);
    add(tr("Device idle"), d.device_idle_pct, Unit::pct, -1);
    for (int c = 0; c < analysis::kIdleCauseCount; ++c)
      add(tr("Idle, ") + idle_cause_label(static_cast<analysis::IdleCause>(c)) + tr(" per step"),
          d.idle_by_cause_ms_per_step[static_cast<std::size_t>(c)], Unit::ms, -1);
    // At a scale where the larger of the two reads in cents.
    const auto scale = analysis::fmt::cost_scale(
        std::max(std::fabs(d.idle_cost_per_1000_steps.a), std::fabs(d.idle_cost_per_1000_steps.b)) /
        1e3);
    const double k = scale.steps / 1e3;
    add(tr("Idle cost per %1").arg(QString::fromStdString(scale.name)),
        {d.idle_cost_per_1000_steps.a * k, d.idle_cost_per_1000_steps.b * k}, Unit::money, -1);
  }
  const auto stage = [](const std::optional<std::string>& s) {
    return s ? QString::fromStdString(*s) : QStringLiteral("—");
  };
  lines_.push_back(
      {tr("Bottleneck stage"), {}, Unit::text, 0, stage(d.bottleneck_a), stage(d.bottleneck_b)});
  endResetModel();
}

void DiffModel::clear() {
  beginResetModel();
  lines_.clear();
  endResetModel();
}

QString DiffModel::value_text(const Line& l, double v) const {
  switch (l.unit) {
    case Unit::count:
      return QString::number(v, 'f', 0);
    case Unit::ms:
      return format_ns(v * 1e6);  // per-step parts are often microseconds
    case Unit::pct:
      return format_pct(v);
    case Unit::rate:
      return v > 0 ? format_rate(v, QStringLiteral("/s")) : tr("n/a");
    case Unit::money:
      return format_money(v, currency_);
    case Unit::text:
      break;
  }
  return {};
}

bool DiffModel::comparable(const Line& l) {
  // A rate of 0 is unknown (an imported trace has no batch size): nothing to compare.
  return l.unit != Unit::rate || (l.d.a > 0 && l.d.b > 0);
}

int DiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(lines_.size());
}

int DiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Line& l = lines_[static_cast<std::size_t>(index.row())];
  const bool text = l.unit == Unit::text;
  if (role == ChangePctRole) {
    const auto pct = l.d.change_pct();
    return text || !pct || !comparable(l) || l.unit == Unit::pct ? QVariant() : QVariant(*pct);
  }
  if (role == WorseRole)
    return !text && l.better != 0 && l.d.delta() != 0 && (l.better < 0) == (l.d.delta() > 0);
  if (role == Qt::ForegroundRole && (index.column() == Delta || index.column() == Change))
    return text ? QVariant() : change_brush(l.d.delta(), l.better);
  if (role == Qt::TextAlignmentRole)
    return index.column() == Figure ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                    : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  switch (index.column()) {
    case Figure:
      return l.name;
    case A:
      return text ? QVariant(l.text_a) : raw ? QVariant(l.d.a) : QVariant(value_text(l, l.d.a));
    case B:
      return text ? QVariant(l.text_b) : raw ? QVariant(l.d.b) : QVariant(value_text(l, l.d.b));
    case Delta:
      if (text || !comparable(l)) return {};
      if (raw) return QVariant(l.d.delta());
      // A share changes by percentage points, not by a percentage of itself.
      if (l.unit == Unit::pct) return format_pp(l.d.delta());
      return signed_text(l.d.delta(), value_text(l, l.d.delta()));
    case Change:
      if (text || !comparable(l) || l.unit == Unit::pct) return {};
      return raw ? QVariant(l.d.change_pct().value_or(0)) : QVariant(change_text(l.d));
    default:
      return {};
  }
}

QVariant DiffModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Figure:
      return tr("Figure");
    case A:
      return tr("A");
    case B:
      return tr("B");
    case Delta:
      return tr("B − A");
    case Change:
      return tr("Change");
    default:
      return {};
  }
}

void KernelDiffModel::set_kernels(std::vector<analysis::KernelDelta> kernels) {
  beginResetModel();
  kernels_ = std::move(kernels);
  endResetModel();
}

int KernelDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(kernels_.size());
}

int KernelDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant KernelDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::KernelDelta& k = kernels_[static_cast<std::size_t>(index.row())];
  if (role == Qt::ForegroundRole && (index.column() == Delta || index.column() == Change))
    return change_brush(k.ms_per_step.delta(), -1);
  if (role == Qt::TextAlignmentRole)
    return index.column() == Name ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
                                  : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  const auto ms = [&](double v) { return raw ? QVariant(v) : QVariant(format_ns(v * 1e6)); };
  const auto count = [&](double v) {
    return raw ? QVariant(v) : QVariant(QString::number(v, 'f', 2));
  };
  switch (index.column()) {
    case Name: {
      QString name = display_text(k.name);
      if (!raw && !k.in_a) name += tr(" (only in B)");
      if (!raw && !k.in_b) name += tr(" (only in A)");
      return name;
    }
    case MsPerStepA:
      return ms(k.ms_per_step.a);
    case MsPerStepB:
      return ms(k.ms_per_step.b);
    case Delta:
      return raw ? QVariant(k.ms_per_step.delta())
                 : QVariant(
                       signed_text(k.ms_per_step.delta(), format_ns(k.ms_per_step.delta() * 1e6)));
    case Change:
      return raw ? QVariant(k.ms_per_step.change_pct().value_or(0))
                 : QVariant(change_text(k.ms_per_step));
    case CountPerStepA:
      return count(k.count_per_step.a);
    case CountPerStepB:
      return count(k.count_per_step.b);
    default:
      return {};
  }
}

QVariant KernelDiffModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Name:
      return tr("Kernel");
    case MsPerStepA:
      return tr("A per step");
    case MsPerStepB:
      return tr("B per step");
    case Delta:
      return tr("B − A");
    case Change:
      return tr("Change");
    case CountPerStepA:
      return tr("A launches/step");
    case CountPerStepB:
      return tr("B launches/step");
    default:
      return {};
  }
}

void LeverDiffModel::set_levers(std::vector<analysis::LeverDelta> levers,
                                const std::string& currency) {
  beginResetModel();
  levers_ = std::move(levers);
  currency_ = currency;
  endResetModel();
}

int LeverDiffModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(levers_.size());
}

int LeverDiffModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

namespace {

// One side of a lever: "1.20×, 3.42 ms a step" (its speed-up, the step time it projects), "no step
// time" (a fix that projects none), "—" (the run does not have it).
QString lever_side(bool in, double speedup, double step_ms) {
  if (!in) return QStringLiteral("—");
  if (speedup <= 1.0) return QObject::tr("no step time");
  return QObject::tr("%1×, %2 a step").arg(speedup, 0, 'f', 2).arg(format_ms(step_ms));
}

QString lever_saved(bool in, double device_hours, double money, const std::string& currency) {
  if (!in || device_hours <= 0) return in ? QString() : QStringLiteral("—");
  return QStringLiteral("%1 (%2)").arg(
      QString::fromStdString(analysis::fmt::device_time(device_hours)),
      format_money(money, currency));
}

}  // namespace

QVariant LeverDiffModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const analysis::LeverDelta& l = levers_[static_cast<std::size_t>(index.row())];
  if (role == Qt::ToolTipRole) return QString::fromStdString(analysis::lever_sentence(l));
  if (role == Qt::ForegroundRole && index.column() == Change) {
    if (!l.in_b) return change_brush(-1, -1);  // gone: better
    if (!l.in_a) return change_brush(1, -1);   // new: worse
    return change_brush(l.speedup.delta(), -1);
  }
  if (role == Qt::TextAlignmentRole)
    return index.column() == Title || index.column() == Change || index.column() == Confidence
               ? QVariant(Qt::AlignLeft | Qt::AlignVCenter)
               : QVariant(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole && role != SortRole) return {};
  const bool raw = role == SortRole;
  switch (index.column()) {
    case Title:
      return QString::fromStdString(l.title);
    case InA:
      return raw ? QVariant(l.speedup.a)
                 : QVariant(lever_side(l.in_a, l.speedup.a, l.step_time_ms.a));
    case InB:
      return raw ? QVariant(l.speedup.b)
                 : QVariant(lever_side(l.in_b, l.speedup.b, l.step_time_ms.b));
    case Change:
      if (raw) return !l.in_b ? -1.0 : !l.in_a ? 1.0 : l.speedup.delta();
      if (!l.in_b) return tr("gone in B");
      if (!l.in_a) return tr("new in B");
      if (l.speedup.a <= 1.0 && l.speedup.b <= 1.0) return tr("in both");
      return QStringLiteral("%1× → %2×").arg(l.speedup.a, 0, 'f', 2).arg(l.speedup.b, 0, 'f', 2);
    case SavedA:
      return raw ? QVariant(l.saving_device_hours.a)
                 : QVariant(lever_saved(l.in_a, l.saving_device_hours.a, l.saving.a, currency_));
    case SavedB:
      return raw ? QVariant(l.saving_device_hours.b)
                 : QVariant(lever_saved(l.in_b, l.saving_device_hours.b, l.saving.b, currency_));
    case Confidence: {
      const QString a = QString::fromStdString(l.confidence_a);
      const QString b = QString::fromStdString(l.confidence_b);
      return a == b || b.isEmpty() ? a : a.isEmpty() ? b : QStringLiteral("%1 / %2").arg(a, b);
    }
    default:
      return {};
  }
}

QVariant LeverDiffModel::headerData(int section, Qt::Orientation o, int role) const {
  if (o != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case Title:
      return tr("Lever");
    case InA:
      return tr("A: projected");
    case InB:
      return tr("B: projected");
    case Change:
      return tr("Change");
    case SavedA:
      return tr("A saves over the run");
    case SavedB:
      return tr("B saves over the run");
    case Confidence:
      return tr("Confidence");
    default:
      return {};
  }
}

}  // namespace ts::gui
