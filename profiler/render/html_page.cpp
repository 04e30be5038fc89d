#include "profiler/render/html_page.hpp"

#include <algorithm>
#include <cstdio>

#include "profiler/analysis/printable.hpp"
#include "profiler/analysis/report.hpp"

namespace ts::render {

namespace {

// Clicking a header sorts the table's rows by that column (numbers by data-v), again reverses.
// Kept free of "</" so that it cannot end the script element early.
constexpr std::string_view kSortScript = R"JS(
document.querySelectorAll('table.sortable th').forEach(function (th) {
  th.addEventListener('click', function () {
    var table = th.closest('table'), body = table.tBodies[0];
    var col = Array.prototype.indexOf.call(th.parentNode.children, th);
    var asc = th.getAttribute('aria-sort') !== 'ascending';
    table.querySelectorAll('th').forEach(function (h) { h.removeAttribute('aria-sort'); });
    th.setAttribute('aria-sort', asc ? 'ascending' : 'descending');
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (x, y) {
      var p = x.cells[col], q = y.cells[col];
      var u = p.getAttribute('data-v'), v = q.getAttribute('data-v');
      var r = (u !== null && v !== null) ? parseFloat(u) - parseFloat(v)
                                         : p.textContent.localeCompare(q.textContent);
      return asc ? r : -r;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  });
});
)JS";

constexpr std::string_view kStyle = R"CSS(
:root { --fg: #1f2328; --muted: #59636e; --line: #d1d9e0; --bg: #ffffff; --card: #f6f8fa; }
* { box-sizing: border-box; }
body { margin: 0 auto; max-width: 1240px; padding: 20px 28px 48px; color: var(--fg);
       background: var(--bg); font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; }
h1 { font-size: 22px; margin: 0 0 2px; }
h2 { font-size: 17px; margin: 28px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.sub { color: var(--muted); margin: 0 0 12px; word-break: break-all; }
.verdict { font-size: 18px; font-weight: 600; padding: 10px 14px; border-radius: 6px;
           border-left: 6px solid #4e79a7; background: #eef3f9; margin: 12px 0; }
.verdict.high { border-color: #e15759; background: #fdeeee; }
.verdict.moderate { border-color: #f28e2b; background: #fef4ea; }
.warning { padding: 8px 12px; border-radius: 6px; background: #fff8c5; border: 1px solid #d4a72c;
           margin: 6px 0; }
.cards { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.card { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; }
.card .k { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
.card .v { font-size: 20px; font-weight: 600; white-space: nowrap; }
.card .s { color: var(--muted); font-size: 12px; }
table { border-collapse: collapse; width: 100%; margin: 6px 0; font-size: 13px; }
th, td { padding: 4px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; }
th { background: var(--card); position: sticky; top: 0; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th:hover { background: #e7ecf0; }
th[aria-sort=ascending]::after { content: " \25B2"; font-size: 10px; }
th[aria-sort=descending]::after { content: " \25BC"; font-size: 10px; }
td.n, th.n { text-align: right; white-space: nowrap; font-variant-numeric: tabular-nums; }
td.name { word-break: break-all; font-family: ui-monospace, "SFMono-Regular", Menlo, monospace; font-size: 12px; }
td ul { margin: 0; padding-left: 16px; }
td { overflow-wrap: anywhere; }
.levers table { table-layout: fixed; }
.levers th:nth-child(1) { width: 34px; } .levers th:nth-child(2) { width: 13%; }
.levers th:nth-child(3) { width: 25%; } .levers th:nth-child(4) { width: 9%; }
.levers th:nth-child(5) { width: 14%; } .levers th:nth-child(6) { width: 84px; }
.levers th:nth-child(7) { width: 84px; } .levers th:nth-child(8) { width: 84px; }
.levers td.n { white-space: normal; }
.scroll { max-height: 520px; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
.scroll table { margin: 0; }
.legend { display: flex; flex-wrap: wrap; gap: 4px 14px; color: var(--muted); font-size: 12px; margin: 4px 0; }
.legend span::before { content: ""; display: inline-block; width: 10px; height: 10px; margin-right: 5px;
                       background: var(--c); border-radius: 2px; vertical-align: -1px; }
.tag { display: inline-block; white-space: nowrap; padding: 0 6px; border-radius: 10px; font-size: 12px; background: #e7ecf0; }
.tag.high { background: #fbd5d5; } .tag.moderate { background: #fde3c8; } .tag.warmup { background: #e5e5e5; }
.tag.measured { background: #d2f4d3; } .tag.modelled { background: #dbe9f9; } .tag.heuristic { background: #eee3f7; }
.note { color: var(--muted); font-size: 12px; }
svg { display: block; max-width: 100%; height: auto; }
svg text { font: 11px system-ui, sans-serif; fill: #59636e; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; }
)CSS";

constexpr std::string_view kPartColours[analysis::kPartCount] = {
    "#4e79a7", "#76b7b2", "#b07aa1", "#ff9da7", "#e15759",
    "#f28e2b", "#edc948", "#9c755f", "#59a14f", "#bab0ac"};
constexpr std::string_view kPartLabels[analysis::kPartCount] = {
    "device compute",  "collective", "d2h copies", "h2d copies",   "input wait",
    "input hand-over", "launch",     "sync",       "host compute", "other / idle"};
constexpr std::string_view kIdleCauseColours[analysis::kIdleCauseCount] = {
    "#e15759", "#76b7b2", "#59a14f", "#9c755f", "#bab0ac"};

// `s` cut to `max_chars` UTF-8 characters, "…" marking a cut.
std::string cut(const std::string& s, std::size_t max_chars) {
  std::size_t chars = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if ((static_cast<unsigned char>(s[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) return s.substr(0, i) + "…";
    ++chars;
  }
  return s;
}

}  // namespace

std::string escape(std::string_view text) {
  const std::string safe = analysis::printable(text);
  std::string out;
  out.reserve(safe.size());
  for (const char c : safe) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string display(std::string_view name, std::size_t max_chars) {
  // Cut before making printable: a 15 MB name is not copied whole.
  const std::size_t bytes = std::min(name.size(), max_chars * 4 + 4);
  return escape(cut(analysis::printable(name.substr(0, bytes)), max_chars));
}

std::string title_attr(std::string_view name) {
  return display(name, 1000);
}

std::string page_begin(std::string_view title) {
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n";
  out += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n";
  out += "<meta name=\"generator\" content=\"trainscope\">\n";
  out += "<title>" + display(title, 200) + "</title>\n<style>";
  out += kStyle;
  out += "</style>\n</head>\n<body>\n";
  return out;
}

std::string page_end() {
  std::string out = "<script>";
  out += kSortScript;
  out += "</script>\n</body>\n</html>\n";
  return out;
}

std::string table_begin(std::string_view id, const std::vector<Column>& columns) {
  std::string out = "<table class=\"sortable\" id=\"" + escape(id) + "\">\n<thead><tr>";
  for (const Column& c : columns)
    out += (c.numeric ? "<th class=\"n\">" : "<th>") + escape(c.label) + "</th>";
  return out + "</tr></thead>\n<tbody>\n";
}

std::string table_end() {
  return "</tbody>\n</table>\n";
}

std::string text_cell(std::string_view html, std::string_view css_class) {
  std::string out = css_class.empty() ? "<td>" : "<td class=\"" + escape(css_class) + "\">";
  out += html;
  return out + "</td>";
}

std::string number_cell(std::string_view shown, double value) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.9g", value);
  return "<td class=\"n\" data-v=\"" + std::string(buf) + "\">" + escape(shown) + "</td>";
}

std::string_view part_colour(int part) {
  return kPartColours[part];
}
std::string_view part_label(int part) {
  return kPartLabels[part];
}
std::string_view idle_cause_colour(int cause) {
  return kIdleCauseColours[cause];
}

std::string legend(const std::vector<std::pair<std::string, std::string>>& colour_and_label) {
  std::string out = "<div class=\"legend\">";
  for (const auto& [colour, label] : colour_and_label)
    out += "<span style=\"--c:" + escape(colour) + "\">" + escape(label) + "</span>";
  return out + "</div>\n";
}

}  // namespace ts::render
