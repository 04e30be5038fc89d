// The timeline tab: the search bar (find by name, next/previous match), the timeline view, the
// details panel for the selection and the colour legend. The search bar also steps through the
// instances of one name (Nsight's "next instance"): a kernel's, asked for from the Kernels table,
// or the selected event's (N / Shift+N, or the event's context menu), "instance i of N".
#pragma once

#include <QLabel>
#include <QLineEdit>
#include <QWidget>

#include "gui/models/event_search.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/models/trace_types.hpp"
#include "gui/widgets/timeline/details_panel.hpp"
#include "gui/widgets/timeline/timeline_view.hpp"

namespace ts::gui {

class TimelinePage : public QWidget {
  Q_OBJECT

 public:
  explicit TimelinePage(QWidget* parent = nullptr);

  void set_session(TraceSession* session, bool keep_view = false);
  TimelineView* view() const { return view_; }
  DetailsPanel* details() const { return details_; }

  // Search: sets the query and steps to the next (or previous) match; false when none.
  void set_search(const QString& text);
  bool find_next(bool forward = true);
  // Shows the instances of `name` (kernels_only: its kernel and collective events, as the
  // Kernels table counts them) and selects the first one from the start of the view (wrapping
  // to the trace's first); false when there is none.
  bool show_instances(const QString& name, bool kernels_only = true);
  // Selects the next (or previous) instance of the selected event's name; false when no event
  // is selected or it has no other instance.
  bool step_instance(bool forward = true);
  const EventSearch& search() const { return search_; }
  // The position of the match last found (1-based; 0 before any) and what the page says of it.
  std::uint64_t current_match() const { return current_match_; }
  QString matches_text() const;

 private:
  void refresh_search();
  bool find_from(std::int64_t from, std::uint32_t track, bool forward);
  void show_details(const Selection& s);
  void update_status();

  TimelineView* view_;
  DetailsPanel* details_;
  QLineEdit* search_edit_;
  QLineEdit* ranks_edit_;  // the rank filter (a trace of several ranks)
  QLabel* matches_;
  QLabel* status_;
  EventSearch search_;
  std::uint64_t current_match_ = 0;
  bool instance_mode_ = false;  // the bar steps through instances of one name (set_instances)
  bool kernels_only_ = false;   // of a kernel (its kernel and collective events only)
};

}  // namespace ts::gui
