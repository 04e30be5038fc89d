// Live mode: tells when a trace that is still being captured has changed on disk. A capture
// writes in WAL mode (run.db-wal beside the file) and commits about every 100 ms; a finished
// capture records capture.end_ns in meta. (Its -wal file is no sign: while a viewer holds the
// file open, a finished capture cannot switch it out of WAL mode.) While the trace is live the
// reloader watches the file and its -wal (QFileSystemWatcher, with a polling QTimer as a
// backstop: watchers miss changes on some file systems) and emits changed() when their size or
// time stamp moved, at most once per interval.
#pragma once

#include <QFileSystemWatcher>
#include <QObject>
#include <QString>
#include <QTimer>

namespace ts::gui {

class LiveReloader : public QObject {
  Q_OBJECT

 public:
  explicit LiveReloader(QObject* parent = nullptr);

  // Watches `path` when `live`: the trace has no capture.end_ns yet.
  void watch(const QString& path, bool live);
  void stop();
  // The last change could not be taken (the file was caught mid-write): report it again at the
  // next poll even if nothing changes meanwhile.
  void retry() { dirty_ = true; }
  bool active() const { return timer_.isActive(); }
  void set_interval_ms(int ms) { timer_.setInterval(ms); }

 signals:
  void changed();

 private:
  QString signature() const;
  void poll();

  QString path_;
  QString last_;
  QFileSystemWatcher watcher_;
  QTimer timer_;
  QTimer soon_;  // a watcher notification polls after a short pause, coalescing bursts
  bool dirty_ = false;
};

}  // namespace ts::gui
