#include "gui/models/rank_heatmap.hpp"

#include <algorithm>
#include <limits>

#include "gui/models/format.hpp"
#include "gui/models/job_table.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

std::pair<std::int64_t, std::int64_t> RankHeatmap::steps_of(std::size_t column) const {
  const std::int64_t first = first_step + static_cast<std::int64_t>(column) * per_column;
  return {first, first + per_column - 1};
}

QColor RankHeatmap::color_of(double value_ms) const {
  if (std::isnan(value_ms)) return {0xec, 0xef, 0xf1};
  const double f = hi_ms > lo_ms ? std::clamp((value_ms - lo_ms) / (hi_ms - lo_ms), 0.0, 1.0) : 0;
  // Pale yellow through orange to dark red (a sequential scale: darker is slower).
  const QColor stops[] = {
      {0xff, 0xf8, 0xe1}, {0xff, 0xb7, 0x4d}, {0xe6, 0x4a, 0x19}, {0x8b, 0x00, 0x00}};
  const double x = f * 3;
  const int i = std::min(2, static_cast<int>(x));
  const double t = x - i;
  const QColor& a = stops[i];
  const QColor& b = stops[i + 1];
  return QColor::fromRgbF(static_cast<float>(a.redF() + (b.redF() - a.redF()) * t),
                          static_cast<float>(a.greenF() + (b.greenF() - a.greenF()) * t),
                          static_cast<float>(a.blueF() + (b.blueF() - a.blueF()) * t));
}

RankHeatmap make_rank_heatmap(const PackedSteps& steps, const analysis::Report& report,
                              std::optional<analysis::Part> part, std::size_t max_columns) {
  RankHeatmap h;
  if (report.ranks.size() < 2 || steps.empty() || max_columns == 0) return h;
  for (const analysis::RankFigures& r : report.ranks) h.ranks.push_back({r.process, rank_name(r)});
  std::int64_t lo = std::numeric_limits<std::int64_t>::max();
  std::int64_t hi = std::numeric_limits<std::int64_t>::min();
  steps.for_each([&](std::size_t, const analysis::StepSummary& s) {
    lo = std::min(lo, s.step);
    hi = std::max(hi, s.step);
  });
  const std::int64_t span = hi - lo + 1;
  h.first_step = lo;
  h.per_column = std::max<std::int64_t>(1, (span + static_cast<std::int64_t>(max_columns) - 1) /
                                               static_cast<std::int64_t>(max_columns));
  h.columns = static_cast<std::size_t>((span + h.per_column - 1) / h.per_column);
  h.part = part;
  const std::size_t cells = h.ranks.size() * h.columns;
  std::vector<double> sum(cells, 0);
  std::vector<std::uint32_t> count(cells, 0), analysed(cells, 0), steps_in(cells, 0);
  // Unsampled steps count towards a cell's extent but not to its mean of a device part.
  const bool by_device = part && device_part(*part);
  h.start_ns.assign(cells, 0);
  h.end_ns.assign(cells, 0);
  steps.for_each([&](std::size_t, const analysis::StepSummary& s) {
    if (s.rank_index < 0 || static_cast<std::size_t>(s.rank_index) >= h.ranks.size()) return;
    const auto column = static_cast<std::size_t>((s.step - lo) / h.per_column);
    const std::size_t c = h.at(static_cast<std::size_t>(s.rank_index), column);
    if (steps_in[c]++ == 0) {
      h.start_ns[c] = s.start_ns;
      h.end_ns[c] = s.start_ns + s.dur_ns;
    } else {
      h.start_ns[c] = std::min(h.start_ns[c], s.start_ns);
      h.end_ns[c] = std::max(h.end_ns[c], s.start_ns + s.dur_ns);
    }
    if (by_device && !s.device_sampled) return;
    const std::int64_t ns = part ? s.parts.ns[static_cast<std::size_t>(*part)] : s.dur_ns;
    sum[c] += static_cast<double>(ns) / 1e6;
    ++count[c];
    analysed[c] += s.warmup ? 0 : 1;
  });
  h.not_sampled.assign(cells, 0);
  h.analysed.assign(cells, 0);
  for (std::size_t c = 0; c < cells; ++c) {
    h.not_sampled[c] = steps_in[c] > 0 && count[c] == 0;
    h.analysed[c] = analysed[c] > 0;
  }
  h.ms.assign(cells, std::numeric_limits<double>::quiet_NaN());
  bool any = false;
  for (std::size_t c = 0; c < cells; ++c) {
    if (count[c] == 0) continue;
    h.ms[c] = sum[c] / count[c];
    // The scale is the analysed steps' (a slow warm-up would pale everything else).
    if (analysed[c] == 0) continue;
    h.lo_ms = any ? std::min(h.lo_ms, h.ms[c]) : h.ms[c];
    h.hi_ms = any ? std::max(h.hi_ms, h.ms[c]) : h.ms[c];
    any = true;
  }
  return h;
}

std::vector<std::pair<QString, std::optional<analysis::Part>>> heatmap_measures() {
  std::vector<std::pair<QString, std::optional<analysis::Part>>> out{
      {QStringLiteral("step time"), std::nullopt}};
  for (int p = 0; p < analysis::kPartCount; ++p)
    out.emplace_back(part_label(static_cast<analysis::Part>(p)), static_cast<analysis::Part>(p));
  return out;
}

QString slowest_rank_line(const RankHeatmap& map) {
  std::vector<std::pair<double, std::size_t>> means;  // mean over its cells, rank
  for (std::size_t r = 0; r < map.ranks.size(); ++r) {
    double sum = 0;
    std::size_t n = 0;
    for (std::size_t c = 0; c < map.columns; ++c)
      if (const double v = map.value(r, c); !std::isnan(v)) {
        sum += v;
        ++n;
      }
    if (n > 0) means.emplace_back(sum / static_cast<double>(n), r);
  }
  if (means.size() < 2) return {};
  std::sort(means.begin(), means.end());
  const double median = means[means.size() / 2].first;
  const auto& [worst, rank] = means.back();
  if (worst <= median * (1 + kSameAsMedian)) return {};
  const QString what = map.part ? part_label(*map.part) : QStringLiteral("step time");
  QString line = QStringLiteral("Slowest rank by %1: %2, mean %3 a step against a median rank's %4")
                     .arg(what, map.ranks[rank].name, format_ms(worst), format_ms(median));
  if (median > 0) line += QStringLiteral(" (%1×)").arg(worst / median, 0, 'f', 2);
  return line;
}

std::optional<std::size_t> slowest_column(const RankHeatmap& map, std::size_t rank) {
  std::optional<std::size_t> best;
  if (rank >= map.ranks.size()) return best;
  for (std::size_t c = 0; c < map.columns; ++c)
    if (const double v = map.value(rank, c);
        map.analysed[map.at(rank, c)] && !std::isnan(v) && (!best || v > map.value(rank, *best)))
      best = c;
  return best;
}

QString cell_text(const RankHeatmap& map, std::size_t rank, std::size_t column) {
  if (rank >= map.ranks.size() || column >= map.columns) return {};
  const auto [first, last] = map.steps_of(column);
  const QString steps = first == last ? QStringLiteral("step %1").arg(first)
                                      : QStringLiteral("steps %1-%2").arg(first).arg(last);
  const double v = map.value(rank, column);
  const QString what = map.part ? part_label(*map.part) : QStringLiteral("step time");
  if (!map.sampled(rank, column))
    return QStringLiteral("%1 · %2: %3 not sampled (no device events recorded)")
        .arg(map.ranks[rank].name, steps, what);
  if (std::isnan(v)) return QStringLiteral("%1 · %2: no step").arg(map.ranks[rank].name, steps);
  return QStringLiteral("%1 · %2: %3%4 %5")
      .arg(map.ranks[rank].name, steps, first == last ? QString() : QStringLiteral("mean "), what,
           format_ms(v));
}

}  // namespace ts::gui
