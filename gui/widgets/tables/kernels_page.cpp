#include "gui/widgets/tables/kernels_page.hpp"

#include <QMenu>
#include <QVBoxLayout>

#include "gui/widgets/tables/table_view.hpp"

namespace ts::gui {

KernelsPage::KernelsPage(QWidget* parent)
    : QWidget(parent),
      model_(new KernelModel(this)),
      proxy_(new KernelProxyModel(this)),
      filter_(new QLineEdit(this)) {
  filter_->setPlaceholderText(tr("Filter kernels by name"));
  filter_->setClearButtonEnabled(true);
  view_ = make_table_view(model_, proxy_, this);
  view_->sortByColumn(KernelModel::Total, Qt::DescendingOrder);
  // Long C++ kernel names share their start: keep both ends in view (the tooltip has it whole).
  view_->setTextElideMode(Qt::ElideMiddle);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(filter_);
  layout->addWidget(view_, 1);
  connect(filter_, &QLineEdit::textChanged, proxy_, &KernelProxyModel::set_name_filter);
  const auto activate = [this](const QModelIndex& index) {
    if (index.isValid()) emit kernelActivated(index.data(KernelModel::KernelNameRole).toString());
  };
  connect(view_, &QTableView::activated, this, activate);  // double-click, or Enter
  view_->setContextMenuPolicy(Qt::CustomContextMenu);
  connect(view_, &QWidget::customContextMenuRequested, this, [this, activate](const QPoint& at) {
    const QModelIndex index = view_->indexAt(at);
    if (!index.isValid()) return;
    QMenu menu(this);
    menu.addAction(tr("Show instances in the timeline"), this, [&] { activate(index); });
    menu.exec(view_->viewport()->mapToGlobal(at));
  });
}

void KernelsPage::set_report(const Report* report) {
  model_->set_kernels(report ? report->kernels : std::vector<KernelStat>{});
}

}  // namespace ts::gui
