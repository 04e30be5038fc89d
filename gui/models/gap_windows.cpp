#include "gui/models/gap_windows.hpp"

#include <mutex>
#include <optional>

#include "profiler/analysis/window_gaps.hpp"

namespace ts::gui {

namespace {

struct Context {
  std::mutex mutex;
  std::optional<analysis::GapContext> gaps;
};

}  // namespace

GapWindows::GapWindows(std::string path, std::shared_ptr<const store::Snapshot> snapshot,
                       analysis::AnalysisOptions options, QObject* parent)
    : QObject(parent),
      loads_(
          this, std::move(path), std::move(snapshot),
          [options = std::move(options), context = std::make_shared<Context>()](
              const store::Reader& reader, std::int64_t t0, std::int64_t t1) {
            // The trace's step groups and track roles, read by the first load for every later one.
            const std::lock_guard lock(context->mutex);
            if (!context->gaps) context->gaps = analysis::gap_context(reader);
            return std::make_shared<const GapRow>(
                make_gap_row(analysis::idle_gaps_in(reader, *context->gaps, {t0, t1}, options)));
          },
          [this](Loads::Result&& r, std::optional<TimeRange> waiting) {
            finished(std::move(r), waiting);
          }) {}

GapWindows::~GapWindows() = default;

std::shared_ptr<const GapRow> GapWindows::find(std::int64_t t0, std::int64_t t1) const {
  if (current_ && current_t0_ <= t0 && t1 <= current_t1_) return current_;
  return nullptr;
}

void GapWindows::request(std::int64_t t0, std::int64_t t1) {
  if (!find(t0, t1)) loads_.request(t0, t1);
}

void GapWindows::finished(Loads::Result&& r, std::optional<TimeRange> waiting) {
  if (!r.error.isEmpty()) {
    emit failed(r.error);
    return;
  }
  current_ = std::move(r.value);
  current_t0_ = r.t0;
  current_t1_ = r.t1;
  if (waiting) request(waiting->first, waiting->second);
  emit loaded();
}

}  // namespace ts::gui
