#include "gui/models/timeline/selection_details.hpp"

#include <optional>

#include "gui/models/correlation.hpp"
#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"
#include "gui/models/range_aggregate.hpp"

namespace ts::gui {

namespace {

QString text_of(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size()));
}

QString offset(const TraceSession& s, std::int64_t t) {
  return format_offset_ns(t - s.extent().first);
}

void event_details(const TraceSession& s, const Selection& sel, Details& d) {
  const store::Reader& r = s.reader();
  std::optional<store::Event> event;
  for (const store::Event& e : r.events(sel.start_ns, sel.start_ns + 1, sel.track))
    if (e.start_ns == sel.start_ns && e.track == sel.track) event = e;
  if (!event) {
    d.emplace_back(QStringLiteral("Event"), QStringLiteral("no longer in the trace"));
    return;
  }
  const store::Label& label = r.label(event->label);
  const store::Track* track = r.track(event->track);
  d.emplace_back(QStringLiteral("Name"), display_text(r.full_name(*event)));
  d.emplace_back(QStringLiteral("Category"), text_of(trace::category_name(label.category)));
  d.emplace_back(QStringLiteral("Track"),
                 track ? display_text(track->name) : QString::number(event->track));
  d.emplace_back(QStringLiteral("Start"), offset(s, event->start_ns));
  d.emplace_back(QStringLiteral("Duration"), format_ns(static_cast<double>(event->dur_ns)));
  if (event->step != store::kNull)
    d.emplace_back(QStringLiteral("Step"), QString::number(event->step));
  if (event->bytes != store::kNull) {
    QString bytes = format_bytes(static_cast<double>(event->bytes));
    if (event->dur_ns > 0)
      bytes += QStringLiteral(" (%1/s)").arg(format_bytes(static_cast<double>(event->bytes) * 1e9 /
                                                          static_cast<double>(event->dur_ns)));
    d.emplace_back(QStringLiteral("Bytes"), bytes);
  }
  const store::EventArgs args = r.args(*event);
  if (args.work_size != store::kNull)
    d.emplace_back(QStringLiteral("Work size"), format_count(args.work_size));
  if (args.correlation != store::kNull) {
    d.emplace_back(QStringLiteral("Correlation"), QString::number(args.correlation));
    if (const auto other = correlated_event(r, *event)) {
      const store::Track* t = r.track(other->track);
      const std::int64_t dt = other->start_ns - event->start_ns;
      d.emplace_back(other->start_ns >= event->start_ns ? QStringLiteral("Caused")
                                                        : QStringLiteral("Launched by"),
                     QStringLiteral("%1 (%2) on %3, %4 %5")
                         .arg(display_text(r.full_name(*other)),
                              category_label(r.label(other->label).category),
                              t ? display_text(t->name) : QString::number(other->track),
                              format_ns(static_cast<double>(dt >= 0 ? dt : -dt)),
                              dt >= 0 ? QStringLiteral("later") : QStringLiteral("earlier")));
    }
  }
  if (!label.file.empty())
    d.emplace_back(
        QStringLiteral("Source"),
        display_text(label.file) +
            (label.line != store::kNull ? ":" + QString::number(label.line) : QString()));
}

void step_details(const TraceSession& s, const StepRow& steps, const Selection& sel, Details& d) {
  if (sel.index >= steps.numbers.size()) return;
  const std::int64_t number = steps.numbers[sel.index];
  d.emplace_back(QStringLiteral("Step"), QString::number(number));
  if (const int epoch = steps.epoch_of(sel.index); epoch > 0)
    d.emplace_back(QStringLiteral("Epoch"), QString::number(epoch));
  d.emplace_back(QStringLiteral("Start"), offset(s, sel.start_ns));
  d.emplace_back(QStringLiteral("Duration"),
                 format_ns(static_cast<double>(sel.end_ns - sel.start_ns)));
  const analysis::Report* r = s.report();
  if (!r) {
    d.emplace_back(QStringLiteral("Breakdown"), QStringLiteral("analysing…"));
    return;
  }
  const std::optional<std::size_t> index = s.step_figures()->find_step(number);
  if (!index) return;
  const analysis::StepSummary st = s.step_figures()->at(*index);
  d.emplace_back(QStringLiteral("Input"),
                 format_pct(st.input_pct) +
                     (st.input_bound ? QStringLiteral(" — ") + input_class_label(st.input_verdict)
                                     : QString()));
  for (int p = 0; p < analysis::kPartCount; ++p) {
    const std::int64_t ns = st.parts.ns[static_cast<std::size_t>(p)];
    if (ns > 0 && (st.device_sampled || !device_part(static_cast<analysis::Part>(p))))
      d.emplace_back(part_label(static_cast<analysis::Part>(p)),
                     format_ns(static_cast<double>(ns)));
  }
  if (!st.device_sampled)  // a capture with device events on a sample of steps
    d.emplace_back(QStringLiteral("Device busy"),
                   r->device_sampling
                       ? QStringLiteral("not sampled (device events on 1 step in %1)")
                             .arg(r->device_sampling->every)
                       : QStringLiteral("not sampled"));
  else if (r->device.has_device)
    d.emplace_back(QStringLiteral("Device busy"),
                   format_ns(static_cast<double>(st.device_busy_ns)));
}

void gap_details(const TraceSession& s, const GapRow& gaps, const Selection& sel, Details& d) {
  const analysis::Report* r = s.report();
  if (!r || sel.index >= gaps.row.zones.size() || sel.index >= gaps.steps.size()) return;
  const Zone& z = gaps.row.zones[sel.index];
  const QString cause = idle_cause_label(static_cast<analysis::IdleCause>(z.label));
  if (gaps.per_step && sel.index < gaps.idle_ns.size()) {
    // A step (or, in a trace of very many steps, a run of them) of a trace too long to hold
    // every gap, seen from afar: zoom in for its gaps.
    const bool one = gaps.per_zone == 1;
    d.emplace_back(one ? QStringLiteral("Device idle in the step")
                       : QStringLiteral("Device idle in %1 steps").arg(z.count),
                   format_ns(static_cast<double>(gaps.idle_ns[sel.index])));
    d.emplace_back(QStringLiteral("Mostly"), cause);
    d.emplace_back(one ? QStringLiteral("Step") : QStringLiteral("First step"),
                   QString::number(gaps.steps[sel.index]));
    d.emplace_back(QStringLiteral("Step start"), offset(s, z.start_ns));
    return;
  }
  d.emplace_back(QStringLiteral("Device idle"),
                 format_ns(static_cast<double>(z.end_ns - z.start_ns)));
  d.emplace_back(QStringLiteral("Cause"), cause);
  d.emplace_back(QStringLiteral("Start"), offset(s, z.start_ns));
  d.emplace_back(QStringLiteral("Step"), QString::number(gaps.steps[sel.index]));
}

// A time range summed up by name (range_aggregate.hpp): its span, then one line per name.
void range_details(const TraceSession& s, const Selection& sel, Details& d) {
  const RangeAggregate a = aggregate_range(s.reader(), sel.start_ns, sel.end_ns, sel.tracks);
  d.emplace_back(QStringLiteral("Range"), format_ns(static_cast<double>(a.end_ns - a.start_ns)));
  d.emplace_back(QStringLiteral("From"), offset(s, a.start_ns));
  d.emplace_back(QStringLiteral("Lanes"),
                 sel.tracks.empty() ? QStringLiteral("all") : QString::number(a.tracks));
  d.emplace_back(
      QStringLiteral("Events"),
      format_count(a.events) + (a.truncated ? QStringLiteral(" (the first only)") : QString()));
  constexpr std::size_t kShown = 30;
  for (std::size_t i = 0; i < a.rows.size() && i < kShown; ++i) {
    const RangeRow& row = a.rows[i];
    d.emplace_back(text_of(row.name) + QStringLiteral(" (") + category_label(row.category) +
                       QStringLiteral(")"),
                   QStringLiteral("%1 × %2 = %3")
                       .arg(format_count(row.count), format_ns(static_cast<double>(row.mean_ns())),
                            format_ns(static_cast<double>(row.total_ns))));
  }
  if (a.rows.size() > kShown)
    d.emplace_back(QStringLiteral("…"),
                   QStringLiteral("%1 more names").arg(a.rows.size() - kShown));
}

}  // namespace

Details selection_details(const TraceSession& session, const StepRow& steps, const GapRow& gaps,
                          const Selection& selection) {
  Details d;
  switch (selection.kind) {
    case Selection::Kind::event:
      event_details(session, selection, d);
      break;
    case Selection::Kind::step:
      step_details(session, steps, selection, d);
      break;
    case Selection::Kind::gap:
      gap_details(session, gaps, selection, d);
      break;
    case Selection::Kind::range:
      range_details(session, selection, d);
      break;
    case Selection::Kind::none:
      break;
  }
  return d;
}

}  // namespace ts::gui
