// The public header: zone object size, categories, the disabled build.
#include <gtest/gtest.h>

#include <thread>

#include "profiler/capture/core/runtime.hpp"
#include "tests/profiler/disabled_tu.hpp"
#include "trainscope/trace.hpp"

namespace {

using ts::trace::Category;
using ts::trace::TrackKind;

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

// Without a session nothing is buffered: a new thread running every kind of event never gets a
// ring (the first recorded event creates it), and a named zone says it is inactive.
TEST(Api, ZonesAreInertWithoutASession) {
  ASSERT_FALSE(ts::trace::recording());
  bool zone_active = true;
  bool ring_attached = true;
  std::thread([&] {
    {
      TS_STEP(3);
      TS_ZONE("no session", other);
      TS_ZONE_ARGS("no session args", h2d, 64, 1);
      TS_ZONE_VAR(z, "no session var", launch);
      TS_ZONE_BYTES(z, 8);
      zone_active = z.active();
      TS_ZONE_DYNAMIC(ts::trace::intern("no session dynamic"), host_compute);
      TS_COUNTER("no session counter", 1);
      const auto track = ts::trace::register_track("no session counter track", TrackKind::counter);
      ts::trace::counter(track, 2.0);
      ts::trace::device_event(1, Category::kernel, 1, 0, 10);
    }
    ring_attached = ts::trace::core::tl_ring != nullptr;
  }).join();
  EXPECT_FALSE(zone_active);
  EXPECT_FALSE(ring_attached) << "an event was buffered while no session records";
  EXPECT_EQ(ts::trace::current_step(), ts::trace::kNoStep);
}

}  // namespace
