// Hundreds of byte-mutated copies of the sample traces through everything the trace commands do
// in process — open, analyse, format as text and JSON, export as Chrome JSON. Each copy either
// works or fails with store::Error; anything else (another exception, a crash, a sanitizer
// report) fails the test.
#include <gtest/gtest.h>

#include <cstdlib>
#include <random>
#include <sstream>

#include "profiler/analysis/report.hpp"
#include "profiler/io/chrome_trace.hpp"
#include "profiler/store/reader.hpp"
#include "tests/profiler/test_util.hpp"

namespace ts::test {
namespace {

// Runs the whole read path; returns whether it worked (false: a store::Error).
bool read_all(const std::string& path) {
  try {
    store::Reader reader(path);
    const analysis::Report report = analysis::analyse(reader);
    analysis::to_json(report);
    analysis::to_text(report);
    analysis::verdict_sentence(report);
    std::ostringstream out;
    io::write_chrome_trace(reader, out);
    return true;
  } catch (const store::Error& e) {
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
    return false;
  }
}

// One mutation of `bytes`: flipped bits, random bytes or a random run, chosen by `round`, aimed
// anywhere or (every other round) at the first pages, where the schema and tree roots live.
std::string mutate(const std::string& bytes, int round, std::mt19937& rng) {
  std::string bad = bytes;
  const std::size_t span = round % 2 == 0 ? std::min<std::size_t>(bad.size(), 16384) : bad.size();
  const auto at = [&] { return static_cast<std::size_t>(rng() % span); };
  switch (round % 3) {
    case 0:  // a few flipped bits
      for (int i = 0, n = 1 + static_cast<int>(rng() % 4); i < n; ++i)
        bad[at()] ^= static_cast<char>(1u << (rng() % 8));
      break;
    case 1:  // random bytes
      for (int i = 0, n = 1 + static_cast<int>(rng() % 32); i < n; ++i)
        bad[at()] = static_cast<char>(rng());
      break;
    default: {  // a run of one value (0x00, 0xff or random), as a torn write leaves
      const std::size_t start = at();
      const std::size_t len = std::min<std::size_t>(1 + rng() % 512, bad.size() - start);
      const char v = rng() % 3 == 0 ? '\0' : rng() % 2 ? '\xff' : static_cast<char>(rng());
      bad.replace(start, len, len, v);
    }
  }
  return bad;
}

class MutatedTraces : public ::testing::TestWithParam<std::string> {};

TEST_P(MutatedTraces, EitherWorkOrThrowStoreError) {
  const std::string original = "traces/" + GetParam() + ".db";
  const std::string bytes = read_file(original);
  ASSERT_GT(bytes.size(), 16384u) << original;
  ASSERT_TRUE(read_all(original));
  TempDir dir;
  std::mt19937 rng(20240601u + static_cast<unsigned>(bytes.size()));
  int worked = 0, refused = 0;
  // TS_FUZZ_ROUNDS=N runs longer (or shorter) than the default 200 mutations per trace.
  const char* env = std::getenv("TS_FUZZ_ROUNDS");
  const int rounds = env != nullptr && std::atoi(env) > 0 ? std::atoi(env) : 200;
  for (int round = 0; round < rounds; ++round) {
    const std::string path = dir.file("mutated_" + std::to_string(round) + ".db");
    write_file(path, mutate(bytes, round, rng));
    try {
      (read_all(path) ? worked : refused)++;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "round " << round << ": not a store::Error: " << e.what();
    }
    std::remove(path.c_str());
  }
  // Both outcomes occur: the mutations reach data that SQLite checks and data it cannot.
  EXPECT_GT(worked, 0);
  EXPECT_GT(refused, 0);
  std::cout << GetParam() << ": " << worked << " mutated copies read, " << refused
            << " refused with store::Error\n";
}

INSTANTIATE_TEST_SUITE_P(SampleTraces, MutatedTraces,
                         ::testing::Values("input_bound", "tuned", "opencl"),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace ts::test
