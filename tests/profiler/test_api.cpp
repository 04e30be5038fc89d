// The public header: zone object size, categories, the disabled build.
#include <gtest/gtest.h>

#include "tests/profiler/disabled_tu.hpp"
#include "trainscope/trace.hpp"

namespace {

using ts::trace::Category;

TEST(Api, ZoneObjectsAreSmall) {
  EXPECT_EQ(sizeof(ts::trace::Zone), 16u);  // the site pointer and the start timestamp
  EXPECT_LE(sizeof(ts::trace::ZoneArgs), 48u);
}

TEST(Api, SiteMetadataIsConstexprPerCallSite) {
  static constexpr ts::trace::Site site{"x", TS_CATEGORY_(kernel), __FILE__, __LINE__};
  static_assert(site.category == Category::kernel);
  static_assert(TS_CATEGORY_(Category::h2d) == Category::h2d);
  static_assert(TS_CATEGORY_(ts::trace::Category::sync) == Category::sync);
  SUCCEED();
}

TEST(Api, CategoryNamesRoundTrip) {
  for (int i = 0; i < ts::trace::kCategoryCount; ++i) {
    const auto c = static_cast<Category>(i);
    EXPECT_EQ(ts::trace::category_from_name(ts::trace::category_name(c)), c);
  }
  EXPECT_EQ(ts::trace::category_name(Category::input_wait), "input_wait");
  EXPECT_FALSE(ts::trace::category_from_name("gpu").has_value());
}

TEST(Api, DisabledBuildExpandsEveryMacroToNothing) {
  for (const std::string& e : ts::test::disabled_expansions())
    EXPECT_TRUE(e.empty() || e == "static_cast<void>(0)") << e;
  EXPECT_EQ(ts::test::run_disabled_instrumentation(10), 0) << "macro arguments were evaluated";
}

TEST(Api, ZonesAreInertWithoutASession) {
  ASSERT_FALSE(ts::trace::recording());
  TS_ZONE("no session", other);
  TS_COUNTER("no session counter", 1);
  ts::trace::device_event(1, Category::kernel, 1, 0, 10);
  SUCCEED();
}

}  // namespace
