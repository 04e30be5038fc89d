// The compare view's tables (analysis::RunDiff): DiffModel lists the run figures of A and B with
// their change, KernelDiffModel the per-kernel time per step. Changes for the worse are red,
// for the better green. Shares change by percentage points ("-21.1 pp", no relative change), a
// figure a run does not have (samples/s without a batch size) reads "n/a", money reads at a
// scale where it shows cents ("Idle cost per 1 M steps"). LeverDiffModel lists every lever of
// either run as `trainscope diff` does: gone in B, new in B, or A's and B's projection.
#pragma once

#include <QAbstractTableModel>
#include <QString>
#include <string>
#include <vector>

#include "gui/models/table_roles.hpp"
#include "profiler/analysis/diff.hpp"

namespace ts::gui {

class DiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Figure, A, B, Delta, Change, ColumnCount };
  enum Roles { DiffSortRole = SortRole, ChangePctRole, WorseRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_diff(const analysis::RunDiff& diff, const std::string& currency = "$");
  void clear();

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  enum class Unit { count, ms, pct, rate, money, text };
  struct Line {
    QString name;
    analysis::Delta d;
    Unit unit = Unit::count;
    int better = -1;         // -1: lower is better, +1: higher is better, 0: neither
    QString text_a, text_b;  // Unit::text
  };
  QString value_text(const Line& l, double v) const;
  static bool comparable(const Line& l);  // both values known

  std::vector<Line> lines_;
  std::string currency_ = "$";  // the reports' (RunDiff does not carry it)
};

class KernelDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns {
    Name,
    MsPerStepA,
    MsPerStepB,
    Delta,
    Change,
    CountPerStepA,
    CountPerStepB,
    ColumnCount
  };
  enum Roles { KernelDiffSortRole = SortRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_kernels(std::vector<analysis::KernelDelta> kernels);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analysis::KernelDelta> kernels_;
};

// Every lever of either run (RunDiff::levers, by the larger saving): its projection in A and in
// B (speed-up, step time after, device time and money saved over the run), and what changed:
// "gone in B" (green: B no longer needs it), "new in B" (red), or the speed-up it still
// promises, less in B being better.
class LeverDiffModel : public QAbstractTableModel {
  Q_OBJECT

 public:
  enum Columns { Title, InA, InB, Change, SavedA, SavedB, Confidence, ColumnCount };
  enum Roles { LeverDiffSortRole = SortRole };

  using QAbstractTableModel::QAbstractTableModel;
  void set_levers(std::vector<analysis::LeverDelta> levers, const std::string& currency = "$");

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation o, int role = Qt::DisplayRole) const override;

 private:
  std::vector<analysis::LeverDelta> levers_;
  std::string currency_ = "$";
};

}  // namespace ts::gui
