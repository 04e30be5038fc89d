// The compare tab's work, no window: the open trace (A) against a second one (B). Opening B
// imports it when it is another tool's trace and refuses a file that is not a trace at once;
// B, and A again, are then analysed on the background pool so that both leave out the same
// warm-up (analysis::common_warmup, as `trainscope diff` does), and analysis::diff compares
// them per step. Until that is done, or for a trace opened as A later, A's own report is used.
#pragma once

#include <QFutureWatcher>
#include <QObject>
#include <QString>
#include <QStringList>
#include <optional>
#include <string>

#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

class TraceComparison : public QObject {
  Q_OBJECT

 public:
  explicit TraceComparison(QObject* parent = nullptr);

  void set_analysis_options(const AnalysisOptions& options) { options_ = options; }
  // How another tool's trace opened as B is imported (--step-marker, --run).
  void set_import_options(const ImportOptions& options) { import_options_ = options; }

  // A: the open trace, or null. Another A than the one B was analysed with is compared with B
  // afresh (both analysed again), so that both leave out the same warm-up.
  void set_a(TraceSession* session);
  TraceSession* a() const { return a_session_; }
  // Opens B and analyses it in the background; a file that is not a readable trace fails at once
  // (failed() is emitted and false returned).
  bool open_b(const QString& path);
  // Blocks until B's analysis is done (tests, screenshots).
  void wait();
  // What B was opened as; empty before, or after B failed to analyse.
  const QString& b_path() const { return b_path_; }

  // The comparison, once both reports are there; null before.
  const RunDiff* diff() const { return diff_ ? &*diff_ : nullptr; }
  // The currency A's prices are in ("$" when A names none).
  std::string currency() const;
  // One line on how much faster B runs the same work.
  QString headline() const;
  // The lines below it: the steps compared, then what B saves and the whole runs' comparison
  // when they say anything.
  QStringList notes() const;

 signals:
  // The comparison changed: a report arrived, A or B changed.
  void changed();
  void failed(const QString& message);

 private:
  // B's analysis and, when A's file is known, A's again: with the default warm-up rule both
  // leave out the same first steps.
  struct Loaded {
    std::optional<Report> report;
    std::optional<Report> a;
    std::optional<analysis::CommonWarmup> common;
    QString error;
  };
  void b_done();
  void update();
  // Whether a_ is the open A's, analysed with B; A's report the comparison uses: that one, else
  // the session's own.
  bool own_a() const;
  const Report* a_report() const;

  TraceSession* a_session_ = nullptr;
  QString b_path_;
  AnalysisOptions options_;
  ImportOptions import_options_;
  std::optional<Report> b_;
  std::optional<Report> a_;  // A analysed for the comparison (Loaded::a)
  std::optional<analysis::CommonWarmup> common_;
  std::string a_path_;  // the file a_ was analysed from
  std::optional<RunDiff> diff_;
  QFutureWatcher<Loaded> loading_;
};

}  // namespace ts::gui
