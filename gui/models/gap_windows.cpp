#include "gui/models/gap_windows.hpp"

#include "profiler/analysis/window_gaps.hpp"

namespace ts::gui {

// The reader the loads share; one load runs at a time, so one thread uses it at a time.
struct GapWindows::Loader {
  std::string path;
  std::shared_ptr<const store::Snapshot> snapshot;
  analysis::AnalysisOptions options;
  std::optional<store::Reader> reader;

  Result load(std::int64_t t0, std::int64_t t1) {
    Result r;
    r.t0 = t0;
    r.t1 = t1;
    try {
      if (!reader) reader.emplace(path, snapshot);
      r.gaps = std::make_shared<const GapRow>(
          make_gap_row(analysis::idle_gaps_in(*reader, {t0, t1}, options)));
    } catch (const std::exception& e) {
      r.error = QString::fromStdString(e.what());
    }
    return r;
  }
};

GapWindows::GapWindows(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
                       analysis::AnalysisOptions options, QObject* parent)
    : QObject(parent),
      loader_(std::make_shared<Loader>()),
      loads_(this, loader_, [this](Result&& r, std::optional<TimeRange> waiting) {
        finished(std::move(r), waiting);
      }) {
  loader_->path = std::move(path);
  loader_->snapshot = std::move(snapshot);
  loader_->options = std::move(options);
}

GapWindows::~GapWindows() = default;

std::shared_ptr<const GapRow> GapWindows::find(std::int64_t t0, std::int64_t t1) const {
  if (current_ && current_t0_ <= t0 && t1 <= current_t1_) return current_;
  return nullptr;
}

void GapWindows::request(std::int64_t t0, std::int64_t t1) {
  if (!find(t0, t1)) loads_.request(t0, t1);
}

void GapWindows::finished(Result&& r, std::optional<TimeRange> waiting) {
  if (!r.error.isEmpty()) {
    emit failed(r.error);
    return;
  }
  current_ = std::move(r.gaps);
  current_t0_ = r.t0;
  current_t1_ = r.t1;
  if (waiting) request(waiting->first, waiting->second);
  emit loaded();
}

}  // namespace ts::gui
