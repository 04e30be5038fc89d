#include "engine/data/stroke_raster.hpp"

#include <algorithm>
#include <cmath>

namespace ts {
namespace {

// Distance from p to the segment a-b.
float segment_distance(Point p, Point a, Point b) {
  const float dx = b.x - a.x, dy = b.y - a.y;
  const float len2 = dx * dx + dy * dy;
  float t = len2 > 0 ? ((p.x - a.x) * dx + (p.y - a.y) * dy) / len2 : 0.0f;
  t = std::clamp(t, 0.0f, 1.0f);
  const float ex = p.x - (a.x + t * dx), ey = p.y - (a.y + t * dy);
  return std::sqrt(ex * ex + ey * ey);
}

// canvas [height, width]: raises every pixel near segment a-b to its pen coverage.
void draw_segment(std::vector<float>& canvas, int height, int width, Point a, Point b,
                  float radius) {
  const float reach = radius + 0.5f;
  const int x0 = std::max(0, static_cast<int>(std::floor(std::min(a.x, b.x) - reach)));
  const int x1 = std::min(width - 1, static_cast<int>(std::ceil(std::max(a.x, b.x) + reach)));
  const int y0 = std::max(0, static_cast<int>(std::floor(std::min(a.y, b.y) - reach)));
  const int y1 = std::min(height - 1, static_cast<int>(std::ceil(std::max(a.y, b.y) + reach)));
  for (int y = y0; y <= y1; ++y) {
    for (int x = x0; x <= x1; ++x) {
      const float d = segment_distance({x + 0.5f, y + 0.5f}, a, b);
      const float coverage = std::clamp(reach - d, 0.0f, 1.0f);
      float& px = canvas[static_cast<std::size_t>(y) * width + x];
      px = std::max(px, coverage);
    }
  }
}

}  // namespace

void draw_polyline(std::vector<float>& canvas, int height, int width,
                   const std::vector<Point>& points, float radius) {
  if (points.empty()) return;
  if (points.size() == 1) draw_segment(canvas, height, width, points[0], points[0], radius);
  for (std::size_t i = 1; i < points.size(); ++i)
    draw_segment(canvas, height, width, points[i - 1], points[i], radius);
}

}  // namespace ts
