#include "gui/models/timeline/draw_list.hpp"

#include <QStringList>
#include <algorithm>
#include <array>
#include <cmath>

#include "gui/models/format.hpp"
#include "gui/models/lod.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

namespace {

QColor blend(const QColor& a, const QColor& b, double f) {
  f = std::clamp(f, 0.0, 1.0);
  return QColor::fromRgbF(static_cast<float>(a.redF() * (1 - f) + b.redF() * f),
                          static_cast<float>(a.greenF() * (1 - f) + b.greenF() * f),
                          static_cast<float>(a.blueF() * (1 - f) + b.blueF() * f));
}

QColor with_alpha(QColor c, int alpha) {
  c.setAlpha(alpha);
  return c;
}

class Builder {
 public:
  explicit Builder(const DrawContext& c) : c_(c), m_(*c.mapping) {}

  DrawList run() {
    out_.ticks = ruler_ticks(m_);
    band_bottom_ = c_.area.top() + c_.layout->pinned_height();
    if (c_.layout->pinned_height() > 0)
      out_.pinned_band = QRectF(c_.area.left(), c_.area.top(), c_.area.width(),
                                std::min(c_.layout->pinned_height(), c_.area.height()));
    for (const Lane& lane : c_.layout->lanes()) {
      const bool shown = visible(lane, top_of(lane), lane.height);
      // The steps and the idle gaps shade other lanes: read even when scrolled out of sight.
      if (!shown && lane.kind != LaneKind::steps && lane.kind != LaneKind::idle) continue;
      switch (lane.kind) {
        case LaneKind::steps:
          steps_lane(lane, shown);
          break;
        case LaneKind::group:  // a header: its title is drawn with the lane names
          if (lane.collapsed) folded_lane(lane);
          break;
        case LaneKind::thread:
        case LaneKind::device:
          zone_lane(lane);
          break;
        case LaneKind::idle:
          idle_lane(lane, shown);
          break;
        case LaneKind::counter:
          counter_lane(lane);
          break;
      }
    }
    loading_overlay();
    selection();
    epochs();
    strips();
    return std::move(out_);
  }

 private:
  // Where a lane's top is drawn: pinned lanes do not scroll.
  double top_of(const Lane& lane) const {
    return c_.area.top() + c_.layout->view_y(lane, lane.y, c_.scroll_y);
  }
  // The part of the area a lane is drawn in: the pinned band, or below it.
  std::pair<double, double> part_of(bool pinned) const {
    return pinned ? std::pair{c_.area.top(), std::min(band_bottom_, c_.area.bottom())}
                  : std::pair{band_bottom_, c_.area.bottom()};
  }
  // Whether [top, top + height) of a lane shows in its part.
  bool visible(const Lane& lane, double top, double height) const {
    const auto [lo, hi] = part_of(lane.pinned);
    return top <= hi && top + height >= lo && hi > lo;
  }
  QRectF rect(const DrawItem& it, double top, double height) const {
    return {c_.area.left() + it.x0, top, it.x1 - it.x0, height};
  }

  // The first candidate that fits `width`, else the last one elided; empty when too narrow.
  QString fit(std::initializer_list<QString> candidates, double width) const {
    const double room = width - 6;
    if (room < 14) return {};
    for (const QString& s : candidates)
      if (c_.metrics.horizontalAdvance(s) <= room) return s;
    const QString elided = c_.metrics.elidedText(*(candidates.end() - 1), Qt::ElideRight, room);
    return elided.size() <= 1 ? QString() : elided;
  }

  const TrackRows* rows_of(std::uint32_t track) const {
    if (c_.window) return c_.window->rows_of(track);
    return c_.summary ? c_.summary->rows_of(track) : nullptr;
  }

  void zone_lane(const Lane& lane) {
    const TrackRows* rows = rows_of(lane.track);
    if (!rows) return;
    for (std::size_t depth = 0; depth < rows->rows.size(); ++depth) {
      const double top = top_of(lane) + static_cast<double>(depth) * LaneLayout::kRowHeight;
      if (!visible(lane, top, LaneLayout::kRowHeight)) continue;
      zone_row(lane.track, lane.pinned, rows->rows[depth], depth, top);
    }
  }

  // A folded group's header: the top row of each of its folded tracks, one over the other.
  void folded_lane(const Lane& lane) {
    const double top = top_of(lane);
    if (!visible(lane, top, LaneLayout::kRowHeight)) return;
    for (const std::uint32_t track : lane.folded_tracks)
      if (const TrackRows* rows = rows_of(track); rows && !rows->rows.empty())
        zone_row(track, lane.pinned, rows->rows[0], 0, top);
  }

  // One row of a track's zones, at `top`.
  void zone_row(std::uint32_t track, bool pinned, const Row& row, std::size_t depth, double top) {
    items_.clear();
    build_row_items(row, m_, c_.min_px, items_);
    for (const DrawItem& it : items_) {
      const Zone& first = row.zones[it.first];
      const Zone& last = row.zones[it.first + it.zones - 1];
      const LabelInfo& info = c_.labels->get(row.zones[it.longest].label);
      DrawBox b;
      b.rect = rect(it, top + 1, LaneLayout::kRowHeight - 2);
      b.pinned = pinned;
      b.events = it.events;
      b.hit = {Selection::Kind::event,
               track,
               static_cast<int>(depth),
               first.start_ns,
               last.end_ns,
               first.label,
               0,
               {}};
      if (it.merged()) {
        b.style = DrawBox::Style::merged;
        // The colour of the category holding most of the run's time, not of one member.
        const Mix mix = mix_of(row, it);
        b.fill = category_color(mix.dominant);
        b.text_color = text_color_on(b.fill);
        b.coverage = coverage(mix.busy_ns, row, it);
        b.detail = mix.text + QStringLiteral("\n") +
                   (mix.exact ? QStringLiteral("busy %1 of this span")
                              : QStringLiteral("busy at most %1 of this span (merged events)"))
                       .arg(format_pct(100 * b.coverage));
        b.text = fit(
            {QStringLiteral("%1 events").arg(format_count(static_cast<std::int64_t>(it.events))),
             format_count(static_cast<std::int64_t>(it.events))},
            b.rect.width());
      } else {
        b.fill = info.color;
        b.text_color = info.text;
        if (b.rect.width() >= 20)
          b.text =
              fit({info.name + "  " + format_ns(static_cast<double>(first.end_ns - first.start_ns)),
                   info.name},
                  b.rect.width());
      }
      out_.events_shown += it.events;
      out_.boxes.push_back(std::move(b));
    }
  }

  // What a merged run holds: time per category (its colour: the dominant one) and the names
  // holding most of it, for the tooltip. Looks at up to kMixZones zones of the run.
  struct Mix {
    trace::Category dominant = trace::Category::other;
    QString text;
    double busy_ns = 0;  // the run's zones' time (of a longer run, scaled from those looked at)
    bool exact = true;   // every zone one event, all looked at: busy_ns is exact
  };

  // The share of an item's time that `busy_ns` covers: from its first zone's start to where the
  // next zone starts when that is closer than min_px (a run cut at max_px: the gap it ends on is
  // as much its own as the gaps inside it), else to its last zone's end. In time, not pixels,
  // so an item cut at the view's edge keeps its share.
  double coverage(double busy_ns, const Row& row, const DrawItem& it) const {
    const auto& z = row.zones;
    const std::size_t last = it.first + it.zones - 1;
    double end = static_cast<double>(z[last].end_ns);
    if (last + 1 < z.size() &&
        static_cast<double>(z[last + 1].start_ns) - end < c_.min_px * m_.ns_per_px())
      end = static_cast<double>(z[last + 1].start_ns);
    const double span_ns = end - static_cast<double>(z[it.first].start_ns);
    return span_ns > 0 ? std::clamp(busy_ns / span_ns, 0.0, 1.0) : 1.0;
  }
  static constexpr std::uint32_t kMixZones = 4096;
  Mix mix_of(const Row& row, const DrawItem& it) const {
    std::array<std::int64_t, trace::kCategoryCount> by_cat{};
    std::vector<std::pair<std::uint32_t, std::int64_t>> by_label;
    std::int64_t total = 0;
    const std::uint32_t n = std::min(it.zones, kMixZones);
    bool exact = n == it.zones;
    for (std::uint32_t k = it.first; k < it.first + n; ++k) {
      const Zone& z = row.zones[k];
      // A zone of several events (the overview's) spans them and the gaps between them.
      exact = exact && z.count <= 1;
      const std::int64_t d = std::max<std::int64_t>(0, z.end_ns - z.start_ns);
      const LabelInfo& info = c_.labels->get(z.label);
      by_cat[static_cast<std::size_t>(info.category)] += d;
      total += d;
      auto found = std::find_if(by_label.begin(), by_label.end(),
                                [&](const auto& p) { return p.first == z.label; });
      if (found == by_label.end()) {
        by_label.emplace_back(z.label, d);
      } else {
        found->second += d;
      }
    }
    Mix m;
    m.exact = exact;
    m.busy_ns = static_cast<double>(total) * it.zones / n;
    const auto top = std::max_element(by_cat.begin(), by_cat.end());
    m.dominant = static_cast<trace::Category>(top - by_cat.begin());
    if (total <= 0) return m;
    QStringList cats, names;
    for (int c = 0; c < trace::kCategoryCount; ++c)
      if (by_cat[static_cast<std::size_t>(c)] * 20 >= total)  // at least 5 %
        cats << QStringLiteral("%1 %2").arg(
            category_label(static_cast<trace::Category>(c)),
            format_pct(100.0 * by_cat[static_cast<std::size_t>(c)] / static_cast<double>(total)));
    std::sort(by_label.begin(), by_label.end(),
              [](const auto& a, const auto& b) { return a.second > b.second; });
    for (std::size_t i = 0; i < by_label.size() && i < 3; ++i)
      names << QStringLiteral("%1 %2").arg(
          c_.labels->get(by_label[i].first).name,
          format_pct(100.0 * by_label[i].second / static_cast<double>(total)));
    m.text =
        cats.join(QStringLiteral(", ")) + QStringLiteral("\n") + names.join(QStringLiteral(", "));
    if (by_label.size() > 3) m.text += QStringLiteral(", …");
    return m;
  }

  void steps_lane(const Lane& lane, bool shown) {
    if (!c_.steps) return;
    const StepRow& s = *c_.steps;
    const double top = top_of(lane);
    const QColor plain = category_color(trace::Category::step);
    if (shown) steps_bottom_ = top + lane.height;
    items_.clear();
    build_row_items(s.row, m_, c_.min_px, items_);
    for (const DrawItem& it : items_) {
      const std::size_t i = it.first, j = it.first + it.zones;
      const std::uint32_t nbound = s.bound_in(i, j), nhigh = s.high_in(i, j);
      // Red when any of the steps is highly input-bound, orange when moderately.
      const QColor bound =
          input_class_color(nhigh > 0 ? analysis::Verdict::high : analysis::Verdict::moderate);
      const std::size_t nsteps = std::max<std::size_t>(1, s.steps_in(i, j));
      const double frac = std::min(1.0, static_cast<double>(nbound) / static_cast<double>(nsteps));
      DrawBox b;
      b.rect = rect(it, top + 1, lane.height - 2);
      if (nbound > 0) {
        // A faint band down every lane: what happened during the input-bound step. Merged runs
        // get it in proportion, so scattered input-bound steps do not tint the whole trace.
        if (step_bands_.isNull()) step_bands_ = strip();
        shade(step_bands_, b.rect, with_alpha(bound, static_cast<int>(28 * frac * frac)));
      }
      if (!shown) continue;
      b.pinned = lane.pinned;
      b.fill = blend(plain, bound, frac);
      b.text_color = text_color_on(b.fill);
      b.hit = {Selection::Kind::step,     0, 0, s.row.zones[i].start_ns,
               s.row.zones[j - 1].end_ns, 0, i, {}};
      if (it.zones == 1 && s.per_zone == 1) {
        const QString step = QStringLiteral("step %1").arg(s.numbers[i]);
        if (s.input_bound[i]) {
          const QString pct = format_pct(s.input_pct[i]);
          b.text = fit({step + QStringLiteral(" · ") + input_class_label(s.input_class(i)) +
                            QStringLiteral(", input ") + pct,
                        step + QStringLiteral(" · input-bound, input ") + pct,
                        step + QStringLiteral(" · input ") + pct, step,
                        QStringLiteral("%1").arg(s.numbers[i])},
                       b.rect.width());
        } else {
          b.text = fit({step, QStringLiteral("%1").arg(s.numbers[i])}, b.rect.width());
        }
      } else {
        b.style = DrawBox::Style::merged;
        b.events = nsteps;
        b.text = fit({QStringLiteral("%1 steps, input-bound: %2 highly, %3 moderately")
                          .arg(nsteps)
                          .arg(nhigh)
                          .arg(nbound - nhigh),
                      QStringLiteral("%1 steps, %2 input-bound").arg(nsteps).arg(nbound),
                      QStringLiteral("%1 steps").arg(nsteps)},
                     b.rect.width());
      }
      out_.boxes.push_back(std::move(b));
    }
  }

  void idle_lane(const Lane& lane, bool shown) {
    if (!c_.gaps) return;
    const GapRow& g = *c_.gaps;
    const double top = top_of(lane);
    items_.clear();
    build_row_items(g.row, m_, 1.0, items_);  // gaps stay visible down to a pixel
    for (const DrawItem& it : items_) {
      const std::size_t i = it.first, j = it.first + it.zones;
      const auto cause =
          it.zones == 1 ? static_cast<analysis::IdleCause>(g.row.zones[i].label) : g.dominant(i, j);
      const QColor color = idle_cause_color(cause);
      DrawBox b;
      b.rect = rect(it, top + 1, lane.height - 2);
      // How much of the item is idle: a step of a per-step row holds its idle time apart, a
      // merged run of gaps leaves the time between them out.
      if (g.per_step || it.zones > 1)
        b.coverage = coverage(static_cast<double>(g.idle_in(i, j)), g.row, it);
      if (gap_shades_.isNull()) gap_shades_ = strip();
      shade(gap_shades_, b.rect, with_alpha(color, static_cast<int>(std::lround(60 * b.coverage))));
      if (!shown) continue;
      b.pinned = lane.pinned;
      b.fill = color;
      b.text_color = text_color_on(color);
      b.hit = {Selection::Kind::gap,      0, 0, g.row.zones[i].start_ns,
               g.row.zones[j - 1].end_ns, 0, i, {}};
      const QString why = idle_cause_label(cause);
      if (it.zones == 1 && g.per_zone == 1) {
        // A per-step row's zone is the whole step; its idle time is apart.
        const QString dur = format_ns(static_cast<double>(
            g.per_step && i < g.idle_ns.size() ? g.idle_ns[i]
                                               : g.row.zones[i].end_ns - g.row.zones[i].start_ns));
        b.text = fit(
            {QStringLiteral("idle %1 · %2").arg(dur, why), QStringLiteral("idle · ") + why, why},
            b.rect.width());
      } else {
        // A zone of a per-step row may stand for several steps (GapRow::per_zone): its count.
        std::size_t n = it.zones;
        if (g.per_step && g.per_zone > 1) {
          n = 0;
          for (std::size_t k = i; k < j; ++k) n += g.row.zones[k].count;
        }
        b.style = DrawBox::Style::merged;
        b.events = n;
        const QString what = g.per_step ? QStringLiteral("%1 steps with idle time, mostly %2")
                                        : QStringLiteral("%1 idle gaps, mostly %2");
        b.text = fit({what.arg(n).arg(why), why}, b.rect.width());
        b.detail = QStringLiteral("idle %1 of this span").arg(format_pct(100 * b.coverage));
      }
      out_.boxes.push_back(std::move(b));
    }
  }

  void counter_lane(const Lane& lane) {
    // The window's samples when one is loaded (exact), else the summary's; the scale is the
    // whole series' once the summary has it, so zooming does not rescale the lane.
    const CounterSeries* whole = c_.summary ? c_.summary->counter_of(lane.track) : nullptr;
    const CounterSeries* s = c_.window ? c_.window->counter_of(lane.track) : whole;
    if (!s || s->empty()) return;
    const CounterSeries* scale = whole && !whole->empty() ? whole : s;
    // A memory counter is drawn as an area from zero, labelled with its scale, against the
    // device's memory when the trace says how much it has (Nsight's and Perfetto's memory rows).
    const bool bytes = is_bytes_counter(lane.title);
    double capacity = 0;
    if (bytes && c_.capacities)
      if (const auto found = c_.capacities->find(lane.track); found != c_.capacities->end())
        capacity = found->second;
    const double peak = std::max(scale->max, s->max);
    double lo_v = std::min(scale->min, s->min), hi_v = peak;
    if (bytes) lo_v = std::min(0.0, lo_v);
    // The device's memory tops the scale when the use reaches a quarter of it; below that, a
    // line at the top would flatten the use to nothing, so the share is said in words instead.
    const bool capacity_line = capacity > 0 && peak * 4 >= capacity;
    if (capacity_line) hi_v = std::max(hi_v, capacity);
    const double label_room = bytes ? 14 : 0;
    const double top = top_of(lane) + 3 + label_room, height = lane.height - 6 - label_room;
    const double span = hi_v > lo_v ? hi_v - lo_v : 1;
    const auto y = [&](double v) { return top + height - (v - lo_v) / span * height; };
    const double left = c_.area.left(), right = c_.area.right();
    const QColor ink(0x37, 0x47, 0x4f), area_ink(0x37, 0x47, 0x4f, 48);
    std::ptrdiff_t i = std::max<std::ptrdiff_t>(0, s->at(m_.view_begin()));
    const auto end = static_cast<std::ptrdiff_t>(
        std::upper_bound(s->ts_ns.begin(), s->ts_ns.end(), m_.view_end()) - s->ts_ns.begin());
    DrawLine line, under;
    line.color = ink;
    line.pinned = under.pinned = lane.pinned;
    under.color = area_ink;
    under.segments = true;
    if (end - i > 2 * static_cast<std::ptrdiff_t>(m_.width())) {
      line.segments = true;
      // Denser than the pixels: one vertical min-max stroke per pixel column (and, for memory,
      // the area under the column's maximum).
      int col = -1;
      double lo = 0, hi = 0;
      const auto flush = [&] {
        if (col < 0) return;
        line.points << QPointF(left + col + 0.5, y(lo)) << QPointF(left + col + 0.5, y(hi));
        if (bytes)
          under.points << QPointF(left + col + 0.5, y(0)) << QPointF(left + col + 0.5, y(hi));
      };
      for (; i < end; ++i) {
        const int x = static_cast<int>(
            std::clamp(m_.x_of(s->ts_ns[static_cast<std::size_t>(i)]), 0.0, m_.width()));
        const double v = s->values[static_cast<std::size_t>(i)];
        if (x != col) {
          flush();
          col = x;
          lo = hi = v;
        }
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
      flush();
    } else {
      for (; i < end; ++i) {
        const double x =
            std::clamp(left + m_.x_of(s->ts_ns[static_cast<std::size_t>(i)]), left, right);
        const double v = y(s->values[static_cast<std::size_t>(i)]);
        if (!line.points.isEmpty()) line.points << QPointF(x, line.points.back().y());
        line.points << QPointF(x, v);
      }
      if (!line.points.isEmpty()) line.points << QPointF(right, line.points.back().y());
      if (bytes) {
        line.fill = area_ink;
        line.fill_base = y(0);
      }
    }
    if (!under.points.isEmpty()) out_.lines.push_back(std::move(under));
    out_.lines.push_back(std::move(line));
    const QColor grey(0x61, 0x61, 0x61);
    if (!bytes) {
      out_.texts.push_back({QPointF(right - 4, top + c_.metrics.ascent()),
                            QStringLiteral("max %1").arg(format_counter(hi_v, lane.title)), grey,
                            lane.pinned});
      return;
    }
    const double lane_top = top_of(lane);
    QString headline = QStringLiteral("peak %1").arg(format_bytes(peak));
    QColor headline_color = grey;
    if (capacity > 0) {
      const double share = 100.0 * peak / capacity;
      headline += QStringLiteral(" · %1 of the device's %2")
                      .arg(share > 0 && share < 0.1 ? QStringLiteral("< 0.1 %") : format_pct(share),
                           format_bytes(capacity));
      if (share >= 90) headline_color = QColor(0xc6, 0x28, 0x28);  // the lever's warning
    }
    out_.texts.push_back({QPointF(right - 4, lane_top + 3 + c_.metrics.ascent()), headline,
                          headline_color, lane.pinned});
    // The scale at the left: its top and zero.
    const auto scale_label = [&](double v, const QString& text, const QColor& color) {
      const double x = left + 4 + c_.metrics.horizontalAdvance(text);
      out_.texts.push_back({QPointF(x, y(v) + (v == lo_v ? -2 : c_.metrics.ascent() + 1)), text,
                            color, lane.pinned});
    };
    scale_label(lo_v, format_bytes(lo_v), grey);
    if (capacity_line) {
      DrawLine ref;
      ref.color = QColor(0xc6, 0x28, 0x28);
      ref.dashed = true;
      ref.pinned = lane.pinned;
      ref.points << QPointF(left, y(capacity)) << QPointF(right, y(capacity));
      out_.lines.push_back(std::move(ref));
      scale_label(capacity, QStringLiteral("device memory %1").arg(format_bytes(capacity)),
                  QColor(0xc6, 0x28, 0x28));
    } else {
      scale_label(hi_v, format_bytes(hi_v), grey);
    }
  }

  // A blank strip, one pixel per column of the area.
  QImage strip() const {
    QImage img(static_cast<int>(std::ceil(c_.area.width())), 1,
               QImage::Format_ARGB32_Premultiplied);
    img.fill(Qt::transparent);
    return img;
  }

  // The strips, stretched over what they shade in each part: input-bound steps over every lane
  // but the steps lane, idle gaps over the device lanes (one image, shared by both parts).
  void strips() {
    const auto add = [&](const QImage& img, double top, double bottom, bool pinned) {
      const auto [lo, hi] = part_of(pinned);
      top = std::max(top, lo);
      bottom = std::min(bottom, hi);
      if (!img.isNull() && bottom > top)
        out_.strips.push_back(
            {QRectF(c_.area.left(), top, img.width(), bottom - top), img, pinned});
    };
    const double lanes_bottom = c_.area.top() + c_.layout->height() - c_.scroll_y;
    add(step_bands_, c_.area.top(), band_bottom_, true);
    add(step_bands_, std::max(steps_bottom_, band_bottom_), lanes_bottom, false);
    for (const bool pinned : {true, false}) {
      double top = -1, bottom = -1;
      for (const Lane& l : c_.layout->lanes()) {
        if (l.kind != LaneKind::device || l.pinned != pinned) continue;
        if (top < 0) top = top_of(l);
        bottom = top_of(l) + l.height;
      }
      if (top >= 0) add(gap_shades_, top, bottom, pinned);
    }
  }

  // A mark where each epoch starts (the trace records two or more), named in the ruler where
  // the name does not run into the previous one's.
  void epochs() {
    if (!c_.steps || c_.steps->epochs.empty()) return;
    const StepRow& s = *c_.steps;
    const auto first = std::partition_point(s.epochs.begin(), s.epochs.end(), [&](const auto& e) {
      return s.row.zones[e.zone].start_ns < m_.view_begin();
    });
    double last_x = -1e9, label_end = -1e9;
    for (auto it = first; it != s.epochs.end(); ++it) {
      const double x = m_.x_of(s.row.zones[it->zone].start_ns);
      if (x > m_.width()) break;
      if (x - last_x < 3) continue;  // a line per few pixels is as much as can be seen
      last_x = x;
      EpochMark mark;
      mark.x = c_.area.left() + x;
      const QString name = QStringLiteral("epoch %1").arg(it->epoch);
      if (x >= label_end) {
        mark.label = name;
        label_end = x + c_.metrics.horizontalAdvance(name) + 12;
      }
      out_.epochs.push_back(std::move(mark));
    }
  }

  // Shades the pixel columns under `r` (widget coordinates) with `c`, keeping the strongest.
  void shade(QImage& img, const QRectF& r, const QColor& c) {
    const int x0 = std::max(0, static_cast<int>(std::floor(r.left() - c_.area.left())));
    const int x1 = std::min(img.width(), static_cast<int>(std::ceil(r.right() - c_.area.left())));
    const QRgb rgb = qPremultiply(c.rgba());
    auto* px = reinterpret_cast<QRgb*>(img.scanLine(0));
    for (int x = x0; x < x1; ++x)
      if (qAlpha(px[x]) < qAlpha(rgb)) px[x] = rgb;
  }

  // The part of the trace the summary scan has not reached yet, hatched.
  void loading_overlay() {
    if (c_.window || !c_.summary || c_.summary->done) return;
    const double x0 =
        c_.summary->has_extent ? std::max(0.0, m_.x_of(c_.summary->scanned_until_ns)) : 0.0;
    if (x0 >= m_.width()) return;
    for (const bool pinned : {true, false}) {
      double top = -1;
      for (const Lane& l : c_.layout->lanes())
        if (l.pinned == pinned && l.kind != LaneKind::steps && l.kind != LaneKind::idle) {
          top = top_of(l);
          break;
        }
      const auto [lo, hi] = part_of(pinned);
      top = std::max(top, lo);
      if (top < 0 || top >= hi) continue;
      DrawBox b;
      b.style = DrawBox::Style::loading;
      b.pinned = pinned;
      b.rect = QRectF(c_.area.left() + x0, top, m_.width() - x0, hi - top);
      b.fill = QColor(0xec, 0xef, 0xf1);
      b.text_color = QColor(0x54, 0x6e, 0x7a);
      b.text = QStringLiteral("reading the trace…");
      out_.under.push_back(std::move(b));
    }
  }

  void selection() {
    const Selection& s = c_.selection;
    if (s.empty()) return;
    if (s.kind == Selection::Kind::range) {
      const double x0 = std::max(-4.0, m_.x_of(s.start_ns));
      const double x1 = std::min(m_.width() + 4, m_.x_of(s.end_ns));
      if (x1 < 0 || x0 > m_.width()) return;
      out_.range =
          QRectF(c_.area.left() + x0, c_.area.top(), std::max(1.0, x1 - x0), c_.area.height());
      out_.range_text = format_ns(static_cast<double>(s.end_ns - s.start_ns));
      return;
    }
    const Lane* lane = nullptr;
    for (const Lane& l : c_.layout->lanes()) {
      const bool match = (s.kind == Selection::Kind::step && l.kind == LaneKind::steps) ||
                         (s.kind == Selection::Kind::gap && l.kind == LaneKind::idle) ||
                         (s.kind == Selection::Kind::event && l.track == s.track &&
                          (l.kind == LaneKind::thread || l.kind == LaneKind::device));
      if (match) {
        lane = &l;
        break;
      }
    }
    if (!lane) return;
    const double x0 = std::max(-4.0, m_.x_of(s.start_ns));
    const double x1 = std::min(m_.width() + 4, std::max(m_.x_of(s.end_ns), x0 + 2));
    if (x1 < 0 || x0 > m_.width()) return;
    const int depth = s.kind == Selection::Kind::event && s.depth < 0 ? depth_of(s) : s.depth;
    const double row =
        s.kind == Selection::Kind::event ? std::max(0, depth) * LaneLayout::kRowHeight : 0;
    const double h = s.kind == Selection::Kind::event ? LaneLayout::kRowHeight : lane->height;
    out_.selection = QRectF(c_.area.left() + x0, top_of(*lane) + row, x1 - x0, h);
    out_.selection_pinned = lane->pinned;
    if (c_.link.kind == Selection::Kind::event) link_arrow();
  }

  // The selected event's partner (a launch's kernel, a kernel's launch): outlined, with a line
  // from the one to the other, as Perfetto draws a flow.
  void link_arrow() {
    const Selection& k = c_.link;
    const Lane* lane = nullptr;
    for (const Lane& l : c_.layout->lanes())
      if (l.track == k.track && (l.kind == LaneKind::thread || l.kind == LaneKind::device))
        lane = &l;
    if (!lane) return;  // folded away
    const double x0 = m_.x_of(k.start_ns);
    const double x1 = std::max(m_.x_of(k.end_ns), x0 + 2);
    const double top = top_of(*lane) + std::max(0, depth_of(k)) * LaneLayout::kRowHeight;
    out_.link = QRectF(c_.area.left() + x0, top, x1 - x0, LaneLayout::kRowHeight);
    out_.link_pinned = lane->pinned;
    const QRectF& from = out_.selection;
    const bool below = out_.link.top() > from.top();
    out_.flow = QLineF(QPointF(from.left(), below ? from.bottom() : from.top()),
                       QPointF(out_.link.left(), below ? out_.link.top() : out_.link.bottom()));
  }

  // The row of an event found by search (its depth is not known until it is drawn).
  int depth_of(const Selection& s) const {
    const TrackRows* rows = rows_of(s.track);
    if (!rows) return 0;
    for (std::size_t d = 0; d < rows->rows.size(); ++d) {
      const auto& z = rows->rows[d].zones;
      const auto it = std::partition_point(z.begin(), z.end(),
                                           [&](const Zone& a) { return a.start_ns < s.start_ns; });
      if (it != z.end() && it->start_ns == s.start_ns) return static_cast<int>(d);
    }
    return 0;
  }

  const DrawContext& c_;
  const TimeMapping& m_;
  DrawList out_;
  std::vector<DrawItem> items_;
  double band_bottom_ = 0;   // the pinned band's bottom, in widget coordinates
  double steps_bottom_ = 0;  // the steps lane's bottom: input-bound bands start below it
  QImage step_bands_, gap_shades_;
};

}  // namespace

DrawList build_draw_list(const DrawContext& ctx) {
  DrawList list = Builder(ctx).run();
  list.used_window = ctx.window != nullptr;
  return list;
}

}  // namespace ts::gui
