// The viewer's live reload of a capture still running, in one process: a reload as it was (a new
// session whose every reader — view, window loads, summary, analysis — opens the file and indexes
// every staged event) against a reload through LiveFollower (one reader refreshed with what was
// committed since, its snapshot read by the session). A capture of N staged events commits 1 %
// more before each reload; times are to the session's summary and analysis done. Opening the
// capture is timed both ways too.
//
//   bench_live_reload [--events N] [--repeat K]
#include <QCoreApplication>
#include <algorithm>
#include <cstdio>
#include <string>

#include "benchmarks/live_capture.hpp"
#include "gui/models/live_follower.hpp"
#include "gui/models/trace_session.hpp"

using ts::bench::Clock;
using ts::bench::seconds_since;

int main(int argc, char** argv) {
  QCoreApplication app(argc, argv);
  long long events = 2'000'000, repeat = 3;
  if (!ts::bench::parse_live_flags(argc, argv, "bench_live_reload", events, repeat)) return 2;
  const std::string path = ts::bench::temp_trace("bench_live_reload");
  const QString qpath = QString::fromStdString(path);
  double best_whole = 1e9, best_follow = 1e9, open_whole = 0, open_follow = 0;
  {
    ts::bench::LiveCapture capture(path);
    capture.record(events, 10'000);
    // Opening the capture: every reader indexing the file, or one whose snapshot they read.
    auto t0 = Clock::now();
    {
      ts::gui::TraceSession session(qpath);
      session.wait();
    }
    open_whole = seconds_since(t0);
    t0 = Clock::now();
    ts::gui::LiveFollower follower(path);
    {
      ts::gui::TraceSession session(qpath, {}, true, follower.next());
      session.wait();
    }
    open_follow = seconds_since(t0);
    for (long long k = 0; k < repeat; ++k) {
      capture.record(events / 100, 10'000);
      t0 = Clock::now();
      {
        ts::gui::TraceSession session(qpath);
        session.wait();
      }
      best_whole = std::min(best_whole, seconds_since(t0));
      capture.record(events / 100, 10'000);
      t0 = Clock::now();
      {
        ts::gui::TraceSession session(qpath, {}, true, follower.next());
        session.wait();
      }
      best_follow = std::min(best_follow, seconds_since(t0));
    }
  }
  ts::bench::remove_trace(path);
  std::printf(
      "capture of %lld staged events: open with every reader indexing the file %.0f ms, through "
      "the follower %.0f ms (%.1fx); live reload after 1 %% more committed: best %.0f ms against "
      "%.0f ms (%.1fx)\n",
      events, open_whole * 1e3, open_follow * 1e3, open_whole / open_follow, best_whole * 1e3,
      best_follow * 1e3, best_whole / best_follow);
  return 0;
}
