// Overviews (profiler/store/overview.hpp) of traces that do not store theirs — written before
// schema version 4, or by a writer that could not store it — kept once a scan has built them,
// so that only the first opening of such a trace waits for a scan. One file per trace in
// user_cache_dir()/overviews, named by a hash of the trace's absolute path, holding the trace's
// fingerprint (absolute path, size, modification time) and the encoded overview; used only while
// the fingerprint is unchanged. Written under a temporary name and renamed into place.
#pragma once

#include <optional>
#include <string>

#include "profiler/store/overview.hpp"

namespace ts::import {

// The kept overview of `trace`, or nullopt (none kept, the trace changed since, unreadable).
std::optional<store::Overview> cached_overview(const std::string& trace,
                                               const std::string& cache_dir = {});

// Keeps `overview` for `trace`; false when it cannot (no writable cache directory).
bool keep_overview(const std::string& trace, const store::Overview& overview,
                   const std::string& cache_dir = {}) noexcept;

}  // namespace ts::import
