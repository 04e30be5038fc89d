#include "engine/nn/progress.hpp"

#include <cstdio>
#include <ostream>

namespace ts {

namespace {
double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}
}  // namespace

std::string ProgressLine::format(std::int64_t step, std::int64_t steps, double seconds, double loss,
                                 double accuracy, bool finished) {
  constexpr int kWidth = 30;
  const int filled = steps > 0 ? static_cast<int>(kWidth * step / steps) : kWidth;
  std::string bar(static_cast<std::size_t>(kWidth), '.');
  for (int i = 0; i < filled && i < kWidth; ++i) bar[static_cast<std::size_t>(i)] = '=';
  if (filled < kWidth && step > 0) bar[static_cast<std::size_t>(filled)] = '>';
  const int digits = static_cast<int>(std::to_string(steps).size());
  char head[64];
  std::snprintf(head, sizeof head, "%*lld/%lld", digits, static_cast<long long>(step),
                static_cast<long long>(steps));
  char tail[160];
  const double per_step_ms = step > 0 ? 1000.0 * seconds / static_cast<double>(step) : 0.0;
  if (finished) {
    char per_step[32];
    if (per_step_ms >= 1.0)
      std::snprintf(per_step, sizeof per_step, "%.0fms/step", per_step_ms);
    else  // Keras switches to microseconds below a millisecond
      std::snprintf(per_step, sizeof per_step, "%.0fus/step", per_step_ms * 1000.0);
    std::snprintf(tail, sizeof tail, " - %.0fs %s - loss: %.4f - accuracy: %.4f", seconds, per_step,
                  loss, accuracy);
  } else {
    const double eta = step > 0 ? per_step_ms * static_cast<double>(steps - step) / 1000.0 : 0.0;
    std::snprintf(tail, sizeof tail, " - ETA: %.0fs - loss: %.4f - accuracy: %.4f", eta, loss,
                  accuracy);
  }
  return std::string(head) + " [" + bar + "]" + tail;
}

void ProgressLine::begin_epoch(int epoch, int epochs, std::int64_t steps) {
  steps_ = steps;
  start_ = last_draw_ = std::chrono::steady_clock::now();
  out_ << "Epoch " << epoch << "/" << epochs << "\n";
  out_.flush();
}

void ProgressLine::update(std::int64_t step, double loss, double accuracy) {
  if (!terminal_) return;
  const auto now = std::chrono::steady_clock::now();
  if (step != 1 && now - last_draw_ < std::chrono::milliseconds(50)) return;
  last_draw_ = now;
  out_ << "\r" << format(step, steps_, since(start_), loss, accuracy, false) << "\x1b[K";
  out_.flush();
}

void ProgressLine::end_epoch(double seconds, double loss, double accuracy) {
  if (terminal_) out_ << "\r";
  out_ << format(steps_, steps_, seconds, loss, accuracy, true) << (terminal_ ? "\x1b[K\n" : "\n");
  out_.flush();
}

}  // namespace ts
