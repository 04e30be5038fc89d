#include "gui/models/overview_figures.hpp"

#include <QStringList>

#include "gui/models/format.hpp"
#include "profiler/analysis/figure_format.hpp"

namespace ts::gui {

std::vector<Figure> overview_figures(const analysis::Report& r) {
  std::vector<Figure> f;
  const auto add = [&](const char* key, const QString& label, const QString& value, double raw,
                       const QString& detail = {}, bool alarm = false) {
    f.push_back({QString::fromLatin1(key), label, value, raw, detail, alarm});
  };
  QString steps_detail;
  if (r.dropped_events)
    steps_detail = QStringLiteral("trace incomplete: %1 events dropped")
                       .arg(format_count(static_cast<std::int64_t>(r.dropped_events)));
  else if (r.warmup.steps > 0)
    steps_detail = QStringLiteral("steps %1-%2; warm-up left out: %3 (%4)")
                       .arg(r.analysed_first_step)
                       .arg(r.analysed_last_step)
                       .arg(format_count(r.warmup.steps), display_text(r.warmup.why));
  add("steps", QStringLiteral("steps"), format_count(r.steps), static_cast<double>(r.steps),
      steps_detail, r.dropped_events != 0);
  add("step_time_ms.mean", QStringLiteral("mean step time"), format_ms(r.step_time.mean_ms),
      r.step_time.mean_ms,
      QStringLiteral("p50 %1, max %2")
          .arg(format_ms(r.step_time.p50_ms), format_ms(r.step_time.max_ms)));
  add("step_time_ms.p90", QStringLiteral("p90 step time"), format_ms(r.step_time.p90_ms),
      r.step_time.p90_ms);
  add("samples_per_s", QStringLiteral("samples/s"),
      r.batch ? format_rate(r.samples_per_s, QStringLiteral("samples/s")) : QStringLiteral("—"),
      r.samples_per_s,
      r.batch ? QStringLiteral("batch %1").arg(*r.batch) : QStringLiteral("batch size unknown"));
  add("input_pct", QStringLiteral("input share of step time"), format_pct(r.input_pct), r.input_pct,
      r.input_bound_steps == 0
          ? QStringLiteral("0 of %1 steps input-bound").arg(format_count(r.steps))
          : QStringLiteral("%1 of %2 steps input-bound: %3 highly, %4 moderately")
                .arg(format_count(r.input_bound_steps), format_count(r.steps),
                     format_count(r.input_bound_steps_high),
                     format_count(r.input_bound_steps - r.input_bound_steps_high)),
      r.verdict != analysis::Verdict::none);
  if (r.device.has_device) {
    // With device events on a sample of steps, the device figures are extrapolated: said so.
    const QString busy_detail =
        r.device_sampling ? QStringLiteral("device figures from 1 step in %1 (%2 of %3 steps)")
                                .arg(r.device_sampling->every)
                                .arg(format_count(r.device_sampling->sampled_steps),
                                     format_count(r.device_sampling->steps))
                          : format_ns(static_cast<double>(r.device.busy_ns));
    add("device.busy_pct", QStringLiteral("device busy"), format_pct(r.device.busy_pct),
        r.device.busy_pct, busy_detail);
    add("device.idle_pct", QStringLiteral("device idle"), format_pct(r.device.idle_pct),
        r.device.idle_pct, format_ns(static_cast<double>(r.device.idle_ns)),
        r.device.idle_pct >= 20);
    // At the scale where it reads in cents (per 1 000 or per 1 M steps), as the report writes it.
    const auto scale = analysis::fmt::cost_scale(r.idle_cost_per_1000_steps / 1e3);
    add("idle_cost_per_1000_steps",
        QStringLiteral("idle cost per %1").arg(QString::fromStdString(scale.name)),
        format_money(r.idle_cost_per_1000_steps / 1e3 * scale.steps, r.currency),
        r.idle_cost_per_1000_steps,
        QStringLiteral("at %1 per device-hour").arg(format_money(r.gpu_hour_price, r.currency)));
  } else if (r.device_events_off) {
    add("device.present", QStringLiteral("device busy"), QStringLiteral("not traced"), 0,
        QStringLiteral("captured with --trace-device off: host events only"));
  }
  if (r.ranks.size() >= 2) {
    QStringList per_rank;
    for (const analysis::RankFigures& k : r.ranks)
      per_rank << QStringLiteral("r%1 %2")
                      .arg(k.rank ? *k.rank : k.process)
                      .arg(format_ms(k.step_time.mean_ms));
    add("communication.pct", QStringLiteral("communication (%1 ranks)").arg(r.ranks.size()),
        format_pct(r.communication_pct), r.communication_pct,
        QStringLiteral("step time ") + per_rank.join(QStringLiteral(", ")),
        r.communication_verdict == analysis::Verdict::high);
    if (r.straggler)
      add("straggler.wait_ms_per_step", QStringLiteral("straggler"),
          QStringLiteral("rank %1").arg(r.straggler->rank), r.straggler->wait_ms_per_step,
          QStringLiteral("%1: others wait %2 per step")
              .arg(display_text(r.straggler->cause), format_ms(r.straggler->wait_ms_per_step)),
          true);
  }
  if (!r.what_if.empty()) {
    const analysis::WhatIf& w = r.what_if.front();
    // The lever worth most, keyed as its report --json figure (what_if.<lever>.speedup).
    f.push_back({QStringLiteral("what_if.%1.speedup").arg(QString::fromStdString(w.lever)),
                 QStringLiteral("worth most: %1").arg(display_text(w.description)),
                 QStringLiteral("%1× faster").arg(w.speedup, 0, 'f', 2), w.speedup,
                 QStringLiteral("%1 per step; %2 less over this run")
                     .arg(format_ms(w.step_time_ms), format_money(w.saving, r.currency)),
                 false});
  }
  return f;
}

QString verdict_line(const analysis::Report& report) {
  return QString::fromStdString(analysis::verdict_sentence(report));
}

QString run_title(const analysis::Report& report) {
  QString run = report.model.empty() ? QStringLiteral("run")
                                     : display_text(report.model, kMaxTitleValueBytes);
  for (const std::string* part : {&report.backend, &report.device_name})
    if (!part->empty()) run += QStringLiteral(" · ") + display_text(*part, kMaxTitleValueBytes);
  return run;
}

QString warning_banner(const std::vector<std::string>& warnings) {
  QStringList lines;
  for (std::size_t i = 0; i < warnings.size() && i < kMaxBannerWarnings; ++i)
    lines << QStringLiteral("⚠ Partial trace: ") + display_sentence(warnings[i]);
  if (warnings.size() > kMaxBannerWarnings)
    lines << QStringLiteral("⚠ … and %1 more warnings (trainscope report lists them all)")
                 .arg(
                     format_count(static_cast<std::int64_t>(warnings.size() - kMaxBannerWarnings)));
  return lines.join(QLatin1Char('\n'));
}

}  // namespace ts::gui
