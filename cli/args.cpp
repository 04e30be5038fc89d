#include "cli/args.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

namespace ts::cli {

Args::Args(std::string command, std::vector<std::string> words) : command_(std::move(command)) {
  for (auto& w : words) words_.push_back({std::move(w), false});
}

std::optional<std::string> Args::value(const std::string& name) {
  const std::string flag = "--" + name;
  std::optional<std::string> found;
  for (std::size_t i = 0; i < words_.size(); ++i) {
    auto& w = words_[i];
    if (w.used) continue;
    if (w.text == flag) {
      if (i + 1 >= words_.size()) throw UsageError("'" + command_ + " " + flag + "' needs a value");
      w.used = words_[i + 1].used = true;
      found = words_[i + 1].text;
      ++i;
    } else if (w.text.rfind(flag + "=", 0) == 0) {
      w.used = true;
      found = w.text.substr(flag.size() + 1);
    }
  }
  return found;  // the last occurrence wins, as in most CLIs
}

std::string Args::text(const std::string& name, const std::string& fallback) {
  auto v = value(name);
  return v ? *v : fallback;
}

std::int64_t Args::integer(const std::string& name, std::int64_t fallback, std::int64_t min,
                           std::int64_t max) {
  auto v = value(name);
  if (!v) return fallback;
  std::int64_t out = 0;
  const auto [end, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || end != v->data() + v->size())
    throw UsageError("--" + name + " expects a whole number, not '" + *v + "'");
  if (out < min || out > max)
    throw UsageError("--" + name + " must be between " + std::to_string(min) + " and " +
                     std::to_string(max) + ", not " + *v);
  return out;
}

double Args::real(const std::string& name, double fallback, double min_exclusive) {
  auto v = value(name);
  if (!v) return fallback;
  char* end = nullptr;
  const double out = std::strtod(v->c_str(), &end);
  if (v->empty() || end != v->c_str() + v->size() || !std::isfinite(out))
    throw UsageError("--" + name + " expects a finite number, not '" + *v + "'");
  if (!(out > min_exclusive)) {
    char bound[32];
    std::snprintf(bound, sizeof bound, "%g", min_exclusive);
    throw UsageError("--" + name + " must be greater than " + bound + ", not " + *v);
  }
  return out;
}

std::optional<double> Args::real_in(const std::string& name, double min, double max) {
  auto v = value(name);
  if (!v) return std::nullopt;
  char* end = nullptr;
  const double out = std::strtod(v->c_str(), &end);
  if (v->empty() || end != v->c_str() + v->size() || !std::isfinite(out))
    throw UsageError("--" + name + " expects a number, not '" + *v + "'");
  if (out < min || out > max) {
    char range[64];
    if (max == std::numeric_limits<double>::max())
      std::snprintf(range, sizeof range, "%g or more", min);
    else
      std::snprintf(range, sizeof range, "between %g and %g", min, max);
    throw UsageError("--" + name + " must be " + range + ", not " + *v);
  }
  return out;
}

bool Args::flag(const std::string& name) {
  bool found = false;
  for (auto& w : words_)
    if (!w.used && w.text == "--" + name) w.used = found = true;
  return found;
}

std::string Args::choice(const std::string& name, const std::string& fallback,
                         const std::vector<std::string>& allowed) {
  const std::string v = text(name, fallback);
  for (const auto& a : allowed)
    if (a == v) return v;
  std::string list;
  for (std::size_t i = 0; i < allowed.size(); ++i)
    list += (i ? (i + 1 == allowed.size() ? " or " : ", ") : "") + allowed[i];
  throw UsageError("--" + name + " must be " + list + ", not '" + v + "'");
}

std::optional<std::pair<std::int64_t, std::int64_t>> Args::step_range(const std::string& name) {
  const auto steps = value(name);
  if (!steps) return std::nullopt;
  const std::size_t dash = steps->find('-', 1);
  std::int64_t a = 0, b = 0;
  bool ok = dash != std::string::npos;
  if (ok) {
    const char* s = steps->data();
    const auto ra = std::from_chars(s, s + dash, a);
    const auto rb = std::from_chars(s + dash + 1, s + steps->size(), b);
    ok = ra.ec == std::errc() && ra.ptr == s + dash && rb.ec == std::errc() &&
         rb.ptr == s + steps->size() && a <= b;
  }
  if (!ok)
    throw UsageError("--" + name + " takes A-B, two step numbers with A <= B, not '" + *steps +
                     "'");
  return std::pair{a, b};
}

std::vector<std::string> Args::positionals() {
  std::vector<std::string> out;
  for (auto& w : words_)
    if (!w.used && w.text.rfind("--", 0) != 0) {
      w.used = true;
      out.push_back(w.text);
    }
  return out;
}

void Args::finish() const {
  for (const auto& w : words_)
    if (!w.used) {
      if (w.text.rfind("--", 0) == 0)
        throw UsageError("unknown option '" + w.text + "' for 'trainscope " + command_ +
                         "' (see 'trainscope " + command_ + " --help')");
      throw UsageError("unexpected argument '" + w.text + "' for 'trainscope " + command_ + "'");
    }
}

}  // namespace ts::cli
