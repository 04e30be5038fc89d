#include "gui/widgets/timeline/details_panel.hpp"

#include <QVBoxLayout>

namespace ts::gui {

DetailsPanel::DetailsPanel(QWidget* parent)
    : QWidget(parent), title_(new QLabel(tr("Selection"), this)), body_(new QLabel(this)) {
  auto* layout = new QVBoxLayout(this);
  QFont f = title_->font();
  f.setBold(true);
  title_->setFont(f);
  body_->setTextFormat(Qt::RichText);
  body_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  body_->setWordWrap(true);
  body_->setAlignment(Qt::AlignTop | Qt::AlignLeft);
  layout->addWidget(title_);
  layout->addWidget(body_, 1);
  setMinimumWidth(220);
  set_details({});
}

void DetailsPanel::set_details(const Details& details) {
  details_ = details;
  if (details.empty()) {
    body_->setText(
        tr("<span style='color:#78909c'>Click an event, a step or an idle gap.<br><br>"
           "Wheel: zoom at the cursor<br>Drag: pan<br>Shift+drag: sum up a time range<br>"
           "W / S: zoom, A / D: pan<br>Home: everything, F: fit the selection<br>"
           "N / Shift+N: next / previous instance<br>"
           "Click a group's header: fold its lanes,<br>its pin: keep them on top</span>"));
    return;
  }
  QString html = QStringLiteral("<table cellspacing='0' cellpadding='2'>");
  for (const auto& [field, value] : details)
    html +=
        QStringLiteral("<tr><td style='color:#607d8b;padding-right:8px'>%1</td><td>%2</td></tr>")
            .arg(field.toHtmlEscaped(), value.toHtmlEscaped());
  body_->setText(html + QStringLiteral("</table>"));
}

}  // namespace ts::gui
