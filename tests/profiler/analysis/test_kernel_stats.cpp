// Kernel statistics by name over labels.
#include <gtest/gtest.h>

#include "profiler/analysis/kernel_stats.hpp"

namespace {

namespace a = ts::analysis;

std::string_view name_of(std::uint32_t label) {
  switch (label) {
    case 1:
    case 3:
      return "gemm";  // two labels, one name (two call sites)
    case 2:
      return "relu";
    case 4:
      return "bias";
    default:
      return "add";
  }
}

TEST(KernelStats, PerNameCountTotalMeanMinMaxShare) {
  a::KernelTable t;
  t.add(1, 10);
  t.add(2, 40);
  t.add(1, 30);
  t.add(3, 20);
  const auto k = t.finish(name_of);
  ASSERT_EQ(k.size(), 2u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[0].count, 3);
  EXPECT_EQ(k[0].total_ns, 60);
  EXPECT_EQ(k[0].mean_ns, 20);
  EXPECT_EQ(k[0].min_ns, 10);
  EXPECT_EQ(k[0].max_ns, 30);
  EXPECT_DOUBLE_EQ(k[0].share_pct, 60.0);
  EXPECT_EQ(k[1].name, "relu");
  EXPECT_EQ(k[1].count, 1);
  EXPECT_DOUBLE_EQ(k[1].share_pct, 40.0);
}

TEST(KernelStats, TiesAreOrderedByNameAndTablesMerge) {
  a::KernelTable first, second;
  first.add(4, 5);
  second.add(5, 5);
  second.add(1, 7);
  first.merge(second);
  const auto k = first.finish(name_of);
  ASSERT_EQ(k.size(), 3u);
  EXPECT_EQ(k[0].name, "gemm");
  EXPECT_EQ(k[1].name, "add");  // 5 ns each: by name
  EXPECT_EQ(k[2].name, "bias");
  EXPECT_TRUE(a::KernelTable().finish(name_of).empty());
}

}  // namespace
