// Roles shared by the viewer's table models: besides Qt's display text, each cell has a raw
// value to sort by (numbers sort as numbers, not as "10 ms" < "9 ms").
#pragma once

#include <Qt>

namespace ts::gui {

enum TableRole : int {
  SortRole = Qt::UserRole + 1,  // the raw value: double, qint64 or QString
};

}  // namespace ts::gui
