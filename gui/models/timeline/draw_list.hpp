// Pass 1 of drawing the timeline (Tracy's two-pass scheme): everything visible becomes a flat
// list of boxes, lines and texts in widget coordinates, with sub-pixel events merged (lod.hpp).
// Pass 2 (draw_list_painter.hpp) only paints the list. Keeping the passes apart makes the list
// testable and the cost of each pass measurable.
#pragma once

#include <QColor>
#include <QFontMetricsF>
#include <QImage>
#include <QLineF>
#include <QPolygonF>
#include <QRectF>
#include <QString>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "gui/models/event_window.hpp"
#include "gui/models/ruler.hpp"
#include "gui/models/time_mapping.hpp"
#include "gui/models/timeline/label_cache.hpp"
#include "gui/models/timeline/lane_layout.hpp"
#include "gui/models/timeline/selection.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "gui/models/trace_summary.hpp"

namespace ts::gui {

// Items of a pinned lane (lane_layout.hpp) are drawn in the band at the top of the lanes, over
// what scrolls beneath it: each carries `pinned` so that pass 2 clips it to its part.
struct DrawBox {
  enum class Style : std::uint8_t { solid, merged, loading };
  QRectF rect;
  QColor fill;
  QColor text_color;
  QString text;
  Style style = Style::solid;
  bool pinned = false;
  Selection hit;             // what a click here selects (kind none: nothing)
  std::uint64_t events = 1;  // merged boxes: events it stands for
  QString detail;            // merged boxes: what they hold, by time ("host compute 62 %, …")
  // The share of its width its events cover (merged boxes, idle time in a step): drawn as a bar
  // of that height over a faint wash of the colour (Perfetto's and Nsight's utilisation rows),
  // so a dense lane zoomed out shows where it is busy and where it is not.
  double coverage = 1;
};

struct DrawLine {
  QPolygonF points;
  QColor color;
  bool segments = false;  // points are pairs, each a separate segment (drawLines)
  bool pinned = false;
  bool dashed = false;  // a reference (a device's memory), not data
  // A polyline's area down to y = fill_base, filled with `fill` under it (invalid: none).
  QColor fill;
  double fill_base = 0;
};

// Vertical shading (idle gaps behind the device lanes, input-bound steps behind every lane) as
// one pixel row of colours stretched over `rect`: one draw call however many bands there are.
struct ShadeStrip {
  QRectF rect;
  QImage columns;  // width x 1, ARGB32 premultiplied; column i shades pixel column i of rect
  bool pinned = false;
};

struct DrawText {
  QPointF at;
  QString text;
  QColor color;
  bool pinned = false;
};

// Where an epoch starts: a line down the lanes and, when there is room, its name in the ruler.
struct EpochMark {
  double x = 0;   // in widget coordinates
  QString label;  // empty: too close to the previous label
};

struct DrawList {
  std::vector<ShadeStrip> strips;  // drawn first
  std::vector<DrawBox> under;      // behind the zones: the part of the trace not read yet
  std::vector<DrawBox> boxes;
  std::vector<DrawLine> lines;
  std::vector<DrawText> texts;
  std::vector<Tick> ticks;
  std::vector<EpochMark> epochs;
  QRectF pinned_band;             // the pinned lanes' band at the top of the area; empty: none
  QRectF selection;               // empty: none visible
  bool selection_pinned = false;  // in the pinned band
  QRectF link;                    // the partner of the selected event; empty: none visible
  bool link_pinned = false;
  QLineF flow;                   // from the selection to its partner, over both parts; null: none
  QRectF range;                  // a selected time range, across the lanes; empty: none
  QString range_text;            // its duration
  std::size_t events_shown = 0;  // events the boxes stand for
  bool used_window = false;      // drawn from a loaded window (exact), not the summary
};

struct DrawContext {
  const TimeMapping* mapping = nullptr;  // its x = 0 is area.left()
  const LaneLayout* layout = nullptr;
  QRectF area;          // where time is drawn, in widget coordinates
  double scroll_y = 0;  // how far the lanes below the pinned band are scrolled
  const SummaryData* summary = nullptr;
  const EventWindow* window = nullptr;  // covers the view, or null
  const StepRow* steps = nullptr;
  const GapRow* gaps = nullptr;  // null until the analysis is done
  const LabelCache* labels = nullptr;
  // Memory counters' device memory in bytes, by track (trace_meta.hpp memory_capacities()):
  // drawn as a reference line in the lane. Null or absent: not known.
  const std::unordered_map<std::uint32_t, double>* capacities = nullptr;
  QFontMetricsF metrics{QFont()};
  Selection selection;
  Selection link;  // the selected event's correlated partner (kind none: none)
  double min_px = 3;
};

DrawList build_draw_list(const DrawContext& ctx);

}  // namespace ts::gui
