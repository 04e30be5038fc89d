// The samples of one counter track, drawn as a step line: the overview's type
// (profiler/store/overview.hpp). Long series are thinned to a bounded number of points that keep
// every bucket's minimum and maximum, so peaks survive and drawing stays cheap.
#pragma once

#include "profiler/store/overview.hpp"

namespace ts::gui {

using store::CounterSeries;
using store::kMaxCounterPoints;
using store::make_counter_series;

}  // namespace ts::gui
