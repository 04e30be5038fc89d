// How the viewer writes figures: the analysis library's formatting (profiler/analysis/format.hpp)
// as QStrings, so the overview, the tables and `trainscope report` print a figure identically.
#pragma once

#include <QString>
#include <cstdint>

namespace ts::gui {

QString format_ns(double ns);          // "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
QString format_ms(double ms);          // "1.84 ms", "1 234 ms"
QString format_pct(double pct);        // "63.0 %"
QString format_count(std::int64_t n);  // "1 000 000"
QString format_money(double amount, const std::string& currency);  // "$0.12"
QString format_bytes(double bytes);                                // "512 B", "4.0 KiB", "1.5 MiB"
QString format_rate(double per_s, const QString& unit);  // "12 345 samples/s", "12.5 samples/s"
QString format_compact(double v);  // "812", "1.98 k", "1.98 M", "2.5 G": counter values

}  // namespace ts::gui
