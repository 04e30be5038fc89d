#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "engine/data/synthetic.hpp"

namespace ts {
namespace {

TEST(Synthetic, ShapeRangeAndClasses) {
  const Dataset ds = make_synthetic_digits(500, 1);
  EXPECT_EQ(ds.count, 500);
  EXPECT_EQ(ds.height, 28);
  EXPECT_EQ(ds.width, 28);
  EXPECT_EQ(ds.channels, 1);
  EXPECT_EQ(ds.classes, 10);
  ASSERT_EQ(ds.images.size(), 500u * 28 * 28);
  ASSERT_EQ(ds.labels.size(), 500u);
  EXPECT_FALSE(ds.source.empty());
  double sum = 0;
  for (const float v : ds.images) {
    ASSERT_GE(v, 0.0f);
    ASSERT_LE(v, 1.0f);
    sum += v;
  }
  const double mean = sum / static_cast<double>(ds.images.size());
  EXPECT_GT(mean, 0.05);  // MNIST's mean pixel is about 0.13
  EXPECT_LT(mean, 0.25);
  for (std::int64_t i = 0; i < ds.count; ++i) {
    const auto first = ds.images.begin() + i * 784;
    EXPECT_GT(*std::max_element(first, first + 784), 0.6f) << "sample " << i << " has no ink";
    ASSERT_GE(ds.labels[i], 0);
    ASSERT_LT(ds.labels[i], 10);
  }
}

TEST(Synthetic, SameSeedSameDataDifferentSeedDifferentData) {
  const Dataset a = make_synthetic_digits(300, 7);
  const Dataset b = make_synthetic_digits(300, 7);
  const Dataset c = make_synthetic_digits(300, 8);
  EXPECT_EQ(a.images, b.images);
  EXPECT_EQ(a.labels, b.labels);
  EXPECT_NE(a.images, c.images);
  EXPECT_NE(a.labels, c.labels);
}

TEST(Synthetic, SampleDoesNotDependOnCount) {
  const Dataset small = make_synthetic_digits(25, 3);
  const Dataset large = make_synthetic_digits(200, 3);
  EXPECT_TRUE(std::equal(small.images.begin(), small.images.end(), large.images.begin()));
  EXPECT_TRUE(std::equal(small.labels.begin(), small.labels.end(), large.labels.begin()));
}

TEST(Synthetic, ClassesAreBalancedAndShuffled) {
  for (const std::int64_t n : {1000, 1007}) {
    const Dataset ds = make_synthetic_digits(n, 11);
    std::array<int, 10> counts{};
    for (const auto l : ds.labels) ++counts[static_cast<std::size_t>(l)];
    for (int d = 0; d < 10; ++d) {
      EXPECT_GE(counts[d], n / 10) << "digit " << d;
      EXPECT_LE(counts[d], n / 10 + 1) << "digit " << d;
    }
  }
  const Dataset ds = make_synthetic_digits(100, 11);
  int in_order = 0;  // labels are not simply 0,1,2,...,9,0,1,...
  for (int i = 0; i < 100; ++i) in_order += ds.labels[i] == i % 10;
  EXPECT_LT(in_order, 50);
}

TEST(Synthetic, RefusesBadCounts) {
  EXPECT_THROW(make_synthetic_digits(0, 1), DatasetError);
  EXPECT_THROW(make_synthetic_digits(-5, 1), DatasetError);
  EXPECT_THROW(make_synthetic_digits(kSyntheticMaxCount + 1, 1), DatasetError);
}

// Learnability proxy: a nearest-class-mean classifier fitted on one half and tested on the other
// does far better than chance (10 %), so there is signal, but far from perfectly, so a model has
// something to learn. (The same classifier scores about 81 % on the 10 000 MNIST digits.)
TEST(Synthetic, NearestCentroidIsFarAboveChanceButNotPerfect) {
  const std::int64_t n = 4000, half = n / 2, px = 28 * 28;
  const Dataset ds = make_synthetic_digits(n, 2024);
  std::vector<double> centroid(10 * px, 0.0);
  std::array<int, 10> counts{};
  for (std::int64_t i = 0; i < half; ++i) {
    const auto c = static_cast<std::size_t>(ds.labels[i]);
    ++counts[c];
    for (std::int64_t k = 0; k < px; ++k) centroid[c * px + k] += ds.images[i * px + k];
  }
  for (std::size_t c = 0; c < 10; ++c)
    for (std::int64_t k = 0; k < px; ++k) centroid[c * px + k] /= counts[c];
  int correct = 0;
  for (std::int64_t i = half; i < n; ++i) {
    int best = 0;
    double best_distance = 1e300;
    for (int c = 0; c < 10; ++c) {
      double d = 0;
      for (std::int64_t k = 0; k < px; ++k) {
        const double e = ds.images[i * px + k] - centroid[c * px + k];
        d += e * e;
      }
      if (d < best_distance) {
        best_distance = d;
        best = c;
      }
    }
    correct += best == ds.labels[i];
  }
  const double accuracy = static_cast<double>(correct) / static_cast<double>(n - half);
  RecordProperty("nearest_centroid_accuracy", std::to_string(accuracy));
  EXPECT_GT(accuracy, 0.55);
  EXPECT_LT(accuracy, 0.95);
}

}  // namespace
}  // namespace ts
