// The device's idle gaps of the steps around what the timeline shows, for a trace too long to hold
// every gap (TraceSession::gap_windows): loaded on a background thread with a Reader of its own
// (analysis::idle_gaps_in), the latest window kept. One load runs at a time; a request made
// meanwhile waits, and only the latest one is kept.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "gui/models/latest_load.hpp"
#include "gui/models/timeline/timeline_data.hpp"
#include "profiler/analysis/report.hpp"
#include "profiler/store/reader.hpp"

namespace ts::gui {

class GapWindows : public QObject {
  Q_OBJECT

 public:
  // The most steps one window may span: a view wider than this shows the per-step idle row.
  static constexpr std::size_t kMaxSteps = 20'000;

  // The first load reads the trace's steps once (analysis::gap_context): a trace of one process
  // leaves them in the file and each load reads those of its window.
  GapWindows(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
             analysis::AnalysisOptions options, QObject* parent = nullptr);
  ~GapWindows() override;

  // The loaded gaps covering [t0, t1], or null.
  std::shared_ptr<const GapRow> find(std::int64_t t0, std::int64_t t1) const;
  // Loads the gaps of the steps overlapping [t0, t1) unless the loaded or loading window covers it.
  void request(std::int64_t t0, std::int64_t t1);
  // Blocks until no load runs or waits (tests, screenshots).
  void wait() { loads_.wait(); }
  std::uint64_t loads() const { return static_cast<std::uint64_t>(loads_.started()); }

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  using Loads = LatestLoad<std::shared_ptr<const GapRow>>;
  void finished(Loads::Result&& r, std::optional<TimeRange> waiting);

  Loads loads_;
  std::shared_ptr<const GapRow> current_;
  std::int64_t current_t0_ = 0, current_t1_ = 0;
};

}  // namespace ts::gui
