#include "gui/models/format.hpp"

#include <QRegularExpression>
#include <cmath>
#include <string>

#include "profiler/analysis/figure_format.hpp"

namespace ts::gui {

namespace fmt = analysis::fmt;

QString format_ns(double ns) {
  return QString::fromStdString(fmt::duration(static_cast<std::int64_t>(std::llround(ns))));
}

QString format_offset_ns(std::int64_t ns) {
  const QString sign = ns < 0 ? QStringLiteral("-") : QStringLiteral("+");
  const double abs_ns = std::fabs(static_cast<double>(ns));
  if (abs_ns < 1e9) return sign + QString::number(abs_ns / 1e6, 'f', 3) + QStringLiteral(" ms");
  return sign + QString::number(abs_ns / 1e9, 'f', 6) + QStringLiteral(" s");
}

QString format_ms(double ms) {
  return QString::fromStdString(fmt::ms(ms));
}

QString format_pct(double pct) {
  return QString::fromStdString(fmt::pct(pct));
}

QString format_pp(double points) {
  return QString::fromStdString(fmt::pp(points));
}

QString format_count(std::int64_t n) {
  return QString::fromStdString(fmt::count(n));
}

QString format_money(double amount, const std::string& currency) {
  return QString::fromStdString(fmt::money(amount, currency));
}

QString format_bytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int u = 0;
  while (std::fabs(bytes) >= 1024 && u < 4) {
    bytes /= 1024;
    ++u;
  }
  return (u == 0 ? QString::number(bytes, 'f', 0) : QString::number(bytes, 'f', 1)) + " " +
         units[u];
}

QString format_rate(double per_s, const QString& unit) {
  const QString n = std::fabs(per_s) >= 100
                        ? format_count(static_cast<std::int64_t>(std::llround(per_s)))
                        : QString::number(per_s, 'f', 1);
  return n + " " + unit;
}

QString format_compact(double v) {
  const char* suffix[] = {"", " k", " M", " G", " T", " P"};
  int i = 0;
  while (std::fabs(v) >= 1000 && i < 5) {
    v /= 1000;
    ++i;
  }
  return QString::number(v, 'g', 3) + QLatin1String(suffix[i]);
}

bool is_bytes_counter(const QString& counter_name) {
  static const QRegularExpression bytes(QStringLiteral("bytes|memory|\\bmem\\b|allocated|reserved"),
                                        QRegularExpression::CaseInsensitiveOption);
  return bytes.match(counter_name).hasMatch();
}

QString format_counter(double v, const QString& counter_name) {
  return is_bytes_counter(counter_name) ? format_bytes(v) : format_compact(v);
}

}  // namespace ts::gui
