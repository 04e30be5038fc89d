#include "profiler/analysis/kernel_names.hpp"

#include <algorithm>
#include <cctype>
#include <map>

namespace ts::analysis {

namespace {

constexpr std::string_view kEllipsis = "…";
// Characters kept on each side of the first difference from the nearest other name, so that the
// difference reads as a word ("FillFunctor<float>") rather than one letter.
constexpr std::size_t kContext = 12;
// Characters kept before the difference when it is shown in the tail or the middle.
constexpr std::size_t kLeadIn = 4;

bool is_ident(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

bool continuation(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

// The largest UTF-8 character boundary at or below byte `i`.
std::size_t boundary_down(std::string_view s, std::size_t i) {
  i = std::min(i, s.size());
  while (i > 0 && i < s.size() && continuation(s[i])) --i;
  return i;
}

// The smallest UTF-8 character boundary at or above byte `i`.
std::size_t boundary_up(std::string_view s, std::size_t i) {
  while (i < s.size() && continuation(s[i])) ++i;
  return std::min(i, s.size());
}

void trim(std::string& s) {
  while (!s.empty() && s.back() == ' ') s.pop_back();
  std::size_t lead = 0;
  while (lead < s.size() && s[lead] == ' ') ++lead;
  s.erase(0, lead);
}

void erase_all(std::string& s, std::string_view what) {
  for (std::size_t at; (at = s.find(what)) != std::string::npos;) s.erase(at, what.size());
}

// Where the parameter list that ends the signature opens: the '(' matching the final ')' (a
// trailing " const" allowed), or npos.
std::size_t parameter_list_start(std::string_view s) {
  std::size_t end = s.size();
  if (s.ends_with(" const")) end -= 6;
  if (end == 0 || s[end - 1] != ')') return std::string_view::npos;
  int depth = 0;
  for (std::size_t i = end; i-- > 0;) {
    if (s[i] == ')') ++depth;
    if (s[i] == '(' && --depth == 0) return i;
  }
  return std::string_view::npos;
}

// Brackets of every kind balance; a name where they do not is left alone.
bool balanced(std::string_view s) {
  int round = 0, angle = 0, curly = 0;
  for (char c : s) {
    round += (c == '(') - (c == ')');
    angle += (c == '<') - (c == '>');
    curly += (c == '{') - (c == '}');
    if (round < 0 || angle < 0 || curly < 0) return false;
  }
  return round == 0 && angle == 0 && curly == 0;
}

// The text after the last space outside all brackets: drops a return type ("void ",
// "std::enable_if<...>::type ").
std::string_view without_return_type(std::string_view s) {
  int depth = 0;
  std::size_t start = 0;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    depth += (c == '(' || c == '<' || c == '{' || c == '[') -
             (c == ')' || c == '>' || c == '}' || c == ']');
    if (c == ' ' && depth == 0) start = i + 1;
  }
  return start < s.size() ? s.substr(start) : s;
}

// Drops every "identifier::" (namespaces and enclosing classes), wherever it stands.
std::string without_qualifiers(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    if (is_ident(s[i]) && (i == 0 || !is_ident(s[i - 1]))) {
      std::size_t j = i;
      while (j < s.size() && is_ident(s[j])) ++j;
      if (s.substr(j, 2) == "::" && j + 2 < s.size()) {
        i = j + 2;
        continue;
      }
      out.append(s.substr(i, j - i));
      i = j;
      continue;
    }
    out += s[i++];
  }
  return out;
}

std::size_t common_prefix(std::string_view a, std::string_view b) {
  const auto [ia, ib] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<std::size_t>(ia - a.begin());
}

// `s` cut to `head` bytes, "…", and its last `tail` bytes (both at character boundaries).
std::string head_tail(std::string_view s, std::size_t head, std::size_t tail) {
  const std::size_t h = boundary_down(s, head);
  const std::size_t t = boundary_up(s, s.size() - std::min(tail, s.size()));
  return std::string(s.substr(0, h)) + std::string(kEllipsis) +
         std::string(s.substr(std::max(t, h)));
}

// `s` in at most `width` columns with byte `diff` (where it first differs from the nearest other
// name) in view, with some context before it: in the head, in the tail, or where it lies deep
// inside, in a stretch between the two.
std::string elide(std::string_view s, std::size_t width, std::size_t diff) {
  const std::size_t min_tail = std::max<std::size_t>(std::min<std::size_t>(12, width / 4), 1);
  const std::size_t min_head = width / 4;
  const std::size_t default_head = width - 1 - width / 3;
  const std::size_t head = std::max(default_head, diff + kContext);
  if (head + 1 + min_tail <= width) return head_tail(s, head, width - 1 - head);
  // The tail from a few characters before the difference, the head as long as the rest allows.
  const std::size_t from = diff > kLeadIn ? diff - kLeadIn : 0;
  if (s.size() - from <= width - 1 - min_head)
    return head_tail(s, width - 1 - (s.size() - from), s.size() - from);
  // head … middle … tail, the middle starting a few characters before the difference.
  const std::size_t room = width - 2 - min_tail;
  const std::size_t middle = std::max(kContext + kLeadIn, room / 2);
  const std::size_t head_bytes = boundary_down(s, room - middle);
  const std::size_t begin = std::max(boundary_down(s, from), head_bytes);
  const std::size_t end = boundary_down(s, std::min(begin + middle, s.size() - min_tail));
  if (end <= begin) return head_tail(s, width - 1 - min_tail, min_tail);
  return std::string(s.substr(0, head_bytes)) + std::string(kEllipsis) +
         std::string(s.substr(begin, end - begin)) + std::string(kEllipsis) +
         std::string(s.substr(boundary_up(s, s.size() - min_tail)));
}

// The cell of each text, elided where it is longer than `width`.
std::vector<std::string> fit_all(const std::vector<std::string>& texts, std::size_t width) {
  std::vector<std::string> cells(texts.size());
  for (std::size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].size() <= width || text_columns(texts[i]) <= width) {
      cells[i] = texts[i];
      continue;
    }
    std::size_t diff = 0;
    for (std::size_t j = 0; j < texts.size(); ++j)
      if (j != i && texts[j] != texts[i]) diff = std::max(diff, common_prefix(texts[i], texts[j]));
    cells[i] = elide(texts[i], width, diff);
  }
  return cells;
}

}  // namespace

std::size_t text_columns(std::string_view s) {
  return static_cast<std::size_t>(
      std::count_if(s.begin(), s.end(), [](char c) { return !continuation(c); }));
}

std::string shorten_kernel_name(std::string_view name) {
  std::string s(name);
  if (!balanced(s)) return s;
  erase_all(s, "(anonymous namespace)::");
  const std::size_t params = parameter_list_start(s);
  if (params != std::string::npos && params > 0) s.erase(params);
  trim(s);
  std::string out = without_qualifiers(without_return_type(s));
  trim(out);
  return out.empty() ? std::string(name) : out;
}

std::vector<std::string> kernel_name_cells(const std::vector<std::string>& names,
                                           std::size_t width) {
  width = std::max<std::size_t>(width, 8);
  // The short form of each name too long for the column, unless two names share it.
  std::vector<std::string> texts(names.size());
  std::map<std::string, int> uses;
  for (std::size_t i = 0; i < names.size(); ++i) {
    texts[i] = text_columns(names[i]) <= width ? names[i] : shorten_kernel_name(names[i]);
    ++uses[texts[i]];
  }
  for (std::size_t i = 0; i < names.size(); ++i)
    if (uses[texts[i]] > 1) texts[i] = names[i];
  std::vector<std::string> cells = fit_all(texts, width);
  // Elision keeps the first difference in view, which makes the cells distinct; should two
  // still read the same, the later one ends with its row number instead.
  std::map<std::string, int> seen;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (seen[cells[i]]++ == 0) continue;
    const std::string mark = "…#" + std::to_string(i + 1);
    std::string keep = cells[i];
    while (!keep.empty() && text_columns(keep) + text_columns(mark) > width) {
      while (!keep.empty() && continuation(keep.back())) keep.pop_back();
      if (!keep.empty()) keep.pop_back();  // the character's first byte
    }
    cells[i] = keep + mark;
  }
  return cells;
}

}  // namespace ts::analysis
