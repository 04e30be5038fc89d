// TimeMapping: the time <-> pixel value type of the timeline.
#include <QtTest>

#include "gui/models/time_mapping.hpp"

using ts::gui::TimeMapping;

class TestTimeMapping : public QObject {
  Q_OBJECT

 private slots:
  void shows_the_whole_extent() {
    const TimeMapping m(1000, 11000, 100);
    QCOMPARE(m.ns_per_px(), 100.0);
    QCOMPARE(m.view_begin(), 1000);
    QCOMPARE(m.view_end(), 11000);
    QVERIFY(m.shows_all());
    QCOMPARE(m.x_of(1000), 0.0);
    QCOMPARE(m.x_of(11000), 100.0);
    QCOMPARE(m.ns_at(50), 6000);
  }

  void x_and_ns_are_inverse() {
    TimeMapping m(0, 1'000'000, 800);
    m.zoom_at(123, 7.5);
    for (double x : {0.0, 1.0, 100.5, 799.0})
      QVERIFY(std::abs(m.x_of(m.ns_at(x)) - x) <= 0.5 / m.ns_per_px() + 1e-9);
  }

  void zoom_keeps_the_time_under_the_cursor() {
    TimeMapping m(0, 1'000'000'000, 1000);
    const std::int64_t anchor = m.ns_at(250);
    m.zoom_at(250, 4);
    QCOMPARE(m.ns_per_px(), 250'000.0);
    QCOMPARE(m.ns_at(250), anchor);
    m.zoom_at(900, 3);
    m.zoom_at(900, 1.0 / 3);
    QVERIFY(std::llabs(m.ns_at(250) - anchor) <= 1);
    QVERIFY(!m.shows_all());
  }

  void zoom_is_clamped_at_both_ends() {
    TimeMapping m(0, 1'000'000, 1000);
    m.zoom_at(500, 1e12);
    QCOMPARE(m.ns_per_px(), TimeMapping::kMinNsPerPx);
    m.zoom_at(500, 1e-12);
    QCOMPARE(m.ns_per_px(), 1000.0);  // never wider than the extent
    QVERIFY(m.shows_all());
    m.zoom_at(500, 0);  // nonsense factors change nothing
    m.zoom_at(500, -2);
    QVERIFY(m.shows_all());
  }

  void zooming_out_near_an_edge_stays_inside() {
    TimeMapping m(0, 1'000'000, 1000);
    m.zoom_at(0, 10);  // the first 100 us
    QCOMPARE(m.view_begin(), 0);
    m.zoom_at(1000, 0.5);
    QVERIFY(m.view_begin() >= 0);
    QVERIFY(m.view_end() <= 1'000'000);
  }

  void pan_moves_and_clamps() {
    TimeMapping m(0, 1'000'000, 1000);
    m.show(400'000, 500'000);  // 100 ns/px
    m.pan_px(-100);            // drag left: later time
    QCOMPARE(m.view_begin(), 410'000);
    m.pan_px(1e9);
    QCOMPARE(m.view_begin(), 0);
    m.pan_px(-1e9);
    QCOMPARE(m.view_end(), 1'000'000);
    QCOMPARE(m.view_span_ns(), 100'000.0);
  }

  void show_clamps_to_extent_and_finest_zoom() {
    TimeMapping m(0, 1'000'000, 1000);
    m.show(-500, 2'000'000);
    QVERIFY(m.shows_all());
    m.show(600, 601);  // narrower than the finest zoom: centred at the finest zoom
    QCOMPARE(m.ns_per_px(), TimeMapping::kMinNsPerPx);
    QVERIFY(m.view_begin() <= 600 && m.view_end() >= 601);
    m.show(300, 200);  // reversed
    QCOMPARE(m.view_begin(), 200);
  }

  void width_change_keeps_the_span() {
    TimeMapping m(0, 1'000'000, 1000);
    m.show(100'000, 200'000);
    m.set_width(500);
    QCOMPARE(m.view_begin(), 100'000);
    QCOMPARE(m.view_end(), 200'000);
    QCOMPARE(m.ns_per_px(), 200.0);
  }

  void a_growing_extent_keeps_the_view_or_shows_all() {
    TimeMapping all(0, 1000, 100);
    all.set_extent(0, 5000);
    QVERIFY(all.shows_all());
    QCOMPARE(all.view_end(), 5000);
    TimeMapping part(0, 1000, 100);
    part.show(100, 200);
    part.set_extent(0, 5000);
    QCOMPARE(part.view_begin(), 100);
    QCOMPARE(part.view_end(), 200);
  }

  void nanoseconds_stay_exact_far_from_zero() {
    const std::int64_t t0 = 9'000'000'000'000'000'000;  // a monotonic clock after ~285 years
    TimeMapping m(t0, t0 + 10'000'000'000, 1000);
    m.show(t0 + 5'000'000'123, t0 + 5'000'001'123);  // 1 ns per px
    QCOMPARE(m.view_begin(), t0 + 5'000'000'123);
    QCOMPARE(m.ns_at(10), t0 + 5'000'000'133);
    QCOMPARE(m.x_of(t0 + 5'000'000'623), 500.0);
  }

  void empty_extent_is_safe() {
    TimeMapping m(42, 42, 0);
    QVERIFY(m.ns_per_px() > 0);
    QCOMPARE(m.view_begin(), 42);
    m.zoom_at(0, 2);
    m.pan_px(10);
    QCOMPARE(m.view_begin(), 42);
  }
};

QTEST_APPLESS_MAIN(TestTimeMapping)
#include "test_time_mapping.moc"
