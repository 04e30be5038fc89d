// The panel beside the timeline that describes the selection (selection_details.hpp).
#pragma once

#include <QLabel>
#include <QWidget>

#include "gui/models/timeline/selection_details.hpp"

namespace ts::gui {

class DetailsPanel : public QWidget {
  Q_OBJECT

 public:
  explicit DetailsPanel(QWidget* parent = nullptr);
  void set_details(const Details& details);
  const Details& details() const { return details_; }

 private:
  QLabel* title_;
  QLabel* body_;
  Details details_;
};

}  // namespace ts::gui
