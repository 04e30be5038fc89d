#include "gui/widgets/ranks/ranks_page.hpp"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QHelpEvent>
#include <QLinearGradient>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "gui/models/format.hpp"
#include "gui/widgets/tables/table_view.hpp"

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
  if (selected_ >= static_cast<int>(map_.ranks.size())) selected_ = -1;
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
  // Room below for the scale's line.
  const double h = std::min(kMaxRowHeight * static_cast<double>(map_.ranks.size()),
                            height() - kAxisHeight - fontMetrics().height() - 6);
  return {kNamesWidth, kAxisHeight, std::max(1.0, width() - kNamesWidth - 8), std::max(1.0, h)};
}

void RankHeatmapView::select_rank(int rank) {
  selected_ = rank >= 0 && rank < static_cast<int>(map_.ranks.size()) ? rank : -1;
  update();
}

bool RankHeatmapView::open_slowest(int rank) {
  if (rank < 0 || rank >= static_cast<int>(map_.ranks.size())) return false;
  const auto column = slowest_column(map_, static_cast<std::size_t>(rank));
  if (!column) return false;
  const std::size_t c = map_.at(static_cast<std::size_t>(rank), *column);
  emit cellActivated(map_.ranks[static_cast<std::size_t>(rank)].process, map_.start_ns[c],
                     map_.end_ns[c]);
  return true;
}

int RankHeatmapView::rank_at(const QPointF& pos) const {
  const QRectF r = cells_rect();
  if (map_.empty() || pos.y() < r.top() || pos.y() >= r.bottom() || pos.x() >= r.right()) return -1;
  const auto rank =
      static_cast<int>((pos.y() - r.top()) / r.height() * static_cast<double>(map_.ranks.size()));
  return std::clamp(rank, 0, static_cast<int>(map_.ranks.size()) - 1);
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
  const double col_w = r.width() / static_cast<double>(map_.columns);
  // Cells whose steps hold no device events, by a device part: hatched, not a value.
  bool any_unsampled = false;
  p.setPen(Qt::NoPen);
  p.setBrush(QBrush(QColor(0x90, 0x9a, 0xa4), Qt::BDiagPattern));
  for (std::size_t rank = 0; rank < map_.ranks.size(); ++rank)
    for (std::size_t c = 0; c < map_.columns; ++c)
      if (!map_.sampled(rank, c)) {
        any_unsampled = true;
        p.drawRect(QRectF(r.left() + static_cast<double>(c) * col_w,
                          r.top() + static_cast<double>(rank) * row_h, col_w, row_h));
      }
  p.setBrush(Qt::NoBrush);
  if (selected_ >= 0) {
    p.setPen(QPen(palette().color(QPalette::Highlight), 2));
    p.drawRect(QRectF(r.left() - 1, r.top() + selected_ * row_h - 1, r.width() + 2, row_h + 2));
  }
  // Rank names where a row has room for one (every k-th otherwise).
  const double text_h = fontMetrics().height();
  const auto every = static_cast<std::size_t>(std::max(1.0, std::ceil(text_h / row_h)));
  p.setPen(palette().color(QPalette::Text));
  if (selected_ >= 0) {  // the selected rank's name, whatever the spacing of the others
    QFont bold = font();
    bold.setBold(true);
    p.setFont(bold);
    p.drawText(
        QRectF(4, r.top() + selected_ * row_h + row_h / 2 - text_h / 2, kNamesWidth - 8, text_h),
        Qt::AlignRight | Qt::AlignVCenter, map_.ranks[static_cast<std::size_t>(selected_)].name);
    p.setFont(font());
  }
  for (std::size_t i = 0; i < map_.ranks.size(); i += every)
    if (std::abs(static_cast<double>(i) - selected_) * row_h >= text_h || selected_ < 0)
      p.drawText(QRectF(4, r.top() + static_cast<double>(i) * row_h, kNamesWidth - 8,
                        std::max(row_h, text_h)),
                 Qt::AlignRight | Qt::AlignVCenter, map_.ranks[i].name);
  // Step numbers along the top, about every 90 px.
  const auto ticks = std::max<std::size_t>(1, static_cast<std::size_t>(r.width() / 90));
  double previous_right = -1e9;
  for (std::size_t t = 0; t <= ticks; ++t) {
    const auto column = std::min(map_.columns - 1, t * map_.columns / ticks);
    const double x = r.left() + (static_cast<double>(column) + 0.5) * r.width() /
                                    static_cast<double>(map_.columns);
    // Over the cells (the first would run into the scale over the names), and never into the
    // label before it.
    const QString label = QStringLiteral("step %1").arg(map_.steps_of(column).first);
    const double width = fontMetrics().horizontalAdvance(label) + 4;
    const double left = std::clamp(x - width / 2, r.left(), std::max(r.left(), r.right() - width));
    if (left < previous_right + 8) continue;
    p.drawText(QRectF(left, 2, width, kAxisHeight - 4), Qt::AlignCenter, label);
    previous_right = left + width;
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
             tr("colour: %1 (pale) to %2 (dark); grey: no step%3")
                 .arg(format_ms(map_.lo_ms), format_ms(map_.hi_ms),
                      any_unsampled ? tr("; hatched: not sampled") : QString()));
}

void RankHeatmapView::mousePressEvent(QMouseEvent* e) {
  if (e->position().x() < kNamesWidth) {  // a rank's name: select its row
    const int rank = rank_at(e->position());
    if (rank < 0) return;
    select_rank(rank);
    emit rankSelected(rank);
    return;
  }
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
    if (help->pos().x() < kNamesWidth && rank_at(help->pos()) >= 0) {
      QToolTip::showText(help->globalPos(), tr("click: select this rank's row"), this);
    } else if (rank < 0) {
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
      job_line_(new QLabel(this)),
      spread_table_(make_table_view(&spread_, nullptr, this)),
      holding_table_(make_table_view(&holding_, nullptr, this)),
      job_box_(new QWidget(this)),
      view_(new RankHeatmapView(this)) {
  for (const auto& [name, part] : heatmap_measures()) colour_by_->addItem(name);
  header_->setWordWrap(true);
  auto* top = new QHBoxLayout;
  top->addWidget(header_, 1);
  top->addWidget(new QLabel(tr("Colour by"), this));
  top->addWidget(colour_by_);
  // The job overview: its line, then the spread and the holding-back tables side by side, each
  // as tall as its rows (at most six holding-back rows show before it scrolls).
  job_line_->setWordWrap(true);
  for (QTableView* t : {spread_table_, holding_table_}) {
    t->setSelectionBehavior(QAbstractItemView::SelectRows);
    t->setSelectionMode(QAbstractItemView::SingleSelection);
    t->verticalHeader()->hide();
    t->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
    t->horizontalHeader()->setStretchLastSection(false);
    t->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    t->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);
    t->setSizePolicy(QSizePolicy::Maximum, QSizePolicy::Fixed);
  }
  spread_table_->setSortingEnabled(false);
  auto* tables = new QHBoxLayout;
  tables->setContentsMargins(0, 0, 0, 0);
  tables->addWidget(spread_table_, 0, Qt::AlignTop);
  tables->addSpacing(16);
  tables->addWidget(holding_table_, 0, Qt::AlignTop);
  tables->addStretch(1);
  auto* job = new QVBoxLayout(job_box_);
  job->setContentsMargins(0, 0, 0, 0);
  job->addWidget(job_line_);
  job->addLayout(tables);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addWidget(job_box_);
  layout->addWidget(view_, 1);
  connect(colour_by_, &QComboBox::currentIndexChanged, this, [this] { rebuild(); });
  connect(view_, &RankHeatmapView::cellActivated, this, &RanksPage::cellActivated);
  // A holding-back row selects its rank as a click on the rank's name in the heat map does.
  connect(holding_table_, &QTableView::clicked, this, [this](const QModelIndex& i) {
    view_->select_rank(i.data(HoldingBackModel::RankIndexRole).toInt());
  });
  connect(holding_table_, &QTableView::doubleClicked, this, [this](const QModelIndex& i) {
    view_->open_slowest(i.data(HoldingBackModel::RankIndexRole).toInt());
  });
  rebuild();
}

void RanksPage::set_report(const Report* report, std::shared_ptr<const PackedSteps> steps) {
  report_ = report;
  steps_ = std::move(steps);
  spread_.set_report(report);
  holding_.set_report(report);
  job_line_->setText(report ? holding_back_line(*report) : QString());
  job_box_->setVisible(report && report->job);
  fit_table_heights();
  rebuild();
  // The rank holding the job back most is outlined in the heat map from the start.
  const int first = holding_.rank_index(0);
  view_->select_rank(first);
  if (first >= 0) holding_table_->selectRow(0);
}

void RanksPage::fit_table_heights() {
  const auto fit = [](QTableView* t, int max_rows) {
    const int rows = std::min(std::max(1, t->model()->rowCount()), max_rows);
    const int row_h = t->verticalHeader()->defaultSectionSize();
    t->setFixedHeight(t->horizontalHeader()->sizeHint().height() + rows * row_h +
                      2 * t->frameWidth() + 2);
  };
  fit(spread_table_, JobSpreadModel::RowCount);
  fit(holding_table_, 6);
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
                  : tr("%1 ranks × %2 steps%3. %4Click a cell to open that rank's steps in "
                       "the timeline.")
                        .arg(map.ranks.size())
                        .arg(map.columns * static_cast<std::size_t>(map.per_column))
                        .arg(map.per_column > 1 ? tr(" (a column per %1 steps)").arg(map.per_column)
                                                : QString())
                        .arg(slowest.isEmpty() ? QString() : slowest + QStringLiteral(". ")));
  view_->set_heatmap(std::move(map));
}

}  // namespace ts::gui
