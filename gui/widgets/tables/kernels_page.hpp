// The kernels tab: the kernel statistics, sortable by any column and filtered by name. A row
// leads to the kernel's instances in the timeline: double-click it, press Enter on it or use its
// context menu ("Show instances in the timeline").
#pragma once

#include <QLineEdit>
#include <QTableView>
#include <QWidget>

#include "gui/models/kernel_model.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

class KernelsPage : public QWidget {
  Q_OBJECT

 public:
  explicit KernelsPage(QWidget* parent = nullptr);
  void set_report(const Report* report);
  KernelModel* model() const { return model_; }
  KernelProxyModel* proxy() const { return proxy_; }
  QLineEdit* filter() const { return filter_; }
  QTableView* table() const { return view_; }

 signals:
  // The instances of kernel `name` are wanted (the window shows them in the timeline).
  void kernelActivated(const QString& name);

 private:
  KernelModel* model_;
  KernelProxyModel* proxy_;
  QLineEdit* filter_;
  QTableView* view_;
};

}  // namespace ts::gui
