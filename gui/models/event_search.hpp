// Search by name: the labels whose name contains the text (case-insensitive), or the instances
// of one name (the labels of exactly that name: a kernel's, as the Kernels table counts them, or
// any event's), and the next or previous event carrying one of them from a position in (start,
// track) order. The summary's
// label index says in which parts of the trace those labels occur, so a step to the next match
// reads only those parts from the file, never the whole trace.
#pragma once

#include <QString>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "gui/models/trace_summary.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

class EventSearch {
 public:
  // Takes the labels matching `text` from the summary (those scanned so far). The step markers
  // that share one numbered label (store/numbered_label.hpp: "ProfilerStep#12" is the label
  // "ProfilerStep#" and step 12) match by their full names: with `reader`, a query such as
  // "ProfilerStep#12" or "#12" finds the markers whose number it names, counted and placed from
  // the trace's step list.
  void set_query(const QString& text, const SummaryData& summary,
                 const store::Reader* reader = nullptr);
  // Takes the labels named exactly `name`, wherever in the trace they run; kernels_only: only
  // kernel and collective labels (a kernel's instances, as the Kernels table counts them).
  void set_instances(const QString& name, const SummaryData& summary, bool kernels_only);
  const QString& query() const { return query_; }
  bool instances() const { return instances_; }  // set by set_instances, not by set_query
  bool kernels_only() const { return kernels_only_; }
  std::uint64_t matches() const { return matches_; }  // events with a matching name
  int labels() const { return static_cast<int>(labels_.size()); }

  // The first matching event after (or, with forward false, before) the position
  // (start_ns, track) in (start, track) order.
  std::optional<store::Event> step(const store::Reader& reader, std::int64_t start_ns,
                                   std::uint32_t track, bool forward) const;

  // The 1-based position of the matching event `e` among all matches in (start, track) order
  // ("3 of 120"): the counts of the bins before its own, plus a read of its bin only.
  std::uint64_t ordinal(const store::Reader& reader, const store::Event& e) const;

 private:
  // What a query asks of a numbered marker's step number: its digits, at the number's start
  // (the query reaches into the name: "Step#12" is 12, 120, 1234...) or anywhere in it ("12").
  struct NumberQuery {
    std::string digits;
    bool at_start = false;
    bool matches(std::int64_t step) const;
    // With at_start: the ranges of step numbers that start with the digits.
    std::vector<std::pair<std::int64_t, std::int64_t>> ranges() const;
  };
  static std::optional<NumberQuery> number_query(const QString& text, std::string_view name);
  bool matches(const store::Event& e) const {
    return labels_.count(e.label) || (number_ && numbered_.count(e.label) &&
                                      e.step != store::kNull && number_->matches(e.step));
  }
  std::optional<std::uint32_t> next_bin(std::uint32_t from, bool forward) const;
  // (bin, matches in it) of the labels `match` takes, and of `more`.
  template <class Match>
  void take(const QString& text, const SummaryData& summary, Match&& match,
            std::vector<std::pair<std::uint32_t, std::uint64_t>> more = {});

  QString query_;
  bool instances_ = false, kernels_only_ = false;
  std::unordered_set<std::uint32_t> labels_;
  std::unordered_set<std::uint32_t> numbered_;  // numbered labels matching by step number
  std::optional<NumberQuery> number_;
  std::vector<std::uint32_t> bins_;    // union of the matching labels' bins, ascending
  std::vector<std::uint64_t> before_;  // matches in the bins before each of bins_
  std::uint64_t matches_ = 0;
  SummaryData extent_;  // begin/end only, for bin arithmetic
};

// What N / Shift+N step through from an event of label `label`: the instances of its name, a
// kernel's (kernels_only: its kernel and collective events, as the Kernels table counts them)
// or any other event's.
struct InstanceQuery {
  QString name;
  bool kernels_only = false;
};
InstanceQuery instances_of_label(const store::Reader& reader, std::uint32_t label);

}  // namespace ts::gui
