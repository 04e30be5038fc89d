// Loads event windows (event_window.hpp) on a background thread with a Reader of its own and
// keeps the two most recent, so zooming back and forth between two levels costs nothing. One
// load runs at a time; a request made meanwhile waits, and only the latest one is kept.
#pragma once

#include <QObject>
#include <QString>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "gui/models/event_window.hpp"
#include "gui/models/latest_load.hpp"

namespace ts::gui {

class WindowCache : public QObject {
  Q_OBJECT

 public:
  // The most events one window may hold: with two windows kept, at most 2 x 24 bytes x this.
  static constexpr std::uint64_t kMaxEvents = 4'000'000;

  // snapshot: what to read in place of the file (store::Reader), or null.
  explicit WindowCache(std::string path, std::shared_ptr<const store::Snapshot> snapshot = nullptr,
                       QObject* parent = nullptr);
  ~WindowCache() override;

  // The cached window covering [t0, t1], or null.
  const EventWindow* find(std::int64_t t0, std::int64_t t1) const;
  // Loads [t0, t1) unless a cached or loading window covers it.
  void request(std::int64_t t0, std::int64_t t1);
  bool loading() const { return loads_.running(); }
  // Blocks until no load runs or waits (tests, screenshots, benchmarks).
  void wait() { loads_.wait(); }
  std::uint64_t cached_events() const;

 signals:
  void loaded();
  void failed(const QString& message);

 private:
  using Loads = LatestLoad<std::optional<EventWindow>>;  // nullopt: over kMaxEvents
  void finished(Loads::Result&& r, std::optional<TimeRange> waiting);

  Loads loads_;
  std::optional<std::pair<std::int64_t, std::int64_t>> refused_;  // held more than kMaxEvents
  std::shared_ptr<const EventWindow> current_, previous_;
};

}  // namespace ts::gui
