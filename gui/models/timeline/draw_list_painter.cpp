#include "gui/models/timeline/draw_list_painter.hpp"

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

// The band of pinned lanes (in widget coordinates, across the names and the area), and the
// part below it where the other lanes scroll; `names` and `area` share their top.
QRectF band_of(const LaneLayout& layout, const TimelineGeometry& g) {
  const double h = std::min(layout.pinned_height(), g.area.height());
  return {g.names.left(), g.area.top(), g.area.right() - g.names.left(), std::max(0.0, h)};
}

void lanes_background(QPainter& p, const LaneLayout& layout, const TimelineGeometry& g,
                      bool pinned) {
  if (!pinned) p.fillRect(g.area.united(g.names), QColor(0xff, 0xff, 0xff));
  bool odd = false;
  for (const Lane& l : layout.lanes()) {
    const double top = g.area.top() + layout.view_y(l, l.y, g.scroll_y) - LaneLayout::kLaneGap / 2;
    const QRectF band(g.names.left(), top, g.area.right() - g.names.left(),
                      l.height + LaneLayout::kLaneGap);
    if (l.pinned == pinned) p.fillRect(band, odd ? QColor(0xf7, 0xf8, 0xfa) : QColor(Qt::white));
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
  if (b.coverage < 1 && b.style != DrawBox::Style::loading) {
    // Part of its width busy: a faint wash of its colour and a bar as high as the share.
    QColor wash = b.fill;
    wash.setAlpha(50);
    p.fillRect(b.rect, wash);
    QRectF bar = b.rect;
    bar.setTop(b.rect.bottom() - std::max(1.0, b.rect.height() * std::max(0.0, b.coverage)));
    p.fillRect(bar, b.style == DrawBox::Style::merged ? b.fill.lighter(112) : b.fill);
    if (b.style == DrawBox::Style::merged) hatch(p, bar, b.fill.darker(140), 5);
  } else {
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
  }
  if (b.text.isEmpty()) return;
  const QRectF r = b.rect.adjusted(3, 0, -3, 0);
  if (b.style == DrawBox::Style::merged) {  // a plate keeps the count readable on the hatch
    const double w = p.fontMetrics().horizontalAdvance(b.text) + 6;
    p.fillRect(QRectF(r.left() - 3, r.top() + 2, std::min(w, b.rect.width()), r.height() - 4),
               b.fill.lighter(112));
  }
  // On the wash of a partly busy box, the colour's own dark shade reads better than its text
  // colour.
  p.setPen(b.coverage < 1 && b.style == DrawBox::Style::solid ? b.fill.darker(220) : b.text_color);
  p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter, b.text);
}

// What a part (the pinned band, or the lanes below it) draws of the list: shading, boxes,
// counter lines and texts, and the selection when it lies there.
void lanes_part(QPainter& p, const DrawList& list, const TimelineGeometry& g, bool pinned) {
  grid(p, list, g);
  for (const ShadeStrip& s : list.strips)
    if (s.pinned == pinned) p.drawImage(s.rect, s.columns);
  for (const DrawBox& b : list.under)
    if (b.pinned == pinned) box(p, b);
  for (const DrawBox& b : list.boxes)
    if (b.pinned == pinned) box(p, b);
  p.setRenderHint(QPainter::Antialiasing, false);
  for (const DrawLine& l : list.lines) {
    if (l.pinned != pinned) continue;
    if (l.fill.isValid() && !l.segments && l.points.size() >= 2) {
      QPolygonF area = l.points;
      area << QPointF(l.points.back().x(), l.fill_base)
           << QPointF(l.points.front().x(), l.fill_base);
      p.setPen(Qt::NoPen);
      p.setBrush(l.fill);
      p.drawPolygon(area);
      p.setBrush(Qt::NoBrush);
    }
    // Cosmetic pens: the fast path, whatever the number of points.
    p.setPen(l.dashed ? QPen(l.color, 0, Qt::DashLine) : QPen(l.color, 0));
    if (l.segments)
      p.drawLines(l.points.constData(), static_cast<int>(l.points.size() / 2));
    else
      p.drawPolyline(l.points);
  }
  for (const DrawText& t : list.texts) {
    if (t.pinned != pinned) continue;
    p.setPen(t.color);
    p.drawText(QRectF(g.area.left(), t.at.y() - 12, t.at.x() - g.area.left(), 16),
               Qt::AlignRight | Qt::AlignVCenter, t.text);
  }
  if (!list.link.isEmpty() && list.link_pinned == pinned) {
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 1.5, Qt::DashLine));
    p.setBrush(Qt::NoBrush);
    p.drawRect(list.link.adjusted(-1, -1, 1, 1));
  }
  if (!list.selection.isEmpty() && list.selection_pinned == pinned) {
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 2));
    p.setBrush(Qt::NoBrush);
    p.drawRect(list.selection.adjusted(-1, -1, 1, 1));
  }
}

}  // namespace

QRectF pin_button(const TimelineGeometry& g, double lane_top) {
  return {g.names.right() - 20, lane_top + 1, 16, LaneLayout::kRowHeight - 2};
}

namespace {

// A drawing pin: filled when the group is pinned, an outline to click when it is not.
void pin_glyph(QPainter& p, const QRectF& r, bool pinned) {
  const QColor c = pinned ? QColor(0x0d, 0x47, 0xa1) : QColor(0x90, 0xa4, 0xae);
  p.save();
  p.setRenderHint(QPainter::Antialiasing, true);
  p.setPen(QPen(c, 1.4));
  p.setBrush(pinned ? QBrush(c) : QBrush(Qt::NoBrush));
  const QPointF head(r.center().x(), r.top() + 5);
  p.drawEllipse(head, 3.5, 3.5);
  p.drawLine(QPointF(head.x(), head.y() + 3.5), QPointF(head.x(), r.bottom() - 1));
  p.restore();
}

void names(QPainter& p, const LaneLayout& layout, const TimelineGeometry& g, bool pinned) {
  if (!pinned) p.fillRect(g.names, QColor(0xf4, 0xf5, 0xf7));
  QFont bold = p.font();
  bold.setBold(true);
  const QFont plain = p.font();
  for (const Lane& l : layout.lanes()) {
    if (l.pinned != pinned) continue;
    const double top = g.area.top() + layout.view_y(l, l.y, g.scroll_y);
    if (top + l.height < g.names.top() || top > g.names.bottom()) continue;
    const bool special =
        l.kind == LaneKind::steps || l.kind == LaneKind::idle || l.kind == LaneKind::group;
    if (pinned)
      p.fillRect(QRectF(g.names.left(), top - LaneLayout::kLaneGap / 2, g.names.width(),
                        l.height + LaneLayout::kLaneGap),
                 QColor(0xee, 0xf3, 0xfb));
    if (l.kind == LaneKind::group)
      p.fillRect(QRectF(g.names.left(), top, g.names.width(), l.height), QColor(0xe3, 0xe8, 0xec));
    p.setFont(special ? bold : plain);
    p.setPen(l.kind == LaneKind::idle ? QColor(0xb7, 0x1c, 0x1c) : QColor(0x37, 0x47, 0x4f));
    const double indent = 8 + 10 * l.level;
    const double room = g.names.width() - indent - (l.kind == LaneKind::group ? 24 : 4);
    const QRectF r(g.names.left() + indent, top, std::max(0.0, room), LaneLayout::kRowHeight);
    // A group header keeps its start ("▸ rank 12 (pid …"): the rank is what tells the rows
    // apart; other lanes keep both ends of their names.
    const Qt::TextElideMode elide = l.kind == LaneKind::group ? Qt::ElideRight : Qt::ElideMiddle;
    p.drawText(r, Qt::AlignLeft | Qt::AlignVCenter,
               p.fontMetrics().elidedText(l.title, elide, static_cast<int>(r.width())));
    if (l.kind == LaneKind::group) pin_glyph(p, pin_button(g, top), l.pinned);
  }
  p.setFont(plain);
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
  // Epochs: a plate with the name at the foot of the ruler, right of the epoch's line.
  const QFont before = p.font();
  QFont small = before;
  small.setPointSizeF(small.pointSizeF() * 0.82);
  small.setBold(true);
  p.setFont(small);
  const QFontMetricsF fm(small);
  for (const EpochMark& e : list.epochs) {
    if (e.x < g.ruler.left() || e.x > g.ruler.right()) continue;
    const QColor purple(0x6a, 0x1b, 0x9a);
    p.setPen(QPen(purple, 1));
    p.drawLine(QPointF(e.x, g.ruler.bottom() - 12), QPointF(e.x, g.ruler.bottom()));
    if (e.label.isEmpty()) continue;
    const QRectF plate(e.x, g.ruler.bottom() - 12, fm.horizontalAdvance(e.label) + 8, 11);
    p.fillRect(plate, purple);
    p.setPen(Qt::white);
    p.drawText(plate, Qt::AlignCenter, e.label);
  }
  p.setFont(before);
}

}  // namespace

void paint_draw_list(QPainter& p, const DrawList& list, const LaneLayout& layout,
                     const TimelineGeometry& g) {
  p.save();
  const QRectF band = band_of(layout, g);
  const QRectF below(g.area.left(), band.bottom(), g.area.width(), g.area.bottom() - band.bottom());
  // The lanes below the pinned band, scrolled; then the band over them.
  lanes_background(p, layout, g, false);
  p.setClipRect(below);
  lanes_part(p, list, g, false);
  if (!band.isEmpty()) {
    p.setClipRect(band);
    lanes_background(p, layout, g, true);
    p.setClipRect(band.intersected(g.area));
    lanes_part(p, list, g, true);
  }
  // Across both parts: a selected range, the flow from the selection to its partner, epochs.
  p.setClipRect(g.area);
  for (const EpochMark& e : list.epochs) {
    p.setPen(QPen(QColor(0x6a, 0x1b, 0x9a, 170), 1, Qt::DashLine));
    p.drawLine(QPointF(e.x, g.area.top()), QPointF(e.x, g.area.bottom()));
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
  if (!list.flow.isNull()) {
    p.setPen(QPen(QColor(0x0d, 0x47, 0xa1), 0));
    p.drawLine(list.flow);
  }
  if (!band.isEmpty()) {  // the band's lower edge, so that lanes read as sliding beneath it
    p.setPen(QPen(QColor(0x90, 0xa4, 0xae), 1));
    p.drawLine(QPointF(g.area.left(), band.bottom()), QPointF(g.area.right(), band.bottom()));
  }
  p.setClipping(false);
  p.setClipRect(
      QRectF(g.names.left(), band.bottom(), g.names.width(), g.names.bottom() - band.bottom()));
  names(p, layout, g, false);
  if (!band.isEmpty()) {
    p.setClipRect(QRectF(g.names.left(), band.top(), g.names.width(), band.height()));
    names(p, layout, g, true);
  }
  p.setClipping(false);
  p.setPen(QPen(QColor(0xcf, 0xd8, 0xdc), 0));
  p.drawLine(g.names.topRight(), g.names.bottomRight());
  if (!band.isEmpty()) {
    p.setPen(QPen(QColor(0x90, 0xa4, 0xae), 1));
    p.drawLine(QPointF(g.names.left(), band.bottom()), QPointF(g.names.right(), band.bottom()));
  }
  ruler(p, list, g);
  p.restore();
}

}  // namespace ts::gui
