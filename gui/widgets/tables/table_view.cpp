#include "gui/widgets/tables/table_view.hpp"

#include <QHeaderView>

#include "gui/models/table_roles.hpp"

namespace ts::gui {

namespace {

// The look, once the view has its model.
QTableView* style_sortable(QTableView* view) {
  view->setSortingEnabled(true);
  view->setAlternatingRowColors(true);
  view->setSelectionBehavior(QAbstractItemView::SelectRows);
  view->verticalHeader()->setVisible(false);
  view->verticalHeader()->setDefaultSectionSize(view->fontMetrics().height() + 8);
  view->horizontalHeader()->setStretchLastSection(false);
  // Figures as wide as they need (the header samples the first rows only), names take the rest.
  view->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  view->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  view->horizontalHeader()->setMinimumSectionSize(70);
  view->sortByColumn(-1, Qt::AscendingOrder);
  return view;
}

}  // namespace

QTableView* make_table_view(QAbstractItemModel* model, QSortFilterProxyModel* proxy,
                            QWidget* parent) {
  auto* view = new QTableView(parent);
  if (!proxy) {
    proxy = new QSortFilterProxyModel(view);
    proxy->setSortRole(SortRole);
  }
  proxy->setSourceModel(model);
  view->setModel(proxy);
  return style_sortable(view);
}

QTableView* make_self_sorting_table_view(QAbstractItemModel* model, QWidget* parent) {
  auto* view = new QTableView(parent);
  view->setModel(model);
  return style_sortable(view);
}

}  // namespace ts::gui
