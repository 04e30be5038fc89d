// The Ranks tab (a trace of several ranks): the job overview's tables (gui/models/job_table.hpp:
// the ranks' per-step spread and the ranks holding the job back) above the rank x step heat map
// (gui/models/rank_heatmap.hpp) coloured by step time or by one part of the breakdown. A click on
// a cell opens that rank's steps in the timeline; a click on a rank's name, or on its row of the
// holding-back table, selects its row of the heat map; a double-click on that table's row opens
// the rank's slowest step in the timeline.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QTableView>
#include <QWidget>
#include <cstdint>
#include <memory>

#include "gui/models/job_table.hpp"
#include "gui/models/rank_heatmap.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

// The heat map itself: the rank names down the left, a cell per rank and column, the step
// numbers along the top, the colour scale at the top right.
class RankHeatmapView : public QWidget {
  Q_OBJECT

 public:
  explicit RankHeatmapView(QWidget* parent = nullptr);
  void set_heatmap(RankHeatmap heatmap);
  const RankHeatmap& heatmap() const { return map_; }
  // Outlines a rank's row (an index into the map's ranks; -1: none).
  void select_rank(int rank);
  int selected_rank() const { return selected_; }
  // Opens the rank's slowest analysed cell (cellActivated); false when it has none.
  bool open_slowest(int rank);
  // The cell at a widget position: (rank, column), or (-1, -1).
  std::pair<int, int> cell_at(const QPointF& pos) const;
  QRectF cells_rect() const;

 signals:
  // A cell was clicked: the rank's process and the extent of its steps there.
  void cellActivated(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns);
  // A rank's name was clicked (an index into the map's ranks): its row is selected.
  void rankSelected(int rank);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  // The rank row at a widget position, over the names or the cells: its index, or -1.
  int rank_at(const QPointF& pos) const;

  RankHeatmap map_;
  QImage cells_;  // one pixel per cell, drawn scaled
  int selected_ = -1;
};

class RanksPage : public QWidget {
  Q_OBJECT

 public:
  explicit RanksPage(QWidget* parent = nullptr);
  // The report and the per-step figures of the open trace (null: none yet).
  void set_report(const Report* report, std::shared_ptr<const PackedSteps> steps);
  RankHeatmapView* view() const { return view_; }
  QComboBox* colour_by() const { return colour_by_; }
  QTableView* spread_table() const { return spread_table_; }
  QTableView* holding_table() const { return holding_table_; }
  const HoldingBackModel& holding_back() const { return holding_; }

 signals:
  void cellActivated(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns);

 private:
  void rebuild();
  // The job tables as tall as their rows, so that the heat map keeps the room.
  void fit_table_heights();

  QLabel* header_;
  QComboBox* colour_by_;
  JobSpreadModel spread_;
  HoldingBackModel holding_;
  QLabel* job_line_;
  QTableView* spread_table_;
  QTableView* holding_table_;
  QWidget* job_box_;  // the job line and tables: hidden without a job overview
  RankHeatmapView* view_;
  const Report* report_ = nullptr;
  std::shared_ptr<const PackedSteps> steps_;
};

}  // namespace ts::gui
