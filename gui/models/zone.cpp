#include "gui/models/zone.hpp"

namespace ts::gui {

void Row::push(const Zone& z) {
  if (z.count != 1 && cum.empty()) {
    cum.resize(zones.size() + 1);
    for (std::size_t i = 0; i <= zones.size(); ++i) cum[i] = i;
  }
  zones.push_back(z);
  if (!cum.empty()) cum.push_back(cum.back() + z.count);
}

Row& TrackRows::row(std::size_t depth) {
  if (depth >= rows.size()) rows.resize(depth + 1);
  return rows[depth];
}

}  // namespace ts::gui
