// Names, categories and colours of event labels for drawing, looked up once per label from the
// GUI thread's reader and kept as QStrings.
#pragma once

#include <QColor>
#include <QString>
#include <cstdint>
#include <unordered_map>

#include "profiler/store/reader.hpp"

namespace ts::gui {

struct LabelInfo {
  QString name;
  trace::Category category = trace::Category::other;
  QColor color;
  QColor text;
};

class LabelCache {
 public:
  void reset(const store::Reader* reader);
  const LabelInfo& get(std::uint32_t label) const;

 private:
  const store::Reader* reader_ = nullptr;
  // Not QHash: references handed out must survive later insertions.
  mutable std::unordered_map<std::uint32_t, LabelInfo> cache_;
};

}  // namespace ts::gui
