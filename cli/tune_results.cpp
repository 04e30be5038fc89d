#include "cli/tune_results.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "profiler/analysis/figure_format.hpp"
#include "profiler/json/writer.hpp"

namespace ts::cli {

namespace fmt = analysis::fmt;

namespace {

double per_sample_ms(const TuneMeasure& m) {
  return m.batch > 0 ? m.median_step_ms / static_cast<double>(m.batch) : 0;
}

const TuneMeasure* base(const TuneTable& t) {
  return t.rows.empty() || !t.rows[0].measured ? nullptr : &*t.rows[0].measured;
}

// A column: the text padded to `width`, with at least one space after it.
std::string cell(const std::string& text, std::size_t width) {
  return text.size() + 1 >= width ? text + " " : text + std::string(width - text.size(), ' ');
}

// Three significant digits at any size: an epoch of a small job costs a fraction of a cent.
std::string cost_text(double amount, const std::string& currency) {
  return currency + fmt::printf("%.3g", amount);
}

std::string speedup_text(double s) {
  return s > 0 ? fmt::printf("%.2fx", s) : "-";
}

std::string projected_text(const TuneTable& t, const TuneRow& row) {
  using Kind = analysis::ConfigProjection::Kind;
  if (&row == &t.rows.front()) return "-";
  switch (row.projected.kind) {
    case Kind::none:
      return "not projected";
    case Kind::at_most:
      return "<= " + speedup_text(projected_speedup(t, row));
    case Kind::estimate:
      return fmt::ms(row.projected.step_ms) + " " + speedup_text(projected_speedup(t, row));
  }
  return "-";
}

}  // namespace

double measured_speedup(const TuneTable& t, const TuneRow& row) {
  const TuneMeasure* b = base(t);
  if (!b || !row.measured || per_sample_ms(*row.measured) <= 0) return 0;
  return per_sample_ms(*b) / per_sample_ms(*row.measured);
}

double projected_speedup(const TuneTable& t, const TuneRow& row) {
  const TuneMeasure* b = base(t);
  if (!b || row.projected.kind == analysis::ConfigProjection::Kind::none ||
      row.projected.per_sample_ms <= 0)
    return 0;
  return per_sample_ms(*b) / row.projected.per_sample_ms;
}

std::optional<double> projection_miss(const TuneTable& t, const TuneRow& row) {
  const double p = projected_speedup(t, row), m = measured_speedup(t, row);
  if (&row == &t.rows.front() || p <= 0 || m <= 0) return std::nullopt;
  if (row.projected.kind == analysis::ConfigProjection::Kind::at_most)
    return m > p ? (m - p) / m : 0.0;
  return std::abs(p - m) / m;
}

double cost_per_epoch(const TuneTable& t, const TuneMeasure& m) {
  if (m.batch <= 0) return 0;
  const double steps =
      std::ceil(static_cast<double>(m.epoch_samples) / static_cast<double>(m.batch));
  return steps * m.median_step_ms / 3.6e6 * t.price;
}

std::optional<double> run_spread(const TuneMeasure& m) {
  if (m.step_ms.size() < 2 || m.median_step_ms <= 0) return std::nullopt;
  const auto [lo, hi] = std::minmax_element(m.step_ms.begin(), m.step_ms.end());
  return (*hi - *lo) / m.median_step_ms;
}

double table_noise(const TuneTable& t) {
  double noise = 0;
  for (const TuneRow& row : t.rows)
    if (row.measured)
      if (const auto s = run_spread(*row.measured)) noise = std::max(noise, *s);
  return noise;
}

int cheapest_row(const TuneTable& t) {
  int best = -1;
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    const auto& m = t.rows[i].measured;
    if (!m || per_sample_ms(*m) <= 0) continue;
    if (best < 0 ||
        per_sample_ms(*m) < per_sample_ms(*t.rows[static_cast<std::size_t>(best)].measured))
      best = static_cast<int>(i);
  }
  return best;
}

std::string tune_text(const TuneTable& t) {
  std::ostringstream out;
  const TuneMeasure* b = base(t);
  out << "Tuning " << t.model << ": " << t.steps << " steps per run, " << t.repeat
      << (t.repeat == 1 ? " run" : " runs") << " of each configuration (the median is measured)";
  if (b) out << ", on " << b->backend << " (" << b->device << ")";
  out << ", at " << fmt::money(t.price, t.currency) << " per device-hour\n\n";
  out << cell("lever", 17) << cell("change", 22) << cell("projected", 19) << cell("measured", 18)
      << cell("miss", 6) << cell("samples/s", 11) << cell("cost/epoch", 12) << "loss\n";
  for (const TuneRow& row : t.rows) {
    out << cell(row.run.lever, 17) << cell(row.run.change, 22);
    if (!row.measured) {
      out << "failed: " << row.error << "\n";
      continue;
    }
    const TuneMeasure& m = *row.measured;
    const auto miss = projection_miss(t, row);
    const std::string speedup =
        &row == &t.rows.front() ? std::string("1.00x") : speedup_text(measured_speedup(t, row));
    out << cell(projected_text(t, row), 19) << cell(fmt::ms(m.median_step_ms) + " " + speedup, 18)
        << cell(miss ? fmt::printf("%.0f%%", 100 * *miss) : std::string("-"), 6)
        << cell(fmt::count(std::llround(1000.0 * static_cast<double>(m.batch) / m.median_step_ms)),
                11)
        << cell(cost_text(cost_per_epoch(t, m), t.currency), 12) << fmt::printf("%.4f", m.loss)
        << "\n";
  }
  out << "\nprojected: from the first run's trace, per sample against the job as given;"
         " measured: the median run's analysed mean step; loss: the mean of the last 32 steps\n";
  for (const TuneRow& row : t.rows)
    if (&row != &t.rows.front() && !row.projected.how.empty())
      out << "  " << row.run.change << ": " << row.projected.how
          << (row.projected.confidence.empty() ? "" : " (" + row.projected.confidence + ")")
          << "\n";
  // Above this spread between repeats of one configuration the table says the machine was noisy.
  constexpr double kNoisy = 0.10;
  if (const double noise = table_noise(t); noise > kNoisy)
    out << "noise: repeats of one configuration differed by up to "
        << fmt::printf("%.0f%%", 100 * noise)
        << " (the machine's load, a cold first run: not the change); a miss within that is not the"
           " projection's;"
           " measure on a quiet machine or with more --repeat\n";
  const int cheapest = cheapest_row(t);
  if (b && cheapest >= 0) {
    const TuneRow& c = t.rows[static_cast<std::size_t>(cheapest)];
    out << "\nCheapest measured: ";
    if (cheapest == 0) {
      out << "the job as given (" << cost_text(cost_per_epoch(t, *b), t.currency)
          << " per epoch)\n";
    } else {
      out << c.run.change << ", " << speedup_text(measured_speedup(t, c)) << " the samples/s, "
          << cost_text(cost_per_epoch(t, *c.measured), t.currency) << " per epoch against "
          << cost_text(cost_per_epoch(t, *b), t.currency);
      if (c.measured->loss > b->loss * 1.1)
        out << "; its loss after " << t.steps << " steps is higher ("
            << fmt::printf("%.4f against %.4f", c.measured->loss, b->loss)
            << "): check that it trains as well";
      out << "\n";
    }
  }
  if (!t.kept.empty()) out << "Traces kept in " << t.kept << "\n";
  return out.str();
}

std::string tune_json(const TuneTable& t) {
  json::Writer j;
  j.begin_object();
  j.key("model").str(t.model);
  j.key("steps").integer(t.steps);
  j.key("repeat").integer(t.repeat);
  j.key("gpu_hour_price").real(t.price);
  j.key("currency").str(t.currency);
  j.key("runs").begin_array();
  for (const TuneRow& row : t.rows) {
    j.begin_object();
    j.key("lever").str(row.run.lever);
    j.key("change").str(row.run.change);
    j.key("projected").begin_object();
    using Kind = analysis::ConfigProjection::Kind;
    const Kind kind = &row == &t.rows.front() ? Kind::none : row.projected.kind;
    j.key("kind").str(kind == Kind::estimate  ? "estimate"
                      : kind == Kind::at_most ? "at_most"
                                              : "none");
    if (kind != Kind::none) {
      j.key("step_ms").real(row.projected.step_ms);
      j.key("speedup").real(projected_speedup(t, row));
      j.key("confidence").str(row.projected.confidence);
    }
    j.key("how").str(row.projected.how);
    j.end_object();
    if (row.measured) {
      const TuneMeasure& m = *row.measured;
      j.key("measured").begin_object();
      j.key("step_ms").real(m.median_step_ms);
      j.key("step_ms_runs").begin_array();
      for (const double s : m.step_ms) j.real(s);
      j.end_array();
      if (const auto spread = run_spread(m)) j.key("spread").real(*spread);
      j.key("batch").integer(m.batch);
      j.key("speedup").real(&row == &t.rows.front() ? 1.0 : measured_speedup(t, row));
      j.key("samples_per_s").real(1000.0 * static_cast<double>(m.batch) / m.median_step_ms);
      j.key("cost_per_epoch").real(cost_per_epoch(t, m));
      j.key("loss").real(m.loss);
      j.key("backend").str(m.backend);
      j.key("trace").str(t.kept.empty() ? "" : m.trace);
      j.end_object();
      if (const auto miss = projection_miss(t, row)) j.key("miss").real(*miss);
    } else {
      j.key("error").str(row.error);
    }
    j.end_object();
  }
  j.end_array();
  j.key("noise").real(table_noise(t));
  j.key("cheapest").integer(cheapest_row(t));
  j.end_object();
  return j.finish();
}

}  // namespace ts::cli
