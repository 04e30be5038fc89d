// Anti-aliased drawing of thick polylines onto a single-channel float canvas.
#pragma once

#include <cstdint>
#include <vector>

namespace ts {

struct Point {
  float x = 0, y = 0;
};

// Draws the polyline through `points` with a pen of the given radius (pixels) onto
// canvas [height, width] (values in [0,1], pixel centres at integer + 0.5). Each pixel takes the
// maximum of its current value and its coverage by the pen: 1 inside, falling linearly to 0 over
// one pixel at the edge. A single point draws a dot.
void draw_polyline(std::vector<float>& canvas, int height, int width,
                   const std::vector<Point>& points, float radius);

}  // namespace ts
