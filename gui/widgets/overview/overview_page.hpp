// The overview tab: the verdict in one sentence, the key figures, the step-time chart, the levers
// ranked by what they would save (the selected one's evidence and fix below them) and the
// recommendations — what a person should understand about the run in ten seconds.
#pragma once

#include <QLabel>
#include <QListWidget>
#include <QPlainTextEdit>
#include <QTableView>
#include <QWidget>
#include <cstdint>
#include <string>
#include <vector>

#include "gui/models/lever_model.hpp"
#include "gui/models/overview_figures.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"
#include "gui/widgets/overview/step_chart.hpp"

namespace ts::gui {

class OverviewPage : public QWidget {
  Q_OBJECT

 public:
  explicit OverviewPage(QWidget* parent = nullptr);
  void set_session(TraceSession* session);

  QString verdict_text() const { return verdict_->text(); }
  // The partial-data banner: the report's warnings, one per line; empty (and hidden) for a
  // complete trace.
  QString warnings_text() const { return warnings_->text(); }
  // The figures shown, as the cards show them.
  const std::vector<Figure>& figures() const { return figures_; }
  QStringList recommendations() const;
  StepChart* chart() const { return chart_; }
  // The levers table and what the selected lever's details show (empty without a lever).
  LeverModel* levers() const { return lever_model_; }
  QTableView* lever_table() const { return lever_table_; }
  QString lever_details_text() const { return lever_details_->toPlainText(); }

 signals:
  void stepActivated(std::int64_t step);

 private:
  void show_report();
  void show_pending();
  void show_warnings(const std::vector<std::string>& warnings);
  void clear_cards();
  void show_levers(const Report& r);
  void show_lever_details(const QModelIndex& index);

  QLabel* file_;
  QLabel* verdict_;
  QLabel* warnings_;
  QWidget* cards_;
  StepChart* chart_;
  LeverModel* lever_model_;
  QTableView* lever_table_;
  QPlainTextEdit* lever_details_;
  QListWidget* recommendations_;
  std::vector<Figure> figures_;
  TraceSession* session_ = nullptr;
};

}  // namespace ts::gui
