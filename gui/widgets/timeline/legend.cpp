#include "gui/widgets/timeline/legend.hpp"

#include <QPainter>
#include <algorithm>

#include "gui/models/palette.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

namespace {

struct Entry {
  QString text;
  QColor color;
  bool hatched = false;
};

std::vector<Entry> entries() {
  using trace::Category;
  return {
      {QStringLiteral("kernel"), category_color(Category::kernel)},
      {QStringLiteral("h2d / d2h"), category_color(Category::h2d)},
      {QStringLiteral("launch"), category_color(Category::launch)},
      {QStringLiteral("sync"), category_color(Category::sync)},
      {QStringLiteral("host compute"), category_color(Category::host_compute)},
      {QStringLiteral("collective"), category_color(Category::collective)},
      {QStringLiteral("input read/decode/map"), category_color(Category::input_decode)},
      {QStringLiteral("input hand-over (a batch was ready)"),
       category_color(Category::input_handoff)},
      {QStringLiteral("input wait · highly input-bound step"), input_class_color(Verdict::high)},
      {QStringLiteral("moderately input-bound step"), input_class_color(Verdict::moderate)},
      // The device idle lane's gaps take their cause's colour: waiting for input is red
      // there as in the trainer's lane.
      {QStringLiteral("idle: host-bound"), idle_cause_color(IdleCause::host)},
      {QStringLiteral("idle: sync"), idle_cause_color(IdleCause::sync)},
      {QStringLiteral("idle: other"), idle_cause_color(IdleCause::other)},
      {QStringLiteral("merged events"), QColor(0x78, 0x90, 0x9c), true}};
}

}  // namespace

Legend::Legend(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
}

QSize Legend::sizeHint() const {
  return {600, fontMetrics().height() + 8};
}

void Legend::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const int h = fontMetrics().height();
  int x = 4;
  for (const Entry& e : entries()) {
    const QRect swatch(x, (height() - h) / 2 + 2, h - 4, h - 4);
    p.fillRect(swatch, e.hatched ? e.color.lighter(150) : e.color);
    if (e.hatched) {
      p.setPen(QPen(e.color.darker(130), 0));
      for (int k = 3; k < 2 * swatch.width(); k += 4)
        p.drawLine(QPointF(swatch.left() + std::max(0, k - swatch.height()),
                           swatch.top() + std::min(k, swatch.height())),
                   QPointF(swatch.left() + std::min(k, swatch.width()),
                           swatch.top() + std::max(0, k - swatch.width())));
    }
    p.setPen(QColor(0x45, 0x5a, 0x64));
    x += h + 2;
    p.drawText(QRect(x, 0, 400, height()), Qt::AlignLeft | Qt::AlignVCenter, e.text);
    x += fontMetrics().horizontalAdvance(e.text) + 14;
  }
}

}  // namespace ts::gui
