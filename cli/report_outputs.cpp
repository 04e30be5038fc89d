#include "cli/report_outputs.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

#include "profiler/io/output_file.hpp"
#include "profiler/json/writer.hpp"

namespace ts::cli {

std::optional<std::string> output_flag(Args& args, const std::string& name, bool allow_stdout) {
  auto path = args.value(name);
  if (path && path->empty()) throw UsageError("--" + name + " needs a file name");
  if (path && *path == "-" && !allow_stdout)
    throw UsageError("--" + name + " needs a file name, not -");
  return path;
}

void refuse_overwrite(const std::optional<std::string>& output, const std::string& name,
                      const std::vector<std::string>& inputs) {
  if (!output || *output == "-") return;
  for (const std::string& input : inputs)
    if (io::same_output(input, *output))
      throw UsageError("--" + name + " " + *output + " would overwrite the trace " + input);
}

void write_html(const std::string& path, const std::string& html) {
  io::write_output(
      path, [&](std::ostream& out) { out << html; }, "--html " + path);
}

void write_markdown(const std::string& path, const std::string& markdown) {
  if (path == "-") {
    std::cout << markdown << std::flush;
    return;
  }
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) {
    io::write_output(
        path, [&](std::ostream& out) { out << markdown; }, "--markdown " + path);
    return;
  }
  // An existing summary (a CI job's $GITHUB_STEP_SUMMARY): ours goes after what is there.
  errno = 0;
  std::ofstream out(path, std::ios::app | std::ios::binary);
  if (out && st.st_size > 0) out << "\n";
  out << markdown;
  out.flush();
  if (!out)
    throw json::WriteError("cannot write --markdown " + path + ": " +
                           std::strerror(errno != 0 ? errno : EIO));
}

}  // namespace ts::cli
