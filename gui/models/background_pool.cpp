#include "gui/models/background_pool.hpp"

#include <QCoreApplication>
#include <QThread>
#include <algorithm>

namespace ts::gui {

QThreadPool& background_pool() {
  static QThreadPool* pool = [] {
    auto* p = new QThreadPool(QCoreApplication::instance());
    p->setMaxThreadCount(std::max(2, QThread::idealThreadCount()));
    return p;
  }();
  return *pool;
}

}  // namespace ts::gui
