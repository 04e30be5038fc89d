// The colour key under the timeline: event categories, idle causes, input-bound steps and the
// hatching of merged blocks.
#pragma once

#include <QWidget>

namespace ts::gui {

class Legend : public QWidget {
  Q_OBJECT

 public:
  explicit Legend(QWidget* parent = nullptr);
  QSize sizeHint() const override;

 protected:
  void paintEvent(QPaintEvent* event) override;
};

}  // namespace ts::gui
