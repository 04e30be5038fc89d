// What the viewer takes from a trace's meta table (trainscope/meta_keys.hpp), so that no
// widget reads the store's keys: whether the capture writing it is still running, and where its
// epochs start.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "profiler/store/reader.hpp"

namespace ts::gui {

// True while the capture writing the trace has not finished (no capture.end_ns yet, and no
// overview: every finished trace, a synthetic one or an import too, stores one): the viewer then
// re-reads the file as it grows (live mode).
bool capture_in_progress(const store::Reader& reader);

// The step number each epoch starts at, ascending (fit.epoch_first_steps, read as the analysis
// reads it); empty when the trace records no epochs.
std::vector<std::int64_t> epoch_first_steps(const store::Reader& reader);

// The memory a memory counter's device has, in bytes, or 0 when the meta does not say:
// "GPU <d> memory allocated/reserved" (Kineto) -> device.gpu.<d>.total_memory_bytes,
// "device memory <device>" (the OpenCL backend) -> device.opencl.global_memory_bytes of that
// device, "host memory ..." (the CPU backend) -> host.memory_bytes.
double memory_capacity(const store::Reader& reader, const std::string& counter_name);
// memory_capacity() of every counter track that has one, by track id: the timeline draws the
// device's memory as a reference line in the counter's lane.
std::unordered_map<std::uint32_t, double> memory_capacities(const store::Reader& reader);

}  // namespace ts::gui
