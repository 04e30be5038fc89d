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
    {"steps", MainWindow::View::steps},       {"compare", MainWindow::View::compare}};

// A few steps around the first input-bound step (or the middle of the run, past warm-up).
std::optional<std::pair<std::int64_t, std::int64_t>> typical_steps(const TraceSession& s) {
  const auto& steps = s.steps();
  if (steps.empty()) return std::nullopt;
  std::size_t at = steps.size() / 2;
  if (const analysis::Report* r = s.report())
    for (const analysis::StepSummary& st : r->per_step)
      if (st.input_bound) {
        for (std::size_t i = 0; i < steps.size(); ++i)
          if (steps[i].step == st.step) at = i;
        break;
      }
  const std::size_t first = at >= 1 ? at - 1 : 0;
  const std::size_t last = std::min(steps.size() - 1, first + 3);
  return std::pair{steps[first].step, steps[last].step};
}

void settle() {
  for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

}  // namespace

bool is_screenshot_view(const QString& view) {
  return std::any_of(std::begin(kViews), std::end(kViews),
                     [&](const auto& v) { return view == QLatin1String(v.first); });
}

QString take_screenshot(const ScreenshotOptions& o) {
  MainWindow w;
  w.resize(o.size);
  const QString error = w.open(o.trace, false);
  if (!error.isEmpty()) return error;
  TraceSession& s = *w.session();
  s.wait();
  if (!s.analysis_error().isEmpty()) return s.analysis_error();
  for (const auto& [name, view] : kViews)
    if (o.view == QLatin1String(name)) w.show_view(view);
  if (o.view == QLatin1String("compare") && !o.compare_with.isEmpty()) {
    if (!w.compare()->open_b(o.compare_with))
      return QStringLiteral("cannot open %1").arg(o.compare_with);
    w.compare()->wait();
  }
  w.show();
  settle();
  if (o.view == QLatin1String("timeline")) {
    TimelineView* view = w.timeline()->view();
    const auto steps = o.steps ? o.steps : typical_steps(s);
    if (steps) {
      std::int64_t t0 = 0, t1 = 0;
      bool found = false;
      for (const store::Step& st : s.steps())
        if (st.step >= steps->first && st.step <= steps->second) {
          t0 = found ? std::min(t0, st.start_ns) : st.start_ns;
          t1 = found ? std::max(t1, st.start_ns + st.dur_ns) : st.start_ns + st.dur_ns;
          found = true;
        }
      if (found) {
        const std::int64_t margin = (t1 - t0) / 40 + 1;
        view->show_range(t0 - margin, t1 + margin);
      }
    }
    view->build_frame();  // asks for the window of exact events it needs
    s.windows().wait();
    settle();
  }
  const QImage image = w.grab().toImage();
  if (image.isNull() || !image.save(o.output, "PNG"))
    return QStringLiteral("cannot write the screenshot %1").arg(o.output);
  return {};
}

}  // namespace ts::gui
