// The steps tab: every step with its breakdown; input-bound steps tinted. Double-clicking a
// step opens it in the timeline.
#pragma once

#include <QTableView>
#include <QWidget>
#include <cstdint>
#include <memory>

#include "gui/models/step_model.hpp"

namespace ts::gui {

class StepsPage : public QWidget {
  Q_OBJECT

 public:
  explicit StepsPage(QWidget* parent = nullptr);
  void set_steps(const std::shared_ptr<const PackedSteps>& steps);
  StepModel* model() const { return model_; }

 signals:
  void stepActivated(std::int64_t step);

 private:
  StepModel* model_;
  QTableView* view_;
};

}  // namespace ts::gui
