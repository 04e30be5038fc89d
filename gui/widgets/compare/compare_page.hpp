// The compare tab: the open trace (A) against a second one (B) — step time, breakdown per step,
// device idle and the kernel table side by side with their changes (analysis::diff), over the
// same steps of both (the same warm-up left out) and over every step.
#pragma once

#include <QFutureWatcher>
#include <QLabel>
#include <QWidget>
#include <optional>

#include "gui/models/diff_model.hpp"
#include "gui/models/trace_session.hpp"
#include "profiler/import_cache/trace_source.hpp"

namespace ts::gui {

class ComparePage : public QWidget {
  Q_OBJECT

 public:
  explicit ComparePage(QWidget* parent = nullptr);

  void set_session(TraceSession* session);
  void set_analysis_options(const analysis::AnalysisOptions& options) { options_ = options; }
  // How another tool's trace opened as B is imported (--step-marker, --run).
  void set_import_options(const import::ImportOptions& options) { import_options_ = options; }
  // Opens B and analyses it in the background; a file that is not a readable trace fails at once
  // (failed() is emitted and false returned).
  bool open_b(const QString& path);
  // Blocks until B's analysis is done (tests, screenshots).
  void wait();
  bool has_diff() const { return diff_.has_value(); }
  const analysis::RunDiff* diff() const { return diff_ ? &*diff_ : nullptr; }
  DiffModel* figures() const { return figures_; }
  KernelDiffModel* kernels() const { return kernels_; }

 signals:
  void openRequested();  // the "Compare with…" button
  void failed(const QString& message);

 private:
  // B's analysis and, when A's file is known, A's again: with the default warm-up rule both
  // leave out the same first steps (analysis::common_warmup), as `trainscope diff` does.
  struct Loaded {
    std::optional<analysis::Report> report;
    std::optional<analysis::Report> a;
    std::optional<analysis::CommonWarmup> common;
    std::string a_path;
    QString error;
  };
  void b_done();
  void refresh();

  TraceSession* session_ = nullptr;
  QString b_path_;
  analysis::AnalysisOptions options_;
  import::ImportOptions import_options_;
  std::optional<analysis::Report> b_;
  std::optional<analysis::Report> a_;  // A analysed for the comparison (Loaded::a)
  std::optional<analysis::CommonWarmup> common_;
  std::string a_path_;  // the file a_ was analysed from
  std::optional<analysis::RunDiff> diff_;
  QFutureWatcher<Loaded> loading_;
  QLabel* header_;
  DiffModel* figures_;
  KernelDiffModel* kernels_;
};

}  // namespace ts::gui
