// Keras-style training progress: "313/313 [=====...] - 2s 5ms/step - loss: 0.30 - accuracy: 0.91".
// On a terminal the line is redrawn in place (at most every 50 ms); otherwise one line per epoch.
#pragma once

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <string>

namespace ts {

class ProgressLine {
 public:
  ProgressLine(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {}

  void begin_epoch(int epoch, int epochs, std::int64_t steps);
  void update(std::int64_t step, double loss, double accuracy);
  void end_epoch(double seconds, double loss, double accuracy);

  // The text of one progress line (without a line ending); exposed for tests.
  static std::string format(std::int64_t step, std::int64_t steps, double seconds, double loss,
                            double accuracy, bool finished);

 private:
  std::ostream& out_;
  bool terminal_;
  std::int64_t steps_ = 0;
  std::chrono::steady_clock::time_point start_, last_draw_;
};

}  // namespace ts
