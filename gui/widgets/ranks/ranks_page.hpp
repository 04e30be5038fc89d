// The Ranks tab (a trace of several ranks): the rank x step heat map (gui/models/rank_heatmap.hpp)
// coloured by step time or by one part of the breakdown, the slowest rank named above it; a
// click on a cell opens that rank's steps in the timeline.
#pragma once

#include <QComboBox>
#include <QLabel>
#include <QWidget>
#include <cstdint>
#include <memory>

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
  // The cell at a widget position: (rank, column), or (-1, -1).
  std::pair<int, int> cell_at(const QPointF& pos) const;
  QRectF cells_rect() const;

 signals:
  // A cell was clicked: the rank's process and the extent of its steps there.
  void cellActivated(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns);

 protected:
  void paintEvent(QPaintEvent*) override;
  void mousePressEvent(QMouseEvent* e) override;
  bool event(QEvent* e) override;

 private:
  RankHeatmap map_;
  QImage cells_;  // one pixel per cell, drawn scaled
};

class RanksPage : public QWidget {
  Q_OBJECT

 public:
  explicit RanksPage(QWidget* parent = nullptr);
  // The report and the per-step figures of the open trace (null: none yet).
  void set_report(const Report* report, std::shared_ptr<const PackedSteps> steps);
  RankHeatmapView* view() const { return view_; }
  QComboBox* colour_by() const { return colour_by_; }

 signals:
  void cellActivated(std::int64_t process, std::int64_t start_ns, std::int64_t end_ns);

 private:
  void rebuild();

  QLabel* header_;
  QComboBox* colour_by_;
  RankHeatmapView* view_;
  const Report* report_ = nullptr;
  std::shared_ptr<const PackedSteps> steps_;
};

}  // namespace ts::gui
