// Stroke templates for the digits 0-9, as a person might write them.
#pragma once

#include <vector>

#include "engine/core/rng.hpp"
#include "engine/data/stroke_raster.hpp"

namespace ts {

// One handwritten-looking instance of `digit` (0-9) as pen strokes (polylines) in glyph units: the
// glyph is about 1 unit tall and 0.6 wide, centred on (0, 0), y pointing down. Picks one of the
// digit's styles (e.g. 7 with or without a crossbar) and perturbs every control point, radius and
// arc angle, so no two calls draw the same shape.
std::vector<std::vector<Point>> digit_strokes(int digit, Rng& rng);

}  // namespace ts
