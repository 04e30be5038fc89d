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

namespace {

QString from_utf8(std::string_view t) {
  return QString::fromUtf8(t.data(), static_cast<qsizetype>(t.size()));
}

bool continuation_byte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;  // 10xxxxxx
}

// The longest prefix of at most max_bytes that does not split a character: the reports' cut
// (import::cut_at_boundary, a layer the viewer's models do not include). A character has at
// most 3 continuation bytes.
std::size_t prefix_bytes(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return text.size();
  std::size_t n = max_bytes;
  for (int back = 0; n > 0 && back < 3 && continuation_byte(text[n]); ++back) --n;
  return n;
}

// Inserts U+200B ZERO WIDTH SPACE into every run of kUnbrokenChars characters without white
// space: where a wrapping label may break a line that has no space to break at.
QString breakable(const QString& text) {
  QString out;
  out.reserve(text.size() + text.size() / kUnbrokenChars);
  qsizetype run = 0;
  for (const QChar c : text) {
    run = c.isSpace() ? 0 : run + 1;
    if (run > kUnbrokenChars) {
      out += QChar(0x200B);
      run = 1;
    }
    out += c;
  }
  return out;
}

}  // namespace

QString display_text(std::string_view text, std::size_t max_bytes) {
  const std::size_t n = prefix_bytes(text, max_bytes);
  if (n == text.size()) return from_utf8(text);
  return from_utf8(text.substr(0, n)) + QStringLiteral("… (%1 more bytes)").arg(text.size() - n);
}

QString display_sentence(std::string_view text, std::size_t max_bytes) {
  if (text.size() <= max_bytes) return breakable(from_utf8(text));
  const std::size_t head = prefix_bytes(text, max_bytes * 2 / 3);
  std::size_t tail = text.size() - max_bytes / 3;
  while (tail < text.size() && continuation_byte(text[tail])) ++tail;
  return breakable(from_utf8(text.substr(0, head)) +
                   QStringLiteral(" … (%1 bytes left out) … ").arg(tail - head) +
                   from_utf8(text.substr(tail)));
}

}  // namespace ts::gui
