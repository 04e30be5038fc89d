// Text from a trace file (names, meta values) made safe for a terminal before a report prints it.
#pragma once

#include <string>
#include <string_view>

namespace ts::analysis {

// Control characters become '?', invalid UTF-8 becomes U+FFFD; valid UTF-8 stays as it is.
std::string printable(std::string_view s);

}  // namespace ts::analysis
