#include "gui/widgets/timeline/draw_list_painter.hpp"

#include <QBrush>
#include <QPen>
#include <QVarLengthArray>
#include <algorithm>
#include <cmath>

namespace ts::gui {

TimelineGeometry TimelineGeometry::of(const QRectF& w, double scroll_y, double names_width) {
  TimelineGeometry g;
  const double nw = names_width;
  g.names = QRectF(w.left(), w.top() + kRulerHeight, nw, w.height() - kRulerHeight);
  g.ruler = QRectF(w.left() + nw, w.top(), w.width() - nw, kRulerHeight);
  g.area = QRectF(w.left() + nw, w.top() + kRulerHeight, w.width() - nw, w.height() - kRulerHeight);
  g.scroll_y = scroll_y;
  return g;
}

namespace {

void lanes_background(QPainter& p, const LaneLayout& layout, const TimelineGeometry& g) {
  p.fillRect(g.area.united(g.names), QColor(0xff, 0xff, 0xff));
  bool odd = false;
  for (const Lane& l : layout.lanes()) {
    const double top = g.area.top() + l.y - g.scroll_y - LaneLayout::kLaneGap / 2;
    const QRectF band(g.names.left(), top, g.area.right() - g.names.left(),
                      l.height + LaneLayout::kLaneGap);
    if (odd) p.fillRect(band, QColor(0xf7, 0xf8, 0xfa));
    odd = !odd;
  }
}

void grid(QPainter& p, const DrawList& list, const TimelineGeometry& g) {
  p.setPen(QPen(QColor(0xe3, 0xe6, 0xea), 0));
  for (const Tick& t : list.ticks)
    if (t.major)
      p.drawLine(QPointF(g.area.left() + t.x, g.area.top()),
                 QPointF(g.area.left() + t.x, g.area.bottom()));
}

// Diagonal hatching ("/") inside r, on a grid shared by all boxes so neighbours line up. Drawn
// as clipped line segments: Qt's pattern brushes can be very slow on large clipped areas.
void hatch(QPainter& p, const QRectF& r, const QColor& color, double spacing) {
  p.setPen(QPen(color, 0));
  const double first = std::ceil((r.left() + r.top()) / spacing) * spacing;
  QVarLengthArray<QLineF, 64> lines;
  for (double k = first; k < r.right() + r.bottom(); k += spacing) {
    const double x0 = std::max(r.left(), k - r.bottom()), x1 = std::min(r.right(), k - r.top());
    if (x1 > x0) lines.append(QLineF(x0, k - x0, x1, k - x1));
  }
  p.drawLines(lines.constData(), static_cast<int>(lines.size()));
}

void box(QPainter& p, const DrawBox& b) {
  switch (b.style) {
    case DrawBox::Style::loading:
      p.fillRect(b.rect, b.fill);
      hatch(p, b.rect, QColor(0xcf, 0xd8, 0xdc), 10);
      break;
    case DrawBox::Style::solid:
      p.fillRect(b.rect, b.fill);
      if (b.rect.width() >= 4) {  // a darker edge separates neighbours
        p.setPen(QPen(b.fill.darker(135), 0));
        p.drawRect(b.rect.adjusted(0, 0, -1, -1));
      }
      break;
    case DrawBox::Style::merged:
      // A merged run: the colour of its longest event, hatched, so it never reads as one event.
      p.fillRect(b.rect, b.fill.lighter(112));
      hatch(p, b.rect, b.fill.darker(140), 5);
      break;
  }
  if (b.text.isEmpty()) return;
  const QRectF r = b.rect.adjusted(3, 0, -3, 0);
  if (b.style == DrawBox::Style::merged) {  // a plate keeps the count readable on the hatch
    const double w = p.fontMetrics().horizontalAdvance(b.text) + 6;
    p.fillRect(QRectF(r.left() - 3, r.top() + 2, std::min(w, b.rect.width()), r.height() - 4),
               b.fill.lighter(112));
  }
  p.setPen(b.text_color);
  p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, b.text);
}

void names(QPainter& p, const LaneLayout& layout, const TimelineGeometry& g) {
  p.fillRect(g.names, QColor(0xf4, 0xf5, 0xf7));
  p.setPen(QPen(QColor(0xcf, 0xd8, 0xdc), 0));
  p.drawLine(g.names.topRight(), g.names.bottomRight());
  QFont bold = p.font();
  bold.setBold(true);
  for (const Lane& l : layout.lanes()) {
    const double top = g.area.top() + l.y - g.scroll_y;
    if (top + l.height < g.names.top() || top > g.names.bottom()) continue;
    const bool special =
        l.kind == LaneKind::steps || l.kind == LaneKind::idle || l.kind == LaneKind::group;
    if (l.kind == LaneKind::group)
      p.fillRect(QRectF(g.names.left(), top, g.names.width(), l.height), QColor(0xe3, 0xe8, 0xec));
    p.setFont(special ? bold : QFont());
    p.setPen(l.kind == LaneKind::idle ? QColor(0xb7, 0x1c, 0x1c) : QColor(0x37, 0x47, 0x4f));
    const QRectF r(g.names.left() + 8, top, g.names.width() - 12, LaneLayout::kRowHeight);
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(l.title, Qt::ElideMiddle, static_cast<int>(r.width())));
  }
  p.setFont(QFont());
}

void ruler(QPainter& p, const DrawList& list, const TimelineGeometry& g) {
  p.fillRect(
      QRectF(g.names.left(), g.ruler.top(), g.ruler.right() - g.names.left(), g.ruler.height()),
      QColor(0xec, 0xef, 0xf1));
  p.setPen(QPen(QColor(0x90, 0xa4, 0xae), 0));
  p.drawLine(QPointF(g.names.left(), g.ruler.bottom()), g.ruler.bottomRight());
  for (const Tick& t : list.ticks) {
    const double x = g.ruler.left() + t.x;
    if (x < g.ruler.left() || x > g.ruler.right()) continue;
    p.setPen(QPen(QColor(0x78, 0x90, 0x9c), 0));
    p.drawLine(QPointF(x, g.ruler.bottom() - (t.major ? 9 : 4)), QPointF(x, g.ruler.bottom()));
    if (t.major) {
      p.setPen(QColor(0x26, 0x32, 0x38));
      p.drawText(QPointF(x + 3, g.ruler.top() + 13), t.label);
    }
  }
}

}  // namespace

void paint_draw_list(QPainter& p, const DrawList& list, const LaneLayout& layout,
                     const TimelineGeometry& g) {
  p.save();
  lanes_background(p, layout, g);
  p.setClipRect(g.area);
  grid(p, list, g);
  for (const ShadeStrip& s : list.strips) p.drawImage(s.rect, s.columns);
  for (const DrawBox& b : list.under) box(p, b);
  for (const DrawBox& b : list.boxes) box(p, b);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (const DrawLine& l : list.lines) {
    p.setPen(QPen(l.color, 0));  // cosmetic: the fast path, whatever the number of points
    if (l.segments)
      p.drawLines(l.points.constData(), static_cast<int>(l.points.size() / 2));
    else
      p.drawPolyline(l.points);
  }
  for (const DrawText& t : list.texts) {
    p.setPen(t.color);
    p.drawText(QRectF(g.area.left(), t.at.y() - 12, t.at.x() - g.area.left(), 16),
               Qt::AlignRight | Qt::AlignVCenter, t.text);
  }
  if (!list.range.isEmpty()) {
    p.fillRect(list.range, QColor(0x19, 0x76, 0xd2, 36));
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 1, Qt::DashLine));
    p.drawLine(list.range.topLeft(), list.range.bottomLeft());
    p.drawLine(list.range.topRight(), list.range.bottomRight());
    p.setPen(QColor(0x0d, 0x47, 0xa1));
    p.drawText(
        QRectF(list.range.left(), list.range.top() + 2, std::max(list.range.width(), 80.0), 16),
        Qt::AlignHCenter | Qt::AlignVCenter, list.range_text);
  }
  if (!list.link.isEmpty()) {
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(list.link.adjusted(-1, -1, 1, 1));
  }
  if (!list.selection.isEmpty()) {
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(list.selection.adjusted(-1, -1, 1, 1));
  }
  p.setClipping(false);
  names(p, layout, g);
  ruler(p, list, g);
  p.restore();
}

}  // namespace ts::gui
