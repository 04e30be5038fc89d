// The pieces every HTML page of profiler/render is made of: escaping of text from a trace, names
// cut for display, the page's head (inline style, the table-sorting script) and tables whose
// columns sort on a click. A page is one self-contained file: no network, no external script,
// style or font.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace ts::render {

// Text for HTML element content or a quoted attribute value: & < > " ' escaped. Control
// characters and invalid UTF-8 are made printable first (analysis::printable).
std::string escape(std::string_view text);

// A name from a trace for display: printable, cut to at most `max_chars` UTF-8 characters with
// "…" (a trace may hold names of megabytes), then escaped.
std::string display(std::string_view name, std::size_t max_chars = 120);
// The same for a title attribute (the full name on hover): cut at 1 000 characters.
std::string title_attr(std::string_view name);

// <!DOCTYPE html> up to and including <body>: `title` is plain text (escaped here).
std::string page_begin(std::string_view title);
// The sorting script and </body></html>.
std::string page_end();

// One column of a sortable table.
struct Column {
  std::string label;     // plain text
  bool numeric = false;  // right-aligned; sorts by each cell's data-v
};
// <table class="sortable" id=ID><thead>…</thead><tbody>; close with table_end().
std::string table_begin(std::string_view id, const std::vector<Column>& columns);
std::string table_end();
// <td> cells: `html` is already escaped; a number cell shows `shown` (plain text) and sorts by
// `value`.
std::string text_cell(std::string_view html, std::string_view css_class = "");
std::string number_cell(std::string_view shown, double value);

// The colour of each breakdown part (analysis::Part order) and idle cause, shared by the charts
// and their legends.
std::string_view part_colour(int part);
std::string_view part_label(int part);  // "device compute", "input wait", ...
std::string_view idle_cause_colour(int cause);

// A legend: one coloured square and label (plain text) per entry.
std::string legend(const std::vector<std::pair<std::string, std::string>>& colour_and_label);

}  // namespace ts::render
