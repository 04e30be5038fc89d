// The import's id maps (profiler/import/chrome/flat_map.hpp) against std::map: the same answers
// for dense ids (an array), thinly spread ones (a hash table), repeated and extreme keys.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <utility>
#include <vector>

#include "profiler/import/chrome/flat_map.hpp"

namespace ts::import {
namespace {

using Pairs = std::vector<std::pair<std::int64_t, std::int64_t>>;

void expect_as_map(const Pairs& pairs, const std::vector<std::int64_t>& probes) {
  std::map<std::int64_t, std::int64_t> want;
  for (const auto& [k, v] : pairs) want[k] = v;  // the last value of a repeated key
  const DenseIdMap<std::int64_t> got(pairs);
  for (const std::int64_t k : probes) {
    const std::int64_t* v = got.find(k);
    const auto it = want.find(k);
    ASSERT_EQ(v != nullptr, it != want.end()) << "key " << k;
    if (v != nullptr) {
      EXPECT_EQ(*v, it->second) << "key " << k;
    }
  }
}

TEST(DenseIdMap, AnswersAsAMapWhateverTheSpreadOfItsKeys) {
  std::mt19937_64 rng(3);
  for (const std::int64_t spread : {1, 2, 4, 5, 100, 1000000}) {
    Pairs pairs;
    std::vector<std::int64_t> probes;
    const std::int64_t base = static_cast<std::int64_t>(rng() % 1000) - 500;
    for (int i = 0; i < 3000; ++i) {
      const std::int64_t key = base + static_cast<std::int64_t>(rng() % (3000 * spread));
      pairs.emplace_back(key, static_cast<std::int64_t>(rng()));
      probes.push_back(key);
      probes.push_back(key + 1);
    }
    for (std::int64_t k = base - 3; k < base + 50; ++k) probes.push_back(k);
    expect_as_map(pairs, probes);
  }
}

TEST(DenseIdMap, TakesExtremeKeysAndNoKeys) {
  expect_as_map({}, {0, 1, -1});
  expect_as_map({{INT64_MIN, 1}, {INT64_MAX, 2}, {0, 3}}, {INT64_MIN, INT64_MAX, 0, 1, -1});
  expect_as_map({{INT64_MAX - 1, 1}, {INT64_MAX, 2}},
                {INT64_MAX - 2, INT64_MAX - 1, INT64_MAX, INT64_MIN});
  expect_as_map({{INT64_MIN, 1}, {INT64_MIN + 1, 2}}, {INT64_MIN, INT64_MIN + 1, INT64_MAX});
  expect_as_map({{7, 1}, {7, 2}, {8, 3}, {7, 4}}, {6, 7, 8, 9});  // the last value of 7 is 4
}

// Dense ids with strays far from them (a 0, ids of another base): both kinds are found.
TEST(DenseIdMap, FindsDenseIdsAndStraysAlike) {
  Pairs pairs{{0, -1}};
  const std::int64_t base = std::int64_t{5} << 32;
  for (std::int64_t i = 1; i <= 5000; ++i) pairs.emplace_back(base + i, i);
  pairs.emplace_back(-base, -2);
  pairs.emplace_back(INT64_MAX, -3);
  std::vector<std::int64_t> probes{0, 1, -1, -base, INT64_MAX, INT64_MIN, base, base + 5001};
  for (std::int64_t i = 1; i <= 5000; i += 7) probes.push_back(base + i);
  expect_as_map(pairs, probes);
}

}  // namespace
}  // namespace ts::import
