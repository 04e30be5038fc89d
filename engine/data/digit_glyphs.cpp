#include "engine/data/digit_glyphs.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ts {
namespace {

constexpr float kPi = 3.14159265358979f;

// Builds strokes from lines and elliptical arcs, perturbing each parameter as it goes.
class GlyphBuilder {
 public:
  explicit GlyphBuilder(Rng& rng) : rng_(rng) {}

  // Starts a new pen stroke.
  GlyphBuilder& stroke() {
    strokes_.emplace_back();
    return *this;
  }
  // Continues the stroke with a straight line to (x, y).
  GlyphBuilder& to(float x, float y) {
    strokes_.back().push_back({x + jitter(kPointSigma), y + jitter(kPointSigma)});
    return *this;
  }
  // Continues the stroke along the ellipse centred on (cx, cy) with radii (rx, ry), from angle a0
  // to a1 in degrees (0 = right, 90 = down since y points down; a1 < a0 runs anticlockwise).
  GlyphBuilder& arc(float cx, float cy, float rx, float ry, float a0, float a1) {
    cx += jitter(kPointSigma);
    cy += jitter(kPointSigma);
    rx *= 1.0f + jitter(kRadiusSigma);
    ry *= 1.0f + jitter(kRadiusSigma);
    a0 = (a0 + jitter(kAngleSigma)) * (kPi / 180.0f);
    a1 = (a1 + jitter(kAngleSigma)) * (kPi / 180.0f);
    const int steps = std::max(4, static_cast<int>(std::abs(a1 - a0) / (12.0f * kPi / 180.0f)));
    for (int i = 0; i <= steps; ++i) {
      const float a = a0 + (a1 - a0) * static_cast<float>(i) / static_cast<float>(steps);
      strokes_.back().push_back({cx + rx * std::cos(a), cy + ry * std::sin(a)});
    }
    return *this;
  }
  std::vector<std::vector<Point>> take() { return std::move(strokes_); }

 private:
  static constexpr float kPointSigma = 0.045f;  // glyph units
  static constexpr float kRadiusSigma = 0.08f;  // relative
  static constexpr float kAngleSigma = 9.0f;    // degrees
  float jitter(float sigma) { return sigma * rng_.normal(); }

  Rng& rng_;
  std::vector<std::vector<Point>> strokes_;
};

void zero(GlyphBuilder& g, int) {
  g.stroke().arc(0, 0, 0.28f, 0.48f, -100, 275);
}

void one(GlyphBuilder& g, int style) {
  if (style == 0) {
    g.stroke().to(0.03f, -0.5f).to(-0.03f, 0.5f);
    return;
  }
  g.stroke().to(-0.17f, -0.3f).to(0.02f, -0.5f).to(0.0f, 0.5f);
  if (style == 2) g.stroke().to(-0.17f, 0.5f).to(0.17f, 0.5f);
}

void two(GlyphBuilder& g, int style) {
  if (style == 0) {
    g.stroke().arc(0, -0.22f, 0.27f, 0.27f, 190, 380).to(-0.3f, 0.5f).to(0.32f, 0.5f);
  } else {  // curled base
    g.stroke()
        .arc(0, -0.25f, 0.25f, 0.25f, 200, 360)
        .to(-0.28f, 0.46f)
        .arc(-0.2f, 0.4f, 0.09f, 0.09f, 180, 30)
        .to(0.32f, 0.5f);
  }
}

void three(GlyphBuilder& g, int style) {
  if (style == 0) {
    g.stroke().arc(0, -0.25f, 0.24f, 0.24f, 200, 450).arc(0, 0.24f, 0.28f, 0.26f, 270, 520);
  } else {  // flat top
    g.stroke()
        .to(-0.25f, -0.5f)
        .to(0.25f, -0.5f)
        .to(-0.02f, -0.06f)
        .arc(0, 0.22f, 0.28f, 0.27f, 250, 520);
  }
}

void four(GlyphBuilder& g, int style) {
  if (style == 0) {  // closed
    g.stroke().to(0.12f, -0.5f).to(-0.32f, 0.18f).to(0.32f, 0.18f);
    g.stroke().to(0.14f, -0.32f).to(0.14f, 0.5f);
  } else {  // open top
    g.stroke().to(-0.22f, -0.5f).to(-0.26f, 0.08f).to(0.3f, 0.08f);
    g.stroke().to(0.16f, -0.5f).to(0.16f, 0.5f);
  }
}

void five(GlyphBuilder& g, int) {
  g.stroke().to(-0.2f, -0.5f).to(-0.24f, -0.05f).arc(0, 0.2f, 0.28f, 0.27f, 225, 500);
  g.stroke().to(-0.2f, -0.5f).to(0.28f, -0.5f);
}

void six(GlyphBuilder& g, int) {
  g.stroke().arc(0.1f, 0.12f, 0.38f, 0.6f, 255, 180).arc(0, 0.24f, 0.26f, 0.25f, 180, -170);
}

void seven(GlyphBuilder& g, int style) {
  if (style == 2) {  // hooked top
    g.stroke().to(-0.28f, -0.36f).to(-0.26f, -0.5f).to(0.3f, -0.5f).to(0.0f, 0.5f);
    return;
  }
  g.stroke().to(-0.28f, -0.48f).to(0.3f, -0.5f).to(-0.04f, 0.5f);
  if (style == 1) g.stroke().to(-0.1f, 0.02f).to(0.24f, 0.02f);  // crossbar
}

void eight(GlyphBuilder& g, int style) {
  if (style == 0) {  // two loops
    g.stroke().arc(0, -0.26f, 0.21f, 0.24f, -90, 270);
    g.stroke().arc(0, 0.23f, 0.26f, 0.27f, -90, 270);
  } else {  // one continuous figure of eight
    g.stroke().arc(0, -0.26f, 0.21f, 0.24f, 90, 450).arc(0, 0.23f, 0.26f, 0.27f, 270, -90);
  }
}

void nine(GlyphBuilder& g, int style) {
  g.stroke().arc(0, -0.22f, 0.25f, 0.26f, 0, 365);
  if (style == 0) {
    g.stroke().to(0.25f, -0.22f).to(0.18f, 0.5f);
  } else {  // curved tail
    g.stroke().to(0.25f, -0.25f).to(0.2f, 0.3f).to(0.05f, 0.5f).to(-0.15f, 0.45f);
  }
}

struct DigitStyles {
  void (*draw)(GlyphBuilder&, int style);
  int styles;
};
constexpr DigitStyles kDigits[10] = {{zero, 1}, {one, 3}, {two, 2},   {three, 2}, {four, 2},
                                     {five, 1}, {six, 1}, {seven, 3}, {eight, 2}, {nine, 2}};

}  // namespace

std::vector<std::vector<Point>> digit_strokes(int digit, Rng& rng) {
  if (digit < 0 || digit > 9)
    throw std::invalid_argument("no glyph for digit " + std::to_string(digit));
  GlyphBuilder g(rng);
  const DigitStyles& d = kDigits[digit];
  d.draw(g, static_cast<int>(rng.below(static_cast<std::uint64_t>(d.styles))));
  return g.take();
}

}  // namespace ts
