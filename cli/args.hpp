// Command-line flags: "--name value" or "--name=value", plus bare switches. Every flag a
// command reads is consumed; finish() rejects whatever is left, so typos fail loudly.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace ts::cli {

// Bad usage: the message is one sentence for stderr; the command exits with status 2.
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(std::string command, std::vector<std::string> words);

  const std::string& command() const { return command_; }

  // The value of --name, or nullopt when absent. Throws UsageError when the flag is last and
  // has no value.
  std::optional<std::string> value(const std::string& name);
  std::string text(const std::string& name, const std::string& fallback);
  // Integer in [min, max]; a non-number or out-of-range value is a UsageError naming the flag.
  std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t min,
                       std::int64_t max);
  // A finite real number > min_exclusive (inf and nan are refused).
  double real(const std::string& name, double fallback, double min_exclusive);
  // Real number in [min, max], or nullopt when the flag is absent (max: the largest double for
  // no upper bound).
  std::optional<double> real_in(const std::string& name, double min, double max);
  // A switch without value (e.g. --quiet).
  bool flag(const std::string& name);
  // One of the allowed words.
  std::string choice(const std::string& name, const std::string& fallback,
                     const std::vector<std::string>& allowed);
  // A step range A-B (step numbers, A <= B), or nullopt when absent; anything else is a
  // UsageError naming the flag.
  std::optional<std::pair<std::int64_t, std::int64_t>> step_range(const std::string& name);
  // Positional arguments (words not starting with --), consumed.
  std::vector<std::string> positionals();
  // Throws UsageError for the first word no call consumed.
  void finish() const;

 private:
  struct Word {
    std::string text;
    bool used = false;
  };
  std::string command_;
  std::vector<Word> words_;
};

}  // namespace ts::cli
