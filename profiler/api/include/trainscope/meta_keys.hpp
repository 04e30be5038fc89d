// The keys of a trace's meta table, named once: every writer and reader of the project uses
// these. What each value means, and the keys made per rank, device or reason
// ("rank.<r>.<key>", "clock.device.<device>.*", "import.skipped.<reason>"), are documented in
// traces/README.md ("meta keys").
#pragma once

namespace ts::meta_key {

// The writer and the traced process.
inline constexpr const char* kProcessCommandLine = "process.command_line";
inline constexpr const char* kProcessPid = "process.pid";
inline constexpr const char* kSchemaVersion = "schema_version";
inline constexpr const char* kTrainscopeVersion = "trainscope_version";

// The capture: how it started, stopped and what it stored or lost.
inline constexpr const char* kCaptureEndNs = "capture.end_ns";
inline constexpr const char* kCaptureEventsLost = "capture.events_lost";
inline constexpr const char* kCaptureEventsMoved = "capture.events_moved";
inline constexpr const char* kCaptureEventsWritten = "capture.events_written";
inline constexpr const char* kCaptureIndexMs = "capture.index_ms";
inline constexpr const char* kCaptureRingEvents = "capture.ring_events";
// "off" when the session recorded no device events (SessionOptions::device_events); absent: on.
inline constexpr const char* kCaptureDeviceEvents = "capture.device_events";
// K when the session recorded device events on one step in K (SessionOptions::
// device_event_every); absent: every step.
inline constexpr const char* kCaptureDeviceEventEvery = "capture.device_event_every";
// The host time one device event costs, in ns per command, as the device backend measured it
// when the session started (OpenCL: markers with and without a profiling event).
inline constexpr const char* kCaptureDeviceEventCostNs = "capture.device_event_cost_ns";
// "first-last" when the session recorded only those steps (SessionOptions::steps).
inline constexpr const char* kCaptureSteps = "capture.steps";
inline constexpr const char* kCaptureWriteError = "capture.write_error";

// Clocks: the origin of the trace, the host clock source and its calibration, alignment.
inline constexpr const char* kClockAlignment = "clock.alignment";
inline constexpr const char* kClockHostDriftNs = "clock.host_drift_ns";
inline constexpr const char* kClockOriginNs = "clock.origin_ns";
inline constexpr const char* kClockSource = "clock.source";
inline constexpr const char* kClockTscHz = "clock.tsc_hz";
inline constexpr const char* kClockTscUnusedBecause = "clock.tsc_unused_because";

// Events lost to full buffers.
inline constexpr const char* kDroppedEvents = "dropped_events";

// The store: the origin of event keys (profiler/store/event_key.hpp), and events the writer could
// not key (a start more than about 39 hours from that origin).
inline constexpr const char* kEventKeyOriginNs = "event.key_origin_ns";
inline constexpr const char* kEventsOutOfKeyRange = "event.out_of_key_range";

// The run, as `trainscope train` and the backends record it.
inline constexpr const char* kDeviceOpenclComputeUnits = "device.opencl.compute_units";
// "yes" when the device has f16 arithmetic (cl_khr_fp16), else "no".
inline constexpr const char* kDeviceOpenclFp16 = "device.opencl.fp16";
inline constexpr const char* kDeviceOpenclGlobalMemoryBytes = "device.opencl.global_memory_bytes";
inline constexpr const char* kDeviceOpenclName = "device.opencl.name";
inline constexpr const char* kDeviceOpenclPlatform = "device.opencl.platform";
inline constexpr const char* kDeviceOpenclType = "device.opencl.type";
inline constexpr const char* kDeviceOpenclVersion = "device.opencl.version";
inline constexpr const char* kEngineBackend = "engine.backend";
inline constexpr const char* kEngineBatch = "engine.batch";
inline constexpr const char* kEngineDevice = "engine.device";
inline constexpr const char* kEngineModel = "engine.model";
// The CPU backend's compute threads (the host's cores it computes on); absent on OpenCL.
inline constexpr const char* kEngineCpuThreads = "engine.cpu_threads";
inline constexpr const char* kFitEpochFirstSteps = "fit.epoch_first_steps";
inline constexpr const char* kFitSamplesPerS = "fit.samples_per_s";
inline constexpr const char* kFitSteps = "fit.steps";
// The mean loss per sample over the fit's last 32 steps (FitResult::recent_loss).
inline constexpr const char* kFitRecentLoss = "fit.recent_loss";
// The samples one epoch trains on: the dataset's, or this rank's shard of it.
inline constexpr const char* kFitEpochSamples = "fit.epoch_samples";
inline constexpr const char* kHostCores = "host.cores";
// The host's physical memory in bytes (the CPU backend's "device" memory).
inline constexpr const char* kHostMemoryBytes = "host.memory_bytes";
inline constexpr const char* kPipelineCache = "pipeline.cache";
inline constexpr const char* kPipelineOptions = "pipeline.options";
inline constexpr const char* kPipelineParallel = "pipeline.parallel";
inline constexpr const char* kPipelinePrefetch = "pipeline.prefetch";

// How an imported trace's steps were found, and which threads the analysis counts as the trainer.
inline constexpr const char* kAnalysisTrainerTracks = "analysis.trainer_tracks";
inline constexpr const char* kStepsSource = "steps.source";

// Imports: the format and sources read, what was skipped and why.
inline constexpr const char* kImportBytes = "import.bytes";
inline constexpr const char* kImportDisplayTimeUnit = "import.display_time_unit";
inline constexpr const char* kImportDistributedBackend = "import.distributed_backend";
inline constexpr const char* kImportError = "import.error";
inline constexpr const char* kImportEvents = "import.events";
inline constexpr const char* kImportEventsRead = "import.events_read";
inline constexpr const char* kImportFormat = "import.format";
inline constexpr const char* kImportHosts = "import.hosts";
inline constexpr const char* kImportProcesses = "import.processes";
inline constexpr const char* kImportProfilerErrors = "import.profiler_errors";
inline constexpr const char* kImportProfilerWarnings = "import.profiler_warnings";
inline constexpr const char* kImportRun = "import.run";
inline constexpr const char* kImportSkippedTruncatedFile = "import.skipped.truncated_file";
inline constexpr const char* kImportSource = "import.source";
inline constexpr const char* kImportTraceName = "import.trace_name";
inline constexpr const char* kImportWorldSize = "import.world_size";

// Kernels' achieved occupancy, time-weighted over the kernels that carry it (Kineto's "est.
// achieved occupancy %" arg), in percent.
inline constexpr const char* kKernelsAchievedOccupancyPct = "kernels.achieved_occupancy_pct";

// A data-parallel job and its ranks.
inline constexpr const char* kDistAbsentRanks = "dist.absent_ranks";
inline constexpr const char* kDistFailed = "dist.failed";
inline constexpr const char* kDistJobId = "dist.job_id";
inline constexpr const char* kDistMissingRanks = "dist.missing_ranks";
inline constexpr const char* kDistRank = "dist.rank";
inline constexpr const char* kDistTerminatedNs = "dist.terminated_ns";
inline constexpr const char* kDistWorldSize = "dist.world_size";

// The devices an imported trace describes (Kineto deviceProperties), by device id <d>, the id of
// its "GPU <d> memory allocated" counter: kDeviceGpuPrefix + "<d>" + one of the suffixes below.
inline constexpr const char* kDeviceGpuPrefix = "device.gpu.";
inline constexpr const char* kDeviceGpuNameSuffix = ".name";
inline constexpr const char* kDeviceGpuTotalMemorySuffix = ".total_memory_bytes";  // totalGlobalMem
inline constexpr const char* kDeviceGpuComputeMajorSuffix = ".compute_major";
inline constexpr const char* kDeviceGpuComputeMinorSuffix = ".compute_minor";

}  // namespace ts::meta_key
