#include "gui/widgets/ranks/ranks_page.hpp"

#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/models/format.hpp"

namespace ts::gui {

namespace {

constexpr double kNamesWidth = 64;  // the rank names' column
constexpr double kAxisHeight = 22;  // the step numbers' row
constexpr double kMaxRowHeight = 22;

}  // namespace

RankHeatmapView::RankHeatmapView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setMinimumHeight(120);
}

void RankHeatmapView::set_heatmap(RankHeatmap heatmap) {
  map_ = std::move(heatmap);
  cells_ = QImage();
  if (!map_.empty()) {
    cells_ = QImage(static_cast<int>(map_.columns), static_cast<int>(map_.ranks.size()),
                    QImage::Format_RGB32);
    for (std::size_t r = 0; r < map_.ranks.size(); ++r) {
      auto* line = reinterpret_cast<QRgb*>(cells_.scanLine(static_cast<int>(r)));
      for (std::size_t c = 0; c < map_.columns; ++c)
        line[c] = map_.color_of(map_.value(r, c)).rgb();
    }
  }
  update();
}

QRectF RankHeatmapView::cells_rect() const {
  if (map_.empty()) return {};
  const double h =
      std::min(kMaxRowHeight * static_cast<double>(map_.ranks.size()), height() - kAxisHeight - 4);
  return {kNamesWidth, kAxisHeight, std::max(1.0, width() - kNamesWidth - 8), std::max(1.0, h)};
}

std::pair<int, int> RankHeatmapView::cell_at(const QPointF& pos) const {
  const QRectF r = cells_rect();
  if (map_.empty() || !r.contains(pos)) return {-1, -1};
  const auto rank =
      static_cast<int>((pos.y() - r.top()) / r.height() * static_cast<double>(map_.ranks.size()));
  const auto column =
      static_cast<int>((pos.x() - r.left()) / r.width() * static_cast<double>(map_.columns));
  return {std::clamp(rank, 0, static_cast<int>(map_.ranks.size()) - 1),
          std::clamp(column, 0, static_cast<int>(map_.columns) - 1)};
}

void RankHeatmapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), palette().base());
  if (map_.empty()) {
    p.setPen(palette().color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter,
               tr("The heat map shows a trace of several ranks, once it is analysed."));
    return;
  }
  const QRectF r = cells_rect();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(r, cells_);
  const double row_h = r.height() / static_cast<double>(map_.ranks.size());
  // Rank names where a row has room for one (every k-th otherwise).
  const double text_h = fontMetrics().height();
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(text_h / row_h)));
  p.setPen(palette().color(QPalette::Text));
  for (std::size_t i = 0; i < map_.ranks.size(); i += every)
    p.drawText(QRectF(4, r.top() + static_cast<double>(i) * row_h, kNamesWidth - 8,
                      std::max(row_h, text_h)),
               Qt::AlignRight | Qt::AlignVCenter, map_.ranks[i].name);
  // Step numbers along the top, about every 90 px.
  const auto ticks = std::max<std::size_t>(1, static_cast<std::size_t>(r.width() / 90));
  for (std::size_t t = 0; t <= ticks; ++t) {
    const auto column = std::min(map_.columns - 1, t * map_.columns / ticks);
    const double x = r.left() + (static_cast<double>(column) + 0.5) * r.width() /
                                    static_cast<double>(map_.columns);
    p.drawText(QRectF(x - 45, 2, 90, kAxisHeight - 4), Qt::AlignCenter,
               QStringLiteral("step %1").arg(map_.steps_of(column).first));
  }
  // The scale, top left over the names.
  QLinearGradient g(0, 0, kNamesWidth - 10, 0);
  for (int k = 0; k <= 4; ++k)
    g.setColorAt(k / 4.0, map_.color_of(map_.lo_ms + (map_.hi_ms - map_.lo_ms) * k / 4.0));
  p.fillRect(QRectF(4, 4, kNamesWidth - 10, 6), g);
  p.setPen(palette().color(QPalette::PlaceholderText));
  p.drawText(QRectF(4, 10, kNamesWidth - 8, 12), Qt::AlignLeft | Qt::AlignVCenter,
             format_ms(map_.lo_ms));
  p.drawText(QRectF(kNamesWidth, r.bottom() + 2, r.width(), text_h), Qt::AlignRight,
             tr("colour: %1 (pale) to %2 (dark); grey: no step")
                 .arg(format_ms(map_.lo_ms), format_ms(map_.hi_ms)));
}

void RankHeatmapView::mousePressEvent(QMouseEvent* e) {
  const auto [rank, column] = cell_at(e->position());
  if (rank < 0) return;
  const std::size_t c = map_.at(static_cast<std::size_t>(rank), static_cast<std::size_t>(column));
  if (map_.end_ns[c] <= map_.start_ns[c]) return;  // no step there
  emit cellActivated(map_.ranks[static_cast<std::size_t>(rank)].process, map_.start_ns[c],
                     map_.end_ns[c]);
}

bool RankHeatmapView::event(QEvent* e) {
  if (e->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(e);
    const auto [rank, column] = cell_at(help->pos());
    if (rank < 0) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(
          help->globalPos(),
          cell_text(map_, static_cast<std::size_t>(rank), static_cast<std::size_t>(column)) +
              tr("\nclick: open in the timeline"),
          this);
    }
    return true;
  }
  return QWidget::event(e);
}

RanksPage::RanksPage(QWidget* parent)
    : QWidget(parent),
      header_(new QLabel(this)),
      colour_by_(new QComboBox(this)),
      view_(new RankHeatmapView(this)) {
  for (const auto& [name, part] : heatmap_measures()) colour_by_->addItem(name);
  header_->setWordWrap(true);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(new QLabel(tr("Colour by"), this));
  top->addWidget(colour_by_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(view_, 1);
  connect(colour_by_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(view_, &RankHeatmapView::cellActivated, this, &RanksPage::cellActivated);
  rebuild();
}

void RanksPage::set_report(const Report* report, std::shared_ptr<const PackedSteps> steps) {
  report_ = report;
  steps_ = std::move(steps);
  rebuild();
}

void RanksPage::rebuild() {
  const auto measures = heatmap_measures();
  const auto chosen = static_cast<std::size_t>(std::max(0, colour_by_->currentIndex()));
  RankHeatmap map;
  if (report_ && steps_)
    map = make_rank_heatmap(*steps_, *report_,
                            chosen < measures.size() ? measures[chosen].second : std::nullopt);
  const QString slowest = slowest_rank_line(map);
  header_->setText(
      map.empty() ? tr("A trace of several ranks shows each rank's steps here.")
                  : tr("%1 ranks × %2 steps%3. %4 Click a cell to open that rank's steps in "
                       "the timeline.")
                        .arg(map.ranks.size())
                        .arg(map.columns * static_cast<std::size_t>(map.per_column))
                        .arg(map.per_column > 1 ? tr(" (a column per %1 steps)").arg(map.per_column)
                                                : QString())
                        .arg(slowest.isEmpty() ? QString() : slowest + QStringLiteral(".")));
  view_->set_heatmap(std::move(map));
}

}  // namespace ts::gui
