// The pipeline tab: the input pipeline's configuration and bottleneck in one line, then the
// per-stage table.
#pragma once

#include <QLabel>
#include <QWidget>

#include "gui/models/stage_model.hpp"
#include "gui/models/trace_types.hpp"

namespace ts::gui {

class PipelinePage : public QWidget {
  Q_OBJECT

 public:
  explicit PipelinePage(QWidget* parent = nullptr);
  void set_report(const Report* report);
  StageModel* model() const { return model_; }
  QString summary_text() const { return summary_->text(); }

 private:
  StageModel* model_;
  QLabel* summary_;
};

}  // namespace ts::gui
