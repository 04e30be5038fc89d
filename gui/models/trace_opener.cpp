#include "gui/models/trace_opener.hpp"

#include <exception>
#include <optional>
#include <string>

#include "gui/models/trace_meta.hpp"
#include "profiler/analysis/steps.hpp"
#include "profiler/import_cache/trace_source.hpp"

namespace ts::gui {

OpenedTrace open_trace(const QString& path, const TraceOpenOptions& options) {
  // Another tool's trace is imported (or its cached import reused) first.
  const import::OpenedTrace source =
      import::open_trace_source(path.toStdString(), {options.import, {}});
  const bool from_import = source.imported || source.reused;
  // A capture still running (or killed) has staged events: one reader indexes them, and the
  // session's readers read its snapshot.
  std::unique_ptr<LiveFollower> follower;
  std::shared_ptr<const store::Snapshot> snapshot;
  if (!from_import) {
    follower = std::make_unique<LiveFollower>(source.path);
    snapshot = follower->next();
  }
  // A capture's staged events: its reloads' analysis starts here.
  std::shared_ptr<LiveState> live = snapshot ? follower->state() : nullptr;
  OpenedTrace opened;
  opened.session =
      std::make_unique<TraceSession>(QString::fromStdString(source.path), options.analysis,
                                     options.analyse, std::move(snapshot), std::move(live));
  if (from_import) opened.session->set_source(path);
  opened.imported = source.imported;
  if (!from_import && capture_in_progress(opened.session->reader()))
    opened.follower = std::move(follower);
  return opened;
}

std::unique_ptr<TraceSession> reload_capture(std::unique_ptr<LiveFollower>& follower,
                                             const QString& path, const TraceOpenOptions& options) {
  if (!follower) follower = std::make_unique<LiveFollower>(path.toStdString());
  std::shared_ptr<const store::Snapshot> snapshot = follower->next();
  return std::make_unique<TraceSession>(path, options.analysis, options.analyse,
                                        std::move(snapshot), follower->state());
}

bool still_capturing(const TraceSession& session) {
  return capture_in_progress(session.reader());
}

StepRangeCheck check_step_range(const QString& path, std::pair<std::int64_t, std::int64_t> range,
                                const ImportOptions& import) {
  std::optional<analysis::StepRangeFit> fit;
  try {
    const store::Reader reader(import::open_trace_source(path.toStdString(), {import, {}}).path);
    fit = analysis::fit_step_range(reader, range);
  } catch (const std::exception&) {
    return {};
  }
  const std::string file = path.toStdString();
  return {QString::fromStdString(analysis::step_range_error(*fit, file)),
          QString::fromStdString(analysis::step_range_note(*fit, file))};
}

}  // namespace ts::gui
