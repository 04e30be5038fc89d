// The viewer on a 10 M-event trace: time from opening the file to the timeline's
// first frame and to its first complete frame (every lane of the initial view drawn from exact
// events; target ≤ 1 s), to every lane at full zoom-out, repaint time at full zoom-out, mid zoom
// and deep zoom (≤ 16 ms each), and memory (RSS ≤ 2x the file size). Renders offscreen. The trace
// is generated once with ts_trace_synth and cached in /tmp.
//
//   bench_gui [--events N | --trace FILE] [--repeat K] [--size WxH]
#include <QApplication>
#include <QElapsedTimer>
#include <QImage>
#include <QPainter>
#include <QSortFilterProxyModel>
#include <algorithm>
#include <atomic>
#include <charconv>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gui/models/step_model.hpp"
#include "gui/models/summary_builder.hpp"
#include "gui/models/table_roles.hpp"
#include "gui/models/trace_session.hpp"
#include "gui/widgets/timeline/timeline_view.hpp"
#include "profiler/store/reader.hpp"
#include "profiler/synth/synth.hpp"

namespace {

using ts::gui::TimelineView;
using ts::gui::TraceSession;

double rss_mib() {
  long pages = 0, resident = 0;
  if (FILE* f = std::fopen("/proc/self/statm", "r")) {
    if (std::fscanf(f, "%ld %ld", &pages, &resident) != 2) resident = 0;
    std::fclose(f);
  }
  return static_cast<double>(resident) * 4096.0 / (1 << 20);
}

bool parse_int(std::string_view s, long long& out) {
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out > 0;
}

int usage() {
  std::fprintf(stderr, "usage: bench_gui [--events N | --trace FILE] [--repeat K] [--size WxH]\n");
  return 2;
}

// Renders the view into `image` the way the screen would; returns the wall time in ms.
double render(TimelineView& view, QImage& image) {
  QElapsedTimer t;
  t.start();
  image.fill(Qt::white);
  view.render(&image);
  return static_cast<double>(t.nsecsElapsed()) / 1e6;
}

struct Stats {
  double median = 0, max = 0, build = 0, paint = 0;
  std::size_t events_shown = 0;
  bool exact = false;
};

// Repaints at the current view `repeat` times once the data it needs is loaded.
Stats repaint(TimelineView& view, TraceSession& session, QImage& image, int repeat) {
  render(view, image);  // requests the window of exact events the view needs
  session.windows().wait();
  QApplication::processEvents();
  std::vector<double> times;
  Stats s;
  for (int i = 0; i < repeat; ++i) {
    times.push_back(render(view, image));
    s.build = std::max(s.build, view.last_build_ms());
    s.paint = std::max(s.paint, view.last_paint_ms());
  }
  std::sort(times.begin(), times.end());
  s.median = times[times.size() / 2];
  s.max = times.back();
  const ts::gui::DrawList list = view.build_frame();
  s.events_shown = list.events_shown;
  s.exact = list.used_window;
  return s;
}

void print(const char* name, const ts::gui::TimeMapping& m, const Stats& s) {
  std::printf(
      "repaint %-9s window %11.3f ms: median %6.2f ms, max %6.2f ms (pass 1 %5.2f, pass 2 %5.2f), "
      "%zu events drawn from the %s\n",
      name, m.view_span_ns() / 1e6, s.median, s.max, s.build, s.paint, s.events_shown,
      s.exact ? "loaded window (exact)" : "summary");
}

}  // namespace

int main(int argc, char** argv) {
  qputenv("QT_QPA_PLATFORM", "offscreen");
  long long events = 10'000'000, repeat = 20, width = 1600, height = 900;
  std::string path;
  for (int i = 1; i < argc; ++i) {
    const std::string_view a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--events" && has_value) {
      if (!parse_int(argv[++i], events)) return usage();
    } else if (a == "--trace" && has_value) {
      path = argv[++i];
    } else if (a == "--repeat" && has_value) {
      if (!parse_int(argv[++i], repeat)) return usage();
    } else if (a == "--size" && has_value) {
      const std::string_view v = argv[++i];
      const auto x = v.find('x');
      if (x == std::string_view::npos || !parse_int(v.substr(0, x), width) ||
          !parse_int(v.substr(x + 1), height))
        return usage();
    } else {
      return usage();
    }
  }
  try {
    if (path.empty()) {
      path = "/tmp/trainscope_bench_gui_" + std::to_string(events) + "_events.db";
      // Traces written before the overview was stored are made again.
      if (!std::filesystem::exists(path) || ts::store::Reader(path).event_count() < events ||
          ts::store::Reader(path).overview_bytes().empty()) {
        std::printf("generating %s ...\n", path.c_str());
        ts::synth::SynthOptions o;
        o.target_events = events;
        ts::synth::write_synthetic_trace(path, o);
      }
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_gui: %s\n", e.what());
    return 2;
  }
  const double file_mib = static_cast<double>(std::filesystem::file_size(path)) / (1 << 20);

  QApplication app(argc, argv);
  TimelineView view;
  view.resize(static_cast<int>(width), static_cast<int>(height));
  QImage image(view.size(), QImage::Format_ARGB32_Premultiplied);
  render(view, image);  // the empty view: fonts and paint engine warmed up, as in a running app
  const double rss0 = rss_mib();

  // Open to first frame.
  QElapsedTimer clock;
  clock.start();
  auto session = std::make_unique<TraceSession>(QString::fromStdString(path));
  const double opened = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  view.set_session(session.get());
  const double first_frame = render(view, image);
  const double first_frame_at = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  const double first_build = view.last_build_ms(), first_paint = view.last_paint_ms();
  const bool first_complete = view.last_frame().used_window;
  const auto scanned = session->summary().read([](const ts::gui::SummaryData& d) {
    return d.has_extent ? static_cast<double>(d.scanned_until_ns - d.begin_ns) /
                              std::max<double>(1, static_cast<double>(d.end_ns - d.begin_ns))
                        : 0.0;
  });
  // Open to the first complete frame: the initial view (a few steps around the first
  // input-bound one) drawn from its exact window, while the scan and the analysis run.
  bool window_loaded = false;
  QObject::connect(&session->windows(), &ts::gui::WindowCache::loaded,
                   [&window_loaded] { window_loaded = true; });
  double complete_at = first_frame_at, complete_frame = first_frame;
  while (!view.last_frame().used_window && clock.elapsed() < 60'000) {
    QApplication::processEvents(QEventLoop::AllEvents, 5);
    if (!window_loaded) continue;
    window_loaded = false;
    complete_frame = render(view, image);  // what the update() after the load paints
    complete_at = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  }
  std::printf("trace %s: %.1f MiB, %lld events wanted, %zu steps\n", path.c_str(), file_mib,
              static_cast<long long>(session->reader().event_count()), session->steps().size());
  std::printf(
      "open -> first frame: %.0f ms (opening %.0f ms, the frame %.1f ms: pass 1 %.1f, "
      "pass 2 %.1f; %s, %.0f %% of the tracks read)\n",
      first_frame_at, opened, first_frame, first_build, first_paint,
      first_complete ? "every lane complete" : "steps lane complete", scanned * 100);

  const std::optional<std::int64_t> bound = session->first_input_bound_step();
  std::printf(
      "open -> complete first frame: %.0f ms (every lane from the exact window, the frame %.1f "
      "ms; %.3f ms around %s %lld, %zu events drawn; summary %s, analysis %s)\n",
      complete_at, complete_frame, view.mapping().view_span_ns() / 1e6,
      bound ? "the first input-bound step" : "the middle step",
      static_cast<long long>(bound ? *bound
                                   : session->steps().at(session->steps().size() / 2).step),
      view.last_frame().events_shown, session->summary_done() ? "done" : "still scanning",
      session->analysis_finished() ? "done" : "still running");

  // Background work: the summary scan (every lane at full zoom-out) and the analysis.
  bool summary_seen = false, report_seen = false;
  double summary_at = 0, report_at = 0, checked_at = -1;
  // A kept analysis is shown first, its events checked after (every page of the trace read).
  QObject::connect(session.get(), &ts::gui::TraceSession::keptAnalysisChecked,
                   [&](bool) { checked_at = static_cast<double>(clock.nsecsElapsed()) / 1e6; });
  while (!summary_seen || !report_seen) {
    QApplication::processEvents(QEventLoop::AllEvents, 20);
    if (!summary_seen && session->summary_done()) {
      summary_seen = true;
      summary_at = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    }
    if (!report_seen && session->analysis_finished()) {
      report_seen = true;
      report_at = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    }
  }
  session->wait();
  if (checked_at >= 0)
    std::printf("open -> the kept analysis' events checked: %.0f ms\n", checked_at);
  const char* source = session->summary().read([](const ts::gui::SummaryData& d) {
    switch (d.source) {
      case ts::gui::SummaryData::Source::stored:
        return "the overview stored in the trace";
      case ts::gui::SummaryData::Source::cache:
        return "the overview cache";
      case ts::gui::SummaryData::Source::scan:
        break;
    }
    return "a scan of the trace";
  });
  std::printf(
      "open -> every lane at full zoom-out: %.0f ms (from %s); open -> analysis done: %.0f ms%s\n",
      summary_at, source, report_at,
      session->analysis_error().isEmpty() ? "" : " (analysis failed)");

  view.show_all();
  const Stats all = repaint(view, *session, image, static_cast<int>(repeat));
  print("zoom-out", view.mapping(), all);
  const auto [b, e] = session->extent();
  const std::int64_t mid = b + (e - b) / 2;
  view.show_range(mid, mid + (e - b) / 200);  // 0.5 % of the trace
  const Stats m = repaint(view, *session, image, static_cast<int>(repeat));
  print("mid", view.mapping(), m);
  const std::int64_t deep = std::max<std::int64_t>(2000, (e - b) / 200000);
  view.show_range(mid, mid + deep);
  const Stats d = repaint(view, *session, image, static_cast<int>(repeat));
  print("deep", view.mapping(), d);

  const double rss = rss_mib();
  std::printf(
      "memory: RSS %.0f MiB (%.0f MiB before opening), %.2fx the file; %llu events in loaded "
      "windows\n",
      rss, rss0, rss / file_mib,
      static_cast<unsigned long long>(session->windows().cached_events()));

  // The steps table: the session's packed per-step figures sorted by the model itself; and, on
  // the first 20 000 steps (a proxy takes minutes on all of them: each comparison reads two rows
  // through data(), decoding their blocks), the model against a proxy model sorting through
  // data(), as the table did before the figures were packed.
  {
    const auto sort_ms = [](QAbstractItemModel& m) {
      QElapsedTimer t;
      t.start();
      m.sort(ts::gui::StepModel::Duration, Qt::DescendingOrder);
      return std::pair(static_cast<double>(t.nsecsElapsed()) / 1e6,
                       m.index(0, 0).data(ts::gui::StepModel::StepNumberRole).toLongLong());
    };
    const ts::gui::PackedSteps& packed = *session->step_figures();
    ts::gui::StepModel all;
    all.set_steps(session->step_figures());
    const double all_ms = sort_ms(all).first;
    std::vector<ts::analysis::StepSummary> first;
    packed.for_each([&](std::size_t i, const ts::analysis::StepSummary& st) {
      if (i < 20'000) first.push_back(st);
    });
    ts::gui::StepModel own, behind_proxy;
    own.set_steps(first);
    behind_proxy.set_steps(first);
    QSortFilterProxyModel proxy;
    proxy.setSortRole(ts::gui::SortRole);
    proxy.setSourceModel(&behind_proxy);
    const auto [own_ms, own_first] = sort_ms(own);
    const auto [proxy_ms, proxy_first] = sort_ms(proxy);
    const double list_bytes =
        static_cast<double>(packed.size() * sizeof(ts::analysis::StepSummary));
    std::printf(
        "steps table: %zu steps %s in %.1f MiB (%.0f B a step; %.1f MiB, %.1fx, as a list), "
        "sorted by duration in %.0f ms; %zu steps: %.1f ms by the model, %.0f ms through a proxy "
        "(%.0fx)%s\n",
        packed.size(), packed.in_file() ? "read from the file, indexed" : "packed",
        static_cast<double>(packed.packed_bytes()) / (1 << 20),
        static_cast<double>(packed.packed_bytes()) / std::max<double>(1, packed.size()),
        list_bytes / (1 << 20), list_bytes / std::max<double>(1, packed.packed_bytes()), all_ms,
        first.size(), own_ms, proxy_ms, proxy_ms / std::max(own_ms, 1e-3),
        own_first == proxy_first ? "" : " (the two put different steps first!)");
  }
  view.set_session(nullptr);
  session.reset();

  // For comparison: the whole-trace summary from the stored overview, and from a scan of every
  // event (what a trace without one costs on its first opening), with no analysis beside them.
  const std::atomic<bool> cancel{false};
  ts::gui::SummarySources stored;
  stored.cache = false;
  ts::gui::SummarySources scan_only = stored;
  scan_only.stored = false;
  double ms[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    ts::gui::TraceSummary alone;
    clock.restart();
    ts::gui::build_summary(path, alone, cancel, {}, k == 0 ? stored : scan_only);
    ms[k] = static_cast<double>(clock.nsecsElapsed()) / 1e6;
  }
  std::printf(
      "whole-trace summary alone: %.0f ms from the stored overview, %.0f ms by a scan (%.1fx)\n",
      ms[0], ms[1], ms[1] / std::max(ms[0], 0.001));
  return 0;
}
