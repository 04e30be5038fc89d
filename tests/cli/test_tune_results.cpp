// The tune table's arithmetic (cli/tune_results.hpp) on hand-made measurements: speed-ups per
// sample, the projection's miss, the cheapest row and how noisy the repeats were.
#include <gtest/gtest.h>

#include "cli/tune_results.hpp"

namespace ts::cli {
namespace {

TuneRow measured_row(const std::string& change, std::vector<double> runs, double median,
                     std::int64_t batch) {
  TuneRow row;
  row.run.change = change;
  TuneMeasure m;
  m.step_ms = std::move(runs);
  m.median_step_ms = median;
  m.batch = batch;
  m.epoch_samples = 960;
  row.measured = m;
  return row;
}

TuneTable table_of_two() {
  TuneTable t;
  t.price = 3.6;  // $ per hour: 1 ms costs $1e-6
  t.rows.push_back(measured_row("as given", {10, 11, 12}, 11, 32));
  TuneRow doubled = measured_row("--batch 64", {19, 20, 27}, 20, 64);
  doubled.projected.kind = analysis::ConfigProjection::Kind::estimate;
  doubled.projected.step_ms = 22;
  doubled.projected.per_sample_ms = 22.0 / 64;
  t.rows.push_back(doubled);
  return t;
}

TEST(TuneResults, SpeedUpsAndMissArePerSample) {
  const TuneTable t = table_of_two();
  // 11 ms for 32 samples against 20 ms for 64: 1.1x per sample; projected 22 ms: 1.0x.
  EXPECT_NEAR(measured_speedup(t, t.rows[1]), 1.1, 1e-12);
  EXPECT_NEAR(projected_speedup(t, t.rows[1]), 1.0, 1e-12);
  EXPECT_NEAR(*projection_miss(t, t.rows[1]), 0.1 / 1.1, 1e-12);
  EXPECT_FALSE(projection_miss(t, t.rows[0]).has_value());
  EXPECT_EQ(cheapest_row(t), 1);
  // 960 samples: 30 steps of 11 ms.
  EXPECT_NEAR(cost_per_epoch(t, *t.rows[0].measured), 30 * 11e-6, 1e-15);
}

TEST(TuneResults, NoiseIsTheWidestSpreadOfRepeatsOfOneConfiguration) {
  TuneTable t = table_of_two();
  EXPECT_NEAR(*run_spread(*t.rows[0].measured), 2.0 / 11, 1e-12);
  EXPECT_NEAR(*run_spread(*t.rows[1].measured), 8.0 / 20, 1e-12);
  EXPECT_NEAR(table_noise(t), 0.4, 1e-12);
  EXPECT_NE(tune_text(t).find("noise: repeats of one configuration differed by up to 40%"),
            std::string::npos)
      << tune_text(t);

  // One run each: no spread known, and the table says nothing of noise.
  for (TuneRow& row : t.rows) row.measured->step_ms.resize(1);
  EXPECT_FALSE(run_spread(*t.rows[0].measured).has_value());
  EXPECT_EQ(table_noise(t), 0);
  EXPECT_EQ(tune_text(t).find("noise:"), std::string::npos);
}

}  // namespace
}  // namespace ts::cli
