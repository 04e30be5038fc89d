// The compare tab: the open trace (A) against a second one (B) — step time, breakdown per step,
// device idle and the kernel table side by side with their changes (analysis::diff), over the
// same steps of both (the same warm-up left out) and over every step.
#pragma once

#include <QLabel>
#include <QWidget>

#include "gui/models/diff_model.hpp"
#include "gui/models/trace_comparison.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

// Presentation only: opening B and the analyses are TraceComparison's.
class ComparePage : public QWidget {
  Q_OBJECT

 public:
  explicit ComparePage(QWidget* parent = nullptr);

  void set_session(TraceSession* session);
  void set_analysis_options(const AnalysisOptions& options) {
    comparison_->set_analysis_options(options);
  }
  // How another tool's trace opened as B is imported (--step-marker, --run).
  void set_import_options(const ImportOptions& options) {
    comparison_->set_import_options(options);
  }
  // Opens B and analyses it in the background; a file that is not a readable trace fails at once
  // (failed() is emitted and false returned).
  bool open_b(const QString& path) { return comparison_->open_b(path); }
  // Blocks until B's analysis is done (tests, screenshots).
  void wait() { comparison_->wait(); }
  bool has_diff() const { return comparison_->diff() != nullptr; }
  const RunDiff* diff() const { return comparison_->diff(); }
  TraceComparison* comparison() const { return comparison_; }
  DiffModel* figures() const { return figures_; }
  KernelDiffModel* kernels() const { return kernels_; }
  LeverDiffModel* levers() const { return levers_; }

 signals:
  void openRequested();  // the "Compare with…" button
  void failed(const QString& message);

 private:
  void refresh();

  TraceSession* session_ = nullptr;
  TraceComparison* comparison_;
  QLabel* header_;
  DiffModel* figures_;
  KernelDiffModel* kernels_;
  LeverDiffModel* levers_;
};

}  // namespace ts::gui
