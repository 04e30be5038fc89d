#include "gui/models/palette.hpp"

namespace ts::gui {

using analysis::IdleCause;
using analysis::Part;
using analysis::Verdict;
using trace::Category;

QColor category_color(Category c) {
  switch (c) {
    case Category::step:
      return QColor(0x90, 0xa4, 0xae);
    case Category::input_wait:
      return QColor(0xe5, 0x39, 0x35);
    case Category::input_read:
      return QColor(0xff, 0x98, 0x00);
    case Category::input_decode:
      return QColor(0xf5, 0x7c, 0x00);
    case Category::input_map:
      return QColor(0xff, 0xb7, 0x4d);
    case Category::input_batch:
      return QColor(0xff, 0xa7, 0x26);
    case Category::h2d:
      return QColor(0x7e, 0x57, 0xc2);
    case Category::d2h:
      return QColor(0xba, 0x68, 0xc8);
    case Category::kernel:
      return QColor(0x43, 0xa0, 0x47);
    case Category::launch:
      return QColor(0x1e, 0x88, 0xe5);
    case Category::sync:
      return QColor(0xfd, 0xd8, 0x35);
    case Category::host_compute:
      return QColor(0x26, 0xa6, 0x9a);
    case Category::optimizer:
      return QColor(0x00, 0xac, 0xc1);
    case Category::collective:
      return QColor(0x8d, 0x6e, 0x63);
    case Category::input_handoff:  // host work, but input's: between host compute and input
      return QColor(0xf4, 0x8f, 0xb1);
    case Category::other:
      break;
  }
  return QColor(0xbd, 0xbd, 0xbd);
}

QColor part_color(Part p) {
  switch (p) {
    case Part::device_compute:
      return category_color(Category::kernel);
    case Part::collective:
      return category_color(Category::collective);
    case Part::d2h:
      return category_color(Category::d2h);
    case Part::h2d:
      return category_color(Category::h2d);
    case Part::input_wait:
      return category_color(Category::input_wait);
    case Part::input_handoff:
      return category_color(Category::input_handoff);
    case Part::launch:
      return category_color(Category::launch);
    case Part::sync:
      return category_color(Category::sync);
    case Part::host_compute:
      return category_color(Category::host_compute);
    case Part::other:
      break;
  }
  return QColor(0xcf, 0xd8, 0xdc);
}

QColor idle_cause_color(IdleCause c) {
  switch (c) {
    case IdleCause::input:
      return category_color(Category::input_wait);
    case IdleCause::collective:
      return category_color(Category::collective);
    case IdleCause::host:
      return category_color(Category::launch);
    case IdleCause::sync:
      return category_color(Category::sync);
    case IdleCause::other:
      break;
  }
  return QColor(0x9e, 0x9e, 0x9e);
}

QColor input_class_color(Verdict v) {
  switch (v) {
    case Verdict::high:
      return category_color(Category::input_wait);
    case Verdict::moderate:
      return QColor(0xfb, 0x8c, 0x00);
    case Verdict::none:
      break;
  }
  return category_color(Category::step);
}

QColor input_class_tint(Verdict v) {
  switch (v) {
    case Verdict::high:
      return QColor(0xff, 0xeb, 0xee);
    case Verdict::moderate:
      return QColor(0xff, 0xf3, 0xe0);
    case Verdict::none:
      break;
  }
  return QColor(Qt::white);
}

QString input_class_label(Verdict v) {
  switch (v) {
    case Verdict::high:
      return QStringLiteral("highly input-bound");
    case Verdict::moderate:
      return QStringLiteral("moderately input-bound");
    case Verdict::none:
      break;
  }
  return QString();
}

QColor text_color_on(const QColor& background) {
  const double luma =
      0.299 * background.redF() + 0.587 * background.greenF() + 0.114 * background.blueF();
  return luma > 0.6 ? QColor(0x21, 0x21, 0x21) : QColor(Qt::white);
}

bool device_part(Part p) {
  switch (p) {
    case Part::device_compute:
    case Part::collective:
    case Part::d2h:
    case Part::h2d:
      return true;
    default:
      return false;
  }
}

QString part_label(Part p) {
  switch (p) {
    case Part::device_compute:
      return QStringLiteral("device compute");
    case Part::collective:
      return QStringLiteral("collective");
    case Part::d2h:
      return QStringLiteral("device→host copy");
    case Part::h2d:
      return QStringLiteral("host→device copy");
    case Part::input_wait:
      return QStringLiteral("input wait");
    case Part::input_handoff:
      return QStringLiteral("input hand-over");
    case Part::launch:
      return QStringLiteral("launch");
    case Part::sync:
      return QStringLiteral("sync");
    case Part::host_compute:
      return QStringLiteral("host compute");
    case Part::other:
      break;
  }
  return QStringLiteral("other / idle");
}

QString category_label(Category c) {
  const std::string_view name = trace::category_name(c);
  return QString::fromUtf8(name.data(), static_cast<qsizetype>(name.size()));
}

QString idle_cause_label(IdleCause c) {
  switch (c) {
    case IdleCause::input:
      return QStringLiteral("waiting for input");
    case IdleCause::collective:
      return QStringLiteral("waiting in collectives");
    case IdleCause::host:
      return QStringLiteral("host-bound");
    case IdleCause::sync:
      return QStringLiteral("synchronisation");
    case IdleCause::other:
      break;
  }
  return QStringLiteral("other");
}

}  // namespace ts::gui
