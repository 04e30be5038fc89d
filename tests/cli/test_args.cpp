#include <gtest/gtest.h>

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

}  // namespace
}  // namespace ts::cli
