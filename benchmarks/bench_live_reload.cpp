// The viewer's live reload of a capture still running, in one process: a reload as it was (a new
// session whose every reader — view, window loads, summary, analysis — opens the file and indexes
// every staged event) against a reload through LiveFollower (one reader refreshed with what was
// committed since, its snapshot read by the session). A capture of N staged events commits 1 %
// more before each reload; times are to the session's summary and analysis done. Opening the
// capture is timed both ways too, and so is the baseline of a live reload: a capture of only that
// 1 % opened and analysed on its own (a reload costs what its new events cost when the ratio
// stays near 1, whatever the capture's size).
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
  double best_whole = 1e9, best_follow = 1e9, best_live = 1e9, open_whole = 0, open_follow = 0;
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
      ts::gui::TraceSession session(qpath, {}, true, follower.next(), follower.state());
      session.wait();
    }
    open_follow = seconds_since(t0);
    const auto reload = [&](double& best, auto&& make) {
      capture.record(events / 100, 10'000);
      const auto start = Clock::now();
      {
        ts::gui::TraceSession session = make();
        session.wait();
      }
      best = std::min(best, seconds_since(start));
    };
    for (long long k = 0; k < repeat; ++k) {
      reload(best_whole, [&] { return ts::gui::TraceSession(qpath); });
      reload(best_follow, [&] { return ts::gui::TraceSession(qpath, {}, true, follower.next()); });
      reload(best_live, [&] {
        return ts::gui::TraceSession(qpath, {}, true, follower.next(), follower.state());
      });
    }
    std::printf("live analysis: %zu of the steps came from the kept pass at the last reload\n",
                follower.state()->analysis.reused_steps());
    // Where a reload's time goes: the follower's refresh and copy, the session without analysis.
    capture.record(events / 100, 10'000);
    auto t1 = Clock::now();
    auto snap = follower.next();
    const double next_s = seconds_since(t1);
    t1 = Clock::now();
    double opened_s = 0, summary_s = 0;
    {
      ts::gui::TraceSession session(qpath, {}, false, snap, follower.state());
      opened_s = seconds_since(t1);
      session.wait();
      summary_s = seconds_since(t1);
    }
    {
      // The analysis alone, with the session's options (a trace of more than 250 000 steps lists
      // no idle gaps).
      const ts::store::Reader reader(path, snap);
      ts::analysis::AnalysisOptions o;
      o.keep_gaps = reader.steps().size() <= ts::gui::TraceSession::whole_gaps_steps();
      t1 = Clock::now();
      const auto whole = ts::analysis::analyse(reader, o);
      const double whole_s = seconds_since(t1);
      t1 = Clock::now();
      const auto live = follower.state()->analysis.analyse(reader, o);
      std::printf(
          "  of a reload: refresh and snapshot %.0f ms; session opened %.0f ms, its summary done "
          "%.0f ms (%llu events from the last reload); analysis alone: whole %.0f ms, live %.0f "
          "ms (%zu steps from the last reload)\n",
          next_s * 1e3, opened_s * 1e3, summary_s * 1e3,
          static_cast<unsigned long long>(follower.state()->summary.reused_events()), whole_s * 1e3,
          seconds_since(t1) * 1e3, follower.state()->analysis.reused_steps());
    }
  }
  ts::bench::remove_trace(path);
  // The baseline: the 1 % alone, a capture of events / 100 opened through a follower.
  double alone = 1e9;
  {
    const std::string small = ts::bench::temp_trace("bench_live_reload_alone");
    {
      ts::bench::LiveCapture capture(small);
      capture.record(events / 100, 10'000);
      const QString qsmall = QString::fromStdString(small);
      for (long long k = 0; k < repeat; ++k) {
        const auto start = Clock::now();
        ts::gui::LiveFollower follower(small);
        {
          ts::gui::TraceSession session(qsmall, {}, true, follower.next(), follower.state());
          session.wait();
        }
        alone = std::min(alone, seconds_since(start));
      }
    }
    ts::bench::remove_trace(small);
  }
  std::printf(
      "the 1 %% alone (%lld events opened and analysed on their own): %.0f ms; a live reload of "
      "the capture after 1 %% more: %.1fx that\n",
      events / 100, alone * 1e3, best_live / alone);
  std::printf(
      "capture of %lld staged events: open with every reader indexing the file %.0f ms, through "
      "the follower %.0f ms (%.1fx); live reload after 1 %% more committed: every reader indexing "
      "%.0f ms, through the follower with a whole analysis %.0f ms (%.1fx), with the live analysis "
      "%.0f ms (%.1fx)\n",
      events, open_whole * 1e3, open_follow * 1e3, open_whole / open_follow, best_whole * 1e3,
      best_follow * 1e3, best_whole / best_follow, best_live * 1e3, best_whole / best_live);
  return 0;
}
