// Colours and human names for event categories, breakdown parts and idle causes. Parts and
// categories share colours (device compute = kernels, input wait is the one loud red), so the
// overview chart, the tables and the timeline read as one picture.
#pragma once

#include <QColor>
#include <QString>

#include "profiler/analysis/report.hpp"
#include "trainscope/taxonomy.hpp"

namespace ts::gui {

QColor category_color(trace::Category c);
QColor part_color(analysis::Part p);
QColor idle_cause_color(analysis::IdleCause c);
// A step's input class (analysis::StepSummary::input_verdict), the same in the overview's marks,
// the timeline's step lane and the steps table: high the input-wait red, moderate orange; none
// the plain step colour. The row tint of the tables is its faint version.
QColor input_class_color(analysis::Verdict v);
QColor input_class_tint(analysis::Verdict v);
// "highly input-bound", "moderately input-bound", "" for none.
QString input_class_label(analysis::Verdict v);
// Black or white, whichever reads better on `background`.
QColor text_color_on(const QColor& background);

// "device compute", "host→device copy", "input wait", ...
QString part_label(analysis::Part p);
// A part that device events record (device compute, collective, the copies): unknown in a step
// without them (a capture with device events on a sample of steps).
bool device_part(analysis::Part p);
// "waiting for input", "host-bound", "synchronisation", "other"
QString idle_cause_label(analysis::IdleCause c);
// The category as the trace names it: "kernel", "input_wait", "host_compute", ...
QString category_label(trace::Category c);

}  // namespace ts::gui
