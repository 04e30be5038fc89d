#include "gui/widgets/screenshot.hpp"

#include <QApplication>
#include <QImage>
#include <QPixmap>
#include <algorithm>

#include "gui/widgets/main_window.hpp"

namespace ts::gui {

namespace {

const std::pair<const char*, MainWindow::View> kViews[] = {
    {"overview", MainWindow::View::overview}, {"timeline", MainWindow::View::timeline},
    {"kernels", MainWindow::View::kernels},   {"pipeline", MainWindow::View::pipeline},
    {"steps", MainWindow::View::steps},       {"compare", MainWindow::View::compare},
    {"ranks", MainWindow::View::ranks}};

void settle() {
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

// The windows of exact events and idle gaps the last frame asked for, loaded.
void wait_for_windows(TraceSession& s) {
  s.windows().wait();
  if (GapWindows* gaps = s.gap_windows()) gaps->wait();
}

}  // namespace

bool is_screenshot_view(const QString& view) {
  return std::any_of(std::begin(kViews), std::end(kViews),
                     [&](const auto& v) { return view == QLatin1String(v.first); });
}

MainWindow::View view_from_name(const QString& view) {
  for (const auto& [name, v] : kViews)
    if (view == QLatin1String(name)) return v;
  return MainWindow::View::overview;
}

std::optional<std::pair<std::int64_t, std::int64_t>> screenshot_time_range(
    const TraceSession& s, const ScreenshotOptions& o) {
  if (o.window_all) return std::nullopt;
  if (o.window_ms) {
    const std::int64_t origin = s.extent().first;
    return std::pair{origin + static_cast<std::int64_t>(o.window_ms->first * 1e6),
                     origin + static_cast<std::int64_t>(o.window_ms->second * 1e6)};
  }
  if (o.steps) return s.time_range_of_steps(*o.steps);
  return s.initial_range();  // where the timeline opens for a user
}

QString take_screenshot(const ScreenshotOptions& o) {
  MainWindow w;
  w.resize(o.size);
  w.set_analysis_options(o.analysis);
  w.set_analysis_enabled(o.analyse);
  w.set_import_options(o.import);
  const QString error = w.open(o.trace, false);
  if (!error.isEmpty()) return error;
  TraceSession& s = *w.session();
  s.wait();
  if (!s.analysis_error().isEmpty()) return s.analysis_error();
  w.show_view(view_from_name(o.view));
  if (o.view == QLatin1String("compare") && !o.compare_with.isEmpty()) {
    if (!w.compare()->open_b(o.compare_with))
      return QStringLiteral("cannot open %1").arg(o.compare_with);
    w.compare()->wait();
  }
  w.show();
  settle();
  if (o.view == QLatin1String("timeline")) {
    TimelineView* view = w.timeline()->view();
    if (const auto range = screenshot_time_range(s, o)) {
      view->show_range(range->first, range->second);
    } else if (o.window_all) {
      view->show_all();
    }
    view->build_frame();  // asks for the window of exact events (and idle gaps) it needs
    wait_for_windows(s);
    settle();
    // Groups by name: pinned first, then folded (folding a rank hides its devices' headers).
    const auto each_group = [&](const QStringList& names, auto&& act) {
      for (const QString& name : names) {
        view->build_frame();
        std::vector<QString> keys;
        for (const Lane& l : view->layout().lanes())
          if (l.kind == LaneKind::group && l.name.contains(name, Qt::CaseInsensitive))
            keys.push_back(l.group);
        for (const QString& k : keys) act(k);
      }
    };
    each_group(o.pin, [&](const QString& k) { view->toggle_pin(k); });
    each_group(o.fold, [&](const QString& k) { view->toggle_group(k); });
    if (!o.kernel.isEmpty() && !w.timeline()->show_instances(o.kernel))
      return QStringLiteral("no instance of kernel %1 in %2").arg(o.kernel, o.trace);
    view->build_frame();
    wait_for_windows(s);
    settle();
    if (o.scroll > 0) {
      view->scroll_to(o.scroll);
      settle();
    }
  }
  const QImage image = w.grab().toImage();
  if (image.isNull() || !image.save(o.output, "PNG"))
    return QStringLiteral("cannot write the screenshot %1").arg(o.output);
  return {};
}

}  // namespace ts::gui
