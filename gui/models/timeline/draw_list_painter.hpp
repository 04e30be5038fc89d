// Pass 2 of drawing the timeline: paints a DrawList, plus the chrome around it (lane stripes,
// track names with the group headers' pins, the ruler with the epochs' names). Decides nothing
// about what is visible; pass 1 did.
#pragma once

#include <QPainter>
#include <QRectF>

#include "gui/models/timeline/draw_list.hpp"
#include "gui/models/timeline/lane_layout.hpp"

namespace ts::gui {

struct TimelineGeometry {
  static constexpr double kNamesWidth = 200;  // the names column's width until dragged
  static constexpr double kMinNamesWidth = 80;
  static constexpr double kRulerHeight = 26;

  QRectF names;  // track names, left of the lanes
  QRectF ruler;  // above the lanes
  QRectF area;   // where time is drawn
  double scroll_y = 0;

  // Splits a widget rectangle (less the vertical scroll bar), the names column `names_width`
  // wide.
  static TimelineGeometry of(const QRectF& widget, double scroll_y,
                             double names_width = kNamesWidth);
};

// Pinned lanes are painted in a band at the top of the area, over the scrolled ones.
void paint_draw_list(QPainter& p, const DrawList& list, const LaneLayout& layout,
                     const TimelineGeometry& g);

// The pin of a group header whose top is drawn at `lane_top`: a click on it pins or unpins
// the group.
QRectF pin_button(const TimelineGeometry& g, double lane_top);

}  // namespace ts::gui
