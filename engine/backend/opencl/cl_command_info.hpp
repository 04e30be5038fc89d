// What a device command is, as the trace names it: category, name, bytes moved, work size.
#pragma once

#include <cstdint>
#include <string_view>

namespace ts::ocl {

enum class CommandCategory : std::uint8_t { kernel, h2d, d2h };

struct CommandInfo {
  CommandCategory category = CommandCategory::kernel;
  std::string_view name;         // kernel or routine name; "upload", "download", "copy"
  std::uint64_t bytes = 0;       // copies: bytes moved
  std::uint64_t work_items = 0;  // kernels: total global work size
};

}  // namespace ts::ocl
