#include "gui/models/event_search.hpp"

#include <algorithm>
#include <limits>

#include "profiler/store/numbered_label.hpp"

namespace ts::gui {

namespace {

bool before(std::int64_t s1, std::uint32_t t1, std::int64_t s2, std::uint32_t t2) {
  return s1 != s2 ? s1 < s2 : t1 < t2;
}

}  // namespace

void EventSearch::set_query(const QString& text, const SummaryData& summary,
                            const store::Reader* reader) {
  instances_ = kernels_only_ = false;
  const auto whole = [&](const LabelStats& stats) {
    return QString::fromStdString(stats.name).contains(text, Qt::CaseInsensitive);
  };
  numbered_.clear();
  number_.reset();
  std::vector<std::pair<std::uint32_t, std::uint64_t>> steps;  // (bin, 1) per matching marker
  if (reader != nullptr && !text.isEmpty())
    for (const auto& [id, stats] : summary.labels) {
      if (whole(stats) || !store::is_numbered_label(stats.name, stats.category)) continue;
      if (!number_) number_ = number_query(text, stats.name);
      if (number_) numbered_.insert(id);
    }
  if (number_) {
    const auto add = [&](const store::Step& st) {
      if (number_->matches(st.step)) steps.emplace_back(summary.search_bin(st.start_ns), 1);
      return true;
    };
    if (number_->at_start) {
      // Numbers starting with the digits D: D, D0-D9, D00-D99, ... read by number, not every
      // step (a trace of millions of steps answers in the time its matches take).
      for (const auto& [first, last] : number_->ranges())
        reader->each_numbered_step(first, last, add);
    } else {
      reader->each_step([&](const store::Step& st) { add(st); });
    }
  }
  take(text, summary, whole, std::move(steps));
}

std::optional<EventSearch::NumberQuery> EventSearch::number_query(const QString& text,
                                                                  std::string_view name) {
  const std::string query = text.toLower().toStdString();
  std::size_t digits = query.size();
  while (digits > 0 && query[digits - 1] >= '0' && query[digits - 1] <= '9') --digits;
  if (digits == query.size()) return std::nullopt;  // no number: the name alone decides
  const std::string lead = query.substr(0, digits);
  const std::string lower =
      QString::fromUtf8(name.data(), static_cast<int>(name.size())).toLower().toStdString();
  if (!lead.empty() && !lower.ends_with(lead)) return std::nullopt;
  return NumberQuery{query.substr(digits), !lead.empty()};
}

std::vector<std::pair<std::int64_t, std::int64_t>> EventSearch::NumberQuery::ranges() const {
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  if (digits.size() > 18 || (digits.size() > 1 && digits[0] == '0')) return out;
  const std::int64_t d = std::stoll(digits);
  if (d == 0) return {{0, 0}};  // no number starts with 0 but 0
  for (std::int64_t scale = 1; d <= std::numeric_limits<std::int64_t>::max() / scale - 1;
       scale *= 10) {
    out.emplace_back(d * scale, (d + 1) * scale - 1);
    if (scale > std::numeric_limits<std::int64_t>::max() / 10) break;
  }
  return out;
}

bool EventSearch::NumberQuery::matches(std::int64_t step) const {
  const std::string number = std::to_string(step);
  return at_start ? number.starts_with(digits) : number.find(digits) != std::string::npos;
}

void EventSearch::set_instances(const QString& name, const SummaryData& summary,
                                bool kernels_only) {
  numbered_.clear();
  number_.reset();
  const std::string exact = name.toStdString();
  take(name, summary, [&](const LabelStats& stats) {
    return stats.name == exact && (!kernels_only || stats.category == trace::Category::kernel ||
                                   stats.category == trace::Category::collective);
  });
  instances_ = true;
  kernels_only_ = kernels_only;
}

template <class Match>
void EventSearch::take(const QString& text, const SummaryData& summary, Match&& match,
                       std::vector<std::pair<std::uint32_t, std::uint64_t>> more) {
  query_ = text;
  labels_.clear();
  bins_.clear();
  before_.clear();
  matches_ = 0;
  extent_.begin_ns = summary.begin_ns;
  extent_.end_ns = summary.end_ns;
  if (text.isEmpty()) return;
  std::vector<std::pair<std::uint32_t, std::uint64_t>> counts = std::move(more);
  for (const auto& [bin, n] : counts) matches_ += n;
  for (const auto& [id, stats] : summary.labels) {
    if (!match(stats)) continue;
    labels_.insert(id);
    matches_ += stats.count;
    for (std::size_t i = 0; i < stats.bins.size(); ++i)
      counts.emplace_back(stats.bins[i], i < stats.bin_counts.size() ? stats.bin_counts[i] : 0);
  }
  std::sort(counts.begin(), counts.end());
  std::uint64_t total = 0;
  for (const auto& [bin, n] : counts) {
    if (bins_.empty() || bins_.back() != bin) {
      bins_.push_back(bin);
      before_.push_back(total);
    }
    total += n;
  }
}

std::optional<std::uint32_t> EventSearch::next_bin(std::uint32_t from, bool forward) const {
  if (forward) {
    const auto it = std::lower_bound(bins_.begin(), bins_.end(), from);
    if (it == bins_.end()) return std::nullopt;
    return *it;
  }
  const auto it = std::upper_bound(bins_.begin(), bins_.end(), from);
  if (it == bins_.begin()) return std::nullopt;
  return *(it - 1);
}

std::optional<store::Event> EventSearch::step(const store::Reader& reader, std::int64_t start_ns,
                                              std::uint32_t track, bool forward) const {
  if (labels_.empty() && numbered_.empty()) return std::nullopt;
  std::optional<std::uint32_t> bin = next_bin(extent_.search_bin(start_ns), forward);
  while (bin) {
    // A little slack either side: an event on a bin's edge is found whichever bin indexed it.
    const auto [lo, hi] = extent_.search_bin_range(*bin);
    std::optional<store::Event> best;
    reader.scan(lo - 2, hi + 2, 0, [&](const store::Event& e) {
      if (e.start_ns < lo - 2 || e.start_ns >= hi + 2 || !matches(e)) return;
      const bool after = before(start_ns, track, e.start_ns, e.track);
      const bool is_before = before(e.start_ns, e.track, start_ns, track);
      if (forward ? !after : !is_before) return;
      if (!best || (forward ? before(e.start_ns, e.track, best->start_ns, best->track)
                            : before(best->start_ns, best->track, e.start_ns, e.track)))
        best = e;
    });
    if (best) return best;
    if (forward ? *bin + 1 >= SummaryData::kSearchBins : *bin == 0) break;
    bin = next_bin(forward ? *bin + 1 : *bin - 1, forward);
  }
  return std::nullopt;
}

std::uint64_t EventSearch::ordinal(const store::Reader& reader, const store::Event& e) const {
  const std::uint32_t bin = extent_.search_bin(e.start_ns);
  const auto it = std::lower_bound(bins_.begin(), bins_.end(), bin);
  std::uint64_t n =
      it == bins_.end() ? matches_ : before_[static_cast<std::size_t>(it - bins_.begin())];
  const auto [lo, hi] = extent_.search_bin_range(bin);
  reader.scan(lo - 2, hi + 2, 0, [&](const store::Event& x) {
    if (matches(x) && extent_.search_bin(x.start_ns) == bin &&
        before(x.start_ns, x.track, e.start_ns, e.track))
      ++n;
  });
  return n + 1;
}

InstanceQuery instances_of_label(const store::Reader& reader, std::uint32_t label) {
  const store::Label& l = reader.label(label);
  return {QString::fromStdString(l.name),
          l.category == trace::Category::kernel || l.category == trace::Category::collective};
}

}  // namespace ts::gui
