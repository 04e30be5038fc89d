// The viewer's table look: sortable by the models' raw SortRole values, alternating rows,
// compact rows, the first column stretched.
#pragma once

#include <QSortFilterProxyModel>
#include <QTableView>

namespace ts::gui {

// A sortable table view over `model` through `proxy` (given, or a plain proxy sorting by
// SortRole when null); the view owns nothing but what it creates.
QTableView* make_table_view(QAbstractItemModel* model, QSortFilterProxyModel* proxy,
                            QWidget* parent);
// The same look over a model that sorts itself (QAbstractItemModel::sort), with no proxy: for
// tables of millions of rows, which a proxy would sort through millions of data() calls.
QTableView* make_self_sorting_table_view(QAbstractItemModel* model, QWidget* parent);

}  // namespace ts::gui
