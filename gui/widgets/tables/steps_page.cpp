#include "gui/widgets/tables/steps_page.hpp"

#include <QHeaderView>
#include <QVBoxLayout>

#include "gui/widgets/tables/table_view.hpp"

namespace ts::gui {

StepsPage::StepsPage(QWidget* parent) : QWidget(parent), model_(new StepModel(this)) {
  view_ = make_self_sorting_table_view(model_, this);
  view_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
  view_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(view_, 1);
  connect(view_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) {
    emit stepActivated(index.data(StepModel::StepNumberRole).toLongLong());
  });
}

void StepsPage::set_steps(const std::shared_ptr<const PackedSteps>& steps) {
  model_->set_steps(steps);  // shared with the session, not copied
}

}  // namespace ts::gui
