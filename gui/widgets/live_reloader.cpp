#include "gui/widgets/live_reloader.hpp"

#include <QDateTime>
#include <QFileInfo>

namespace ts::gui {

LiveReloader::LiveReloader(QObject* parent) : QObject(parent) {
  timer_.setInterval(1000);
  soon_.setSingleShot(true);
  soon_.setInterval(100);
  connect(&timer_, &QTimer::timeout, this, &LiveReloader::poll);
  connect(&soon_, &QTimer::timeout, this, &LiveReloader::poll);
  connect(&watcher_, &QFileSystemWatcher::fileChanged, &soon_, qOverload<>(&QTimer::start));
  connect(&watcher_, &QFileSystemWatcher::directoryChanged, &soon_, qOverload<>(&QTimer::start));
}

void LiveReloader::watch(const QString& path, bool live) {
  stop();
  if (!live) return;
  path_ = path;
  last_ = signature();
  watcher_.addPath(path);
  if (QFileInfo::exists(path + "-wal")) watcher_.addPath(path + "-wal");
  watcher_.addPath(QFileInfo(path).absolutePath());
  timer_.start();
}

void LiveReloader::stop() {
  timer_.stop();
  soon_.stop();
  if (!watcher_.files().isEmpty()) watcher_.removePaths(watcher_.files());
  if (!watcher_.directories().isEmpty()) watcher_.removePaths(watcher_.directories());
  dirty_ = false;
}

QString LiveReloader::signature() const {
  QString s;
  for (const QString& f : {path_, path_ + "-wal"}) {
    const QFileInfo info(f);
    s +=
        info.exists()
            ? QStringLiteral("%1:%2;").arg(info.size()).arg(info.lastModified().toMSecsSinceEpoch())
            : QStringLiteral("-;");
  }
  return s;
}

void LiveReloader::poll() {
  if (!timer_.isActive()) return;
  const QString now = signature();
  if (now == last_ && !dirty_) return;
  last_ = now;
  dirty_ = false;
  if (QFileInfo::exists(path_ + "-wal") && !watcher_.files().contains(path_ + "-wal"))
    watcher_.addPath(path_ + "-wal");
  emit changed();
}

}  // namespace ts::gui
