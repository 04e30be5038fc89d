// The command table is the one source of the help texts: `trainscope --help`, each command's
// --help and the unknown-command message all come from it, and the README names every command.
#include <gtest/gtest.h>

#include <string>

#include "cli/commands.hpp"
#include "run_command.hpp"

namespace ts::cli {
namespace {

TEST(Commands, EachHasItsUsageLineAndASummaryInTheOverview) {
  const std::string overview = usage();
  ASSERT_GE(commands().size(), 11u);
  for (const Command& c : commands()) {
    const std::string name = c.name;
    EXPECT_EQ(find_command(name), &c);
    EXPECT_EQ(help_text(c).rfind("usage: trainscope " + name, 0), 0u) << help_text(c);
    EXPECT_NE(overview.find("  " + name + " "), std::string::npos) << name;
    EXPECT_NE(overview.find(std::string(c.summary) + "\n"), std::string::npos) << name;
  }
  EXPECT_EQ(find_command("nope"), nullptr);
  EXPECT_NE(help_text(*find_command("report")).find("--steps A-B"), std::string::npos);
  EXPECT_NE(help_text(*find_command("report")).find("--step-marker"), std::string::npos);
  EXPECT_EQ(help_text(*find_command("export")).find("--steps A-B"), std::string::npos);
}

TEST(Commands, TheProgramPrintsTheTable) {
  EXPECT_EQ(test::run_trainscope("--help").out, usage());
  for (const Command& c : commands()) {
    const auto r = test::run_trainscope(std::string(c.name) + " --help");
    EXPECT_EQ(r.status, 0) << c.name << ": " << r.err;
    EXPECT_EQ(r.out, help_text(c)) << c.name;
  }
  const auto unknown = test::run_trainscope("nope");
  EXPECT_EQ(unknown.status, 2);
  for (const Command& c : commands())
    EXPECT_NE(unknown.err.find(c.name), std::string::npos) << c.name << ": " << unknown.err;
}

TEST(Commands, TheVersionIsTheProjectVersion) {
  const auto r = test::run_trainscope("--version");
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, "trainscope " TRAINSCOPE_VERSION "\n");
  EXPECT_NE(std::string(TRAINSCOPE_VERSION).find('.'), std::string::npos) << TRAINSCOPE_VERSION;
}

TEST(Commands, TheReadmeNamesEveryCommand) {
  const std::string readme = test::read_file("README.md");
  for (const Command& c : commands())
    EXPECT_NE(readme.find("trainscope " + std::string(c.name)), std::string::npos)
        << "README.md does not mention 'trainscope " << c.name << "'";
}

}  // namespace
}  // namespace ts::cli
