// The files a TensorFlow profile import reads. A source is
//   - one <host>.xplane.pb file (or an .xplane.pb.gz copy);
//   - a run directory plugins/profile/<run>/ holding one <host>.xplane.pb per host;
//   - a TensorBoard log directory (holding plugins/profile/<run>/ within a few levels, e.g.
//     logdir/plugins/profile or logdir/train/plugins/profile), or plugins/profile itself: its
//     latest run (runs are named by capture time, %Y_%m_%d_%H_%M_%S, so the greatest name) among
//     those holding profiles, or the run named by ImportOptions::tf_run.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ts::import {

struct XPlaneSource {
  std::string path;  // the .xplane.pb file
  std::string run;   // the run directory's name, when the file came from one
};

// Whether a path is a TensorFlow profile: a file named like one (is_xplane_file_name, whether
// it exists or not: importing it says what is wrong), or a directory holding plugins/profile
// within a few levels (a log directory, even one without runs) or a profile file within 4
// levels. Never throws.
bool is_tensorflow_source(const std::string& path);

// The profile files of the sources, in order (a run's files sorted by name). Throws ImportError
// naming the path for a missing or unreadable path, a directory without profiles, a log
// directory without runs, an unknown or ambiguous run.
std::vector<XPlaneSource> resolve_xplane_sources(std::span<const std::string> sources,
                                                 const std::string& run);

// A profile file's host: its name without ".xplane.pb" (and ".gz"), "" for other names.
std::string host_from_file_name(std::string_view file_name);

bool is_xplane_file_name(std::string_view file_name);  // *.xplane.pb[.gz], *.xplane.riegeli

}  // namespace ts::import
