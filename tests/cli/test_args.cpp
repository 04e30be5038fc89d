#include <gtest/gtest.h>

#include <limits>

#include "cli/args.hpp"

namespace ts::cli {
namespace {

TEST(Args, ValuesInBothFormsAndSwitches) {
  Args a("train", {"--epochs", "3", "--model=cnn", "--quiet"});
  EXPECT_EQ(a.integer("epochs", 5, 1, 10), 3);
  EXPECT_EQ(a.choice("model", "mlp", {"mlp", "cnn"}), "cnn");
  EXPECT_TRUE(a.flag("quiet"));
  EXPECT_EQ(a.text("dataset", "synthetic"), "synthetic");
  EXPECT_NO_THROW(a.finish());
}

TEST(Args, UnknownFlagIsNamed) {
  Args a("train", {"--epochs", "3", "--bogus", "1"});
  a.integer("epochs", 5, 1, 10);
  try {
    a.finish();
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--bogus"), std::string::npos);
  }
}

TEST(Args, BadNumbersAndRangesAndChoices) {
  Args a("train", {"--epochs", "three", "--batch", "0", "--lr", "-1", "--model", "rnn"});
  EXPECT_THROW(a.integer("epochs", 5, 1, 10), UsageError);
  EXPECT_THROW(a.integer("batch", 32, 1, 100), UsageError);
  EXPECT_THROW(a.real("lr", 0.001, 0.0), UsageError);
  EXPECT_THROW(a.choice("model", "mlp", {"mlp", "cnn"}), UsageError);
  Args missing("train", {"--epochs"});
  EXPECT_THROW(missing.integer("epochs", 5, 1, 10), UsageError);
}

TEST(Args, OptionalRealsInARange) {
  Args a("check", {"--max-input-pct", "5.5", "--max-device-idle-pct=0", "--price", "-1", "--pct",
                   "abc", "--big", "1e400", "--nan", "nan"});
  EXPECT_EQ(a.real_in("max-input-pct", 0, 100), 5.5);
  EXPECT_EQ(a.real_in("max-device-idle-pct", 0, 100), 0.0);
  EXPECT_EQ(a.real_in("absent", 0, 100), std::nullopt);
  try {
    a.real_in("price", 0, std::numeric_limits<double>::max());
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--price must be 0 or more, not -1");
  }
  try {
    a.real_in("pct", 0, 100);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_EQ(std::string(e.what()), "--pct expects a number, not 'abc'");
  }
  EXPECT_THROW(a.real_in("big", 0, 100), UsageError);
  EXPECT_THROW(a.real_in("nan", 0, 100), UsageError);
  EXPECT_NO_THROW(a.finish());
}

TEST(Args, PositionalsAfterFlagValuesAreConsumed) {
  Args a("check", {"run.db", "--baseline", "base.db", "--junit=out.xml"});
  EXPECT_EQ(a.value("baseline"), "base.db");
  EXPECT_EQ(a.value("junit"), "out.xml");
  EXPECT_EQ(a.positionals(), std::vector<std::string>{"run.db"});
  EXPECT_NO_THROW(a.finish());
}

}  // namespace
}  // namespace ts::cli
