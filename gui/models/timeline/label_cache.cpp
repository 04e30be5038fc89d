#include "gui/models/timeline/label_cache.hpp"

#include "gui/models/format.hpp"
#include "gui/models/palette.hpp"

namespace ts::gui {

void LabelCache::reset(const store::Reader* reader) {
  reader_ = reader;
  cache_.clear();
}

const LabelInfo& LabelCache::get(std::uint32_t label) const {
  auto it = cache_.find(label);
  if (it != cache_.end()) return it->second;
  LabelInfo info;
  if (reader_) {
    const store::Label& l = reader_->label(label);
    info.name = display_text(l.name);
    info.category = l.category;
  }
  info.color = category_color(info.category);
  info.text = text_color_on(info.color);
  return cache_.emplace(label, std::move(info)).first->second;
}

}  // namespace ts::gui
