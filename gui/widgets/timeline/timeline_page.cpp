#include "gui/widgets/timeline/timeline_page.hpp"

#include <QGuiApplication>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSignalBlocker>
#include <QSplitter>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <limits>
#include <tuple>

#include "gui/models/format.hpp"
#include "gui/widgets/timeline/legend.hpp"

namespace ts::gui {

TimelinePage::TimelinePage(QWidget* parent)
    : QWidget(parent),
      view_(new TimelineView(this)),
      details_(new DetailsPanel(this)),
      search_edit_(new QLineEdit(this)),
      ranks_edit_(new QLineEdit(this)),
      matches_(new QLabel(this)),
      status_(new QLabel(this)) {
  search_edit_->setPlaceholderText(tr("Find events by name (Enter: next, Shift+Enter: previous)"));
  search_edit_->setClearButtonEnabled(true);
  search_edit_->setMinimumWidth(360);
  search_edit_->setMaximumWidth(460);
  auto* prev = new QToolButton(this);
  prev->setText(QStringLiteral("◀"));
  prev->setToolTip(tr("Previous match"));
  auto* next = new QToolButton(this);
  next->setText(QStringLiteral("▶"));
  next->setToolTip(tr("Next match"));
  ranks_edit_->setPlaceholderText(tr("Ranks: all (e.g. 0-3, 7)"));
  ranks_edit_->setToolTip(tr("Show the lanes of these ranks only: ranks and ranges, e.g. 0-3, 7"));
  ranks_edit_->setClearButtonEnabled(true);
  ranks_edit_->setMaximumWidth(200);
  ranks_edit_->setVisible(false);  // a trace of several ranks only
  auto* all = new QPushButton(tr("Show all"), this);
  status_->setStyleSheet(QStringLiteral("color:#607d8b"));

  auto* bar = new QHBoxLayout;
  bar->addWidget(search_edit_);
  bar->addWidget(prev);
  bar->addWidget(next);
  bar->addWidget(matches_);
  bar->addWidget(ranks_edit_);
  bar->addStretch(1);
  bar->addWidget(status_);
  bar->addWidget(all);

  auto* split = new QSplitter(Qt::Horizontal, this);
  split->addWidget(view_);
  split->addWidget(details_);
  split->setStretchFactor(0, 1);
  split->setStretchFactor(1, 0);
  split->setSizes({1000, 260});

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 4);
  layout->addLayout(bar);
  layout->addWidget(split, 1);
  layout->addWidget(new Legend(this));

  connect(search_edit_, &QLineEdit::textChanged, this, [this](const QString&) {
    instance_mode_ = false;  // typed: a search by name again
    refresh_search();
  });
  connect(search_edit_, &QLineEdit::returnPressed, this,
          [this] { find_next(!(QGuiApplication::keyboardModifiers() & Qt::ShiftModifier)); });
  connect(prev, &QToolButton::clicked, this, [this] { find_next(false); });
  connect(next, &QToolButton::clicked, this, [this] { find_next(true); });
  connect(all, &QPushButton::clicked, view_, &TimelineView::show_all);
  connect(ranks_edit_, &QLineEdit::textChanged, this, [this](const QString& text) {
    // A list it cannot read keeps the last one and says so by its colour.
    ranks_edit_->setStyleSheet(view_->set_rank_filter(text) ? QString()
                                                            : QStringLiteral("color:#c62828"));
  });
  connect(view_, &TimelineView::selectionChanged, this, &TimelinePage::show_details);
  connect(view_, &TimelineView::instanceRequested, this,
          [this](bool forward) { step_instance(forward); });
}

void TimelinePage::set_session(TraceSession* session, bool keep_view) {
  if (view_->session()) disconnect(view_->session(), nullptr, this, nullptr);
  view_->set_session(session, keep_view);
  show_details(view_->selection());
  ranks_edit_->setVisible(session && session->reader().processes().size() >= 2);
  if (!keep_view) {
    const QSignalBlocker block(ranks_edit_);
    ranks_edit_->clear();
    ranks_edit_->setStyleSheet({});
  } else if (!ranks_edit_->text().isEmpty()) {
    view_->set_rank_filter(ranks_edit_->text());  // a live reload's new ranks
  }
  if (session) {
    connect(session, &TraceSession::summaryProgress, this, &TimelinePage::update_status);
    connect(session, &TraceSession::summaryFinished, this, [this] {
      refresh_search();
      update_status();
    });
    connect(session, &TraceSession::reportReady, this, [this] {
      update_status();
      show_details(view_->selection());
    });
  }
  refresh_search();
  update_status();
}

void TimelinePage::update_status() {
  TraceSession* s = view_->session();
  if (!s) {
    status_->clear();
    return;
  }
  QStringList parts;
  const auto [done, events, progress] = s->summary().read([](const SummaryData& d) {
    const double span = static_cast<double>(d.end_ns - d.begin_ns);
    const double f =
        d.has_extent && span > 0 ? static_cast<double>(d.scanned_until_ns - d.begin_ns) / span : 0;
    return std::tuple{d.done, d.events, f};
  });
  if (!done)
    parts
        << tr("reading the trace %1 %").arg(static_cast<int>(std::clamp(progress, 0.0, 1.0) * 100));
  else
    parts << tr("%1 events").arg(format_count(static_cast<std::int64_t>(events)));
  if (!s->analysis_finished()) parts << tr("analysing…");
  status_->setText(parts.join(QStringLiteral(" · ")));
}

QString TimelinePage::matches_text() const {
  return matches_->text();
}

void TimelinePage::set_search(const QString& text) {
  search_edit_->setText(text);
}

void TimelinePage::refresh_search() {
  TraceSession* s = view_->session();
  if (!s) {
    search_ = {};
    matches_->clear();
    return;
  }
  s->summary().read([&](const SummaryData& d) {
    if (instance_mode_)
      search_.set_instances(search_edit_->text(), d, kernels_only_);
    else
      search_.set_query(search_edit_->text(), d, &s->reader());
  });
  current_match_ = 0;
  if (search_edit_->text().isEmpty())
    matches_->clear();
  else
    matches_->setText((instance_mode_ ? tr("%1 instances") : tr("%1 matches"))
                          .arg(format_count(static_cast<std::int64_t>(search_.matches()))));
}

bool TimelinePage::show_instances(const QString& name, bool kernels_only) {
  TraceSession* s = view_->session();
  if (!s) return false;
  {
    const QSignalBlocker block(search_edit_);  // not a search by name: no textChanged
    search_edit_->setText(name);
  }
  instance_mode_ = true;
  kernels_only_ = kernels_only;
  refresh_search();
  return find_from(view_->mapping().view_begin() - 1, std::numeric_limits<std::uint32_t>::max(),
                   true);
}

bool TimelinePage::step_instance(bool forward) {
  TraceSession* s = view_->session();
  const Selection& cur = view_->selection();
  if (!s || cur.kind != Selection::Kind::event) return false;
  const auto [name, kernels] = instances_of_label(s->reader(), cur.label);
  if (!instance_mode_ || search_.query() != name || search_.kernels_only() != kernels) {
    {
      const QSignalBlocker block(search_edit_);
      search_edit_->setText(name);
    }
    instance_mode_ = true;
    kernels_only_ = kernels;
    refresh_search();
  }
  return find_from(cur.start_ns, cur.track, forward);
}

bool TimelinePage::find_next(bool forward) {
  const Selection& cur = view_->selection();
  if (cur.kind == Selection::Kind::event) return find_from(cur.start_ns, cur.track, forward);
  return find_from(forward ? view_->mapping().view_begin() - 1 : view_->mapping().view_end() + 1,
                   forward ? std::numeric_limits<std::uint32_t>::max() : 0, forward);
}

bool TimelinePage::find_from(std::int64_t from, std::uint32_t track, bool forward) {
  TraceSession* s = view_->session();
  if (!s || search_.labels() == 0) return false;
  try {
    std::optional<Event> e = search_.step(s->reader(), from, track, forward);
    if (!e)  // wrap around
      e = search_.step(s->reader(),
                       forward ? std::numeric_limits<std::int64_t>::min()
                               : std::numeric_limits<std::int64_t>::max(),
                       forward ? 0 : std::numeric_limits<std::uint32_t>::max(), forward);
    if (!e) return false;
    view_->reveal(
        {Selection::Kind::event, e->track, -1, e->start_ns, e->end_ns(), e->label, 0, {}});
    current_match_ = search_.ordinal(s->reader(), *e);
    matches_->setText((instance_mode_ ? tr("instance %1 of %2") : tr("%1 of %2"))
                          .arg(format_count(static_cast<std::int64_t>(current_match_)),
                               format_count(static_cast<std::int64_t>(search_.matches()))));
    return true;
  } catch (const std::exception& ex) {
    matches_->setText(QString::fromStdString(ex.what()));
    return false;
  }
}

void TimelinePage::show_details(const Selection& sel) {
  TraceSession* s = view_->session();
  if (!s) {
    details_->set_details({});
    return;
  }
  try {
    details_->set_details(selection_details(*s, view_->step_row(), view_->gap_row(), sel));
  } catch (const std::exception& e) {
    details_->set_details({{tr("Error"), QString::fromStdString(e.what())}});
  }
}

}  // namespace ts::gui
