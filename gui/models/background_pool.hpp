// The thread pool for the viewer's long background work (analyses, summary scans). Not Qt's
// global pool: the raster paint engine fills large areas in parallel on that one, so a frame
// painted while an analysis occupied it would wait for the analysis to finish.
#pragma once

#include <QThreadPool>

namespace ts::gui {

// Created on first use, owned by the application object (which waits for its tasks when it
// goes). Use from the GUI thread.
QThreadPool& background_pool();

}  // namespace ts::gui
