// How the viewer writes figures: the analysis library's figure formats
// (profiler/analysis/figure_format.hpp) as QStrings, so the overview, the tables and
// `trainscope report` print a figure identically.
#pragma once

#include <QString>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace ts::gui {

QString format_ns(double ns);  // "850 ns", "12.3 µs", "4.56 ms", "1.23 s"
// A time from the start of the trace, to the microsecond whatever its size, so that events a
// few µs apart read apart: "+0.004 ms", "+813.204 ms", "+12.345678 s".
QString format_offset_ns(std::int64_t ns);
QString format_ms(double ms);          // "1.84 ms", "1 234 ms"
QString format_pct(double pct);        // "63.0 %"
QString format_pp(double points);      // a change of a share: "+4.2 pp", "-21.1 pp"
QString format_count(std::int64_t n);  // "1 000 000"
QString format_money(double amount, const std::string& currency);  // "$0.12", "-$0.42"
QString format_bytes(double bytes);                                // "512 B", "4.0 KiB", "1.5 MiB"
QString format_rate(double per_s, const QString& unit);  // "12 345 samples/s", "12.5 samples/s"
QString format_compact(double v);  // "812", "1.98 k", "1.98 M", "2.5 G": counter values
// A counter's value in the unit its name implies: bytes for memory counters ("GPU memory
// allocated", "mklcpu memory allocated", "... bytes" -> "1.5 MiB"), else format_compact.
QString format_counter(double v, const QString& counter_name);
// Whether a counter's name says it counts bytes (memory, "... bytes"): format_counter's test.
bool is_bytes_counter(const QString& counter_name);

// Text from a trace file (an event, track or process name, a meta value, a warning) as a label,
// a table cell, a tooltip or the overview shows it: at most max_bytes of UTF-8, cut at a
// character boundary, then "… (N more bytes)", as the reports cut it. The store's reader keeps
// names up to 64 KiB and a meta value whole, and laying out a QString of megabytes costs the
// viewer seconds and hundreds of MB. Names get room for the longest real C++ kernel names, a
// sentence holding a value from the file (a warning) a few lines, and a value shown inside a
// line the reports' 240 bytes.
inline constexpr std::size_t kMaxShownNameBytes = 4096;
inline constexpr std::size_t kMaxShownSentenceBytes = 1024;
inline constexpr std::size_t kMaxShownValueBytes = 240;
QString display_text(std::string_view text, std::size_t max_bytes = kMaxShownNameBytes);
// A sentence holding a value from the file (a warning quoting a write error, a list of missing
// ranks) as a wrapping label shows it: at most about max_bytes, its start and its end kept (the
// end says what the value means: "... events are missing"), "… (N bytes left out) …" between
// them, and a break opportunity (U+200B) in each run of kUnbrokenChars characters without a
// space, so that a long value wraps instead of widening the window.
inline constexpr qsizetype kUnbrokenChars = 40;
QString display_sentence(std::string_view text, std::size_t max_bytes = kMaxShownSentenceBytes);

}  // namespace ts::gui
