// The digests of a source's blocks that an import takes as it reads (source_digests.hpp), and
// the fingerprint made from them (profiler/import_cache/fingerprint.hpp): the same fingerprint
// as one that reads every block itself, whether the file was parsed whole, in parallel parts or
// inflated; a taken block is not read again; a file that is no longer the one read is.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <string>
#include <vector>

#include "import_test_util.hpp"
#include "profiler/import/chrome/parse_file.hpp"
#include "profiler/import/common/source_digests.hpp"
#include "profiler/import_cache/fingerprint.hpp"
#include "profiler/store/content_hash.hpp"

namespace ts::test {
namespace {

constexpr std::uint64_t kBlock = 4096;

// A Kineto trace of about `events` events (about 150 bytes each).
std::string trace_of(int events) {
  std::vector<std::string> list;
  for (int i = 0; i < events; ++i)
    list.push_back(x_event("cpu_op", "aten::op" + std::to_string(i % 7), 1, 1 + i % 3,
                           std::to_string(10 * i), "5", "{\"n\":" + std::to_string(i) + "}"));
  return kineto_trace(list);
}

import::FileIdentity identity_of(const std::string& path){struct stat st{};
EXPECT_EQ(::stat(path.c_str(), &st), 0);
return {st.st_dev, st.st_ino, static_cast<std::uint64_t>(st.st_size)};
}  // namespace

// The hash a fingerprint line gives the file (its last field).
std::string hash_in(const std::string& fingerprint) {
  const std::size_t end = fingerprint.size() - 1;  // the final newline
  return fingerprint.substr(fingerprint.rfind('\t') + 1, end - fingerprint.rfind('\t') - 1);
}

TEST(SourceDigests, AFileHashIsTheHashOfItsBlocksHashes) {
  ImportDir dir;
  const std::string text = trace_of(300);
  const std::string path = dir.write("t.json", text);
  std::vector<std::uint64_t> blocks;
  for (std::size_t at = 0; at < text.size(); at += kBlock)
    blocks.push_back(
        store::content_hash(text.data() + at, std::min<std::size_t>(kBlock, text.size() - at)));
  ASSERT_GT(blocks.size(), 3u);
  const import::SourceDigests none(kBlock);
  char expected[17];
  std::snprintf(expected, sizeof expected, "%016llx",
                static_cast<unsigned long long>(import::file_digest(blocks)));
  const std::string fingerprint = import::source_fingerprint(path, "k", &none);
  EXPECT_EQ(hash_in(fingerprint), expected);
  const std::string size_field = '\t' + std::to_string(text.size()) + '\t';
  EXPECT_NE(fingerprint.find(size_field), std::string::npos);
}

TEST(SourceDigests, ASequentialReadTakesTheBlocksItPassesWhole) {
  const std::string bytes(10 * kBlock + 100, 'x');
  import::FileBlocks blocks(bytes.size(), kBlock);
  // From the start, in pieces of odd sizes: every block, the short last one included.
  import::BlockHashing all(&blocks, 0);
  for (std::size_t at = 0; at < bytes.size(); at += 1000)
    all.add(bytes.data() + at, std::min<std::size_t>(1000, bytes.size() - at));
  EXPECT_EQ(blocks.taken(), 11u);
  EXPECT_EQ(blocks.get(10), store::content_hash(bytes.data() + 10 * kBlock, 100));
  // From inside block 2 to inside block 6: blocks 3, 4 and 5 only.
  import::FileBlocks part(bytes.size(), kBlock);
  import::BlockHashing middle(&part, 2 * kBlock + 7);
  middle.add(bytes.data() + 2 * kBlock + 7, 4 * kBlock);
  EXPECT_EQ(part.taken(), 3u);
  EXPECT_FALSE(part.get(2));
  EXPECT_EQ(part.get(3), store::content_hash(bytes.data() + 3 * kBlock, kBlock));
  EXPECT_FALSE(part.get(6));
}

// A file parsed in parallel parts, one parsed whole, one inflated: their digests give the
// fingerprint a fresh reading gives.
TEST(SourceDigests, TheImportsDigestsGiveTheFingerprintOfAFreshReading) {
  ImportDir dir;
  std::filesystem::create_directory(dir.file("job"));
  const std::string text = trace_of(2000);
  const std::string plain = dir.write("job/rank0.json", text);
  dir.write("job/rank1.json", trace_of(300));
  dir.write_gz("job/rank2.json.gz", trace_of(900));
  import::SourceDigests taken(kBlock);
  // Parts of at least 40 KiB: the cuts fall inside blocks, which the parts leave untaken.
  const import::ParsedFile parts =
      import::parse_file(plain, 3, 40 << 10, import::ElementReading::scan_plain, &taken);
  EXPECT_EQ(parts.end, import::ParseEnd::complete);
  import::parse_file(dir.file("job/rank1.json"), 1, import::kMinPartBytes,
                     import::ElementReading::scan_plain, &taken);
  import::parse_file(dir.file("job/rank2.json.gz"), 1, import::kMinPartBytes,
                     import::ElementReading::scan_plain, &taken);
  const import::FileBlocks* blocks = taken.find(identity_of(plain));
  ASSERT_NE(blocks, nullptr);
  EXPECT_GE(blocks->taken(), blocks->count() - 2);
  EXPECT_LT(blocks->taken(), blocks->count());  // parsed in parts: the cuts' blocks are not
  const import::FileBlocks* inflated = taken.find(identity_of(dir.file("job/rank2.json.gz")));
  ASSERT_NE(inflated, nullptr);
  EXPECT_EQ(inflated->taken(), inflated->count());  // its compressed bytes, read whole

  const import::SourceDigests none(kBlock);
  const std::string fresh = import::source_fingerprint(dir.file("job"), "k", &none);
  ASSERT_NE(fresh, "");
  EXPECT_EQ(import::source_fingerprint(dir.file("job"), "k", &taken), fresh);
}

// The fingerprint uses a taken block as it is, and reads the file again once it is another.
TEST(SourceDigests, ATakenBlockIsNotReadAgainUnlessTheFileChanged) {
  ImportDir dir;
  const std::string path = dir.write("t.json", trace_of(200));
  const import::SourceDigests none(kBlock);
  const std::string fresh = import::source_fingerprint(path, "k", &none);
  import::SourceDigests taken(kBlock);
  taken.of(identity_of(path)).put(1, 12345);  // not block 1's digest
  EXPECT_NE(import::source_fingerprint(path, "k", &taken), fresh);

  dir.write("t.json", trace_of(201));  // another size: another file
  const std::string changed = import::source_fingerprint(path, "k", &none);
  EXPECT_NE(changed, fresh);
  EXPECT_EQ(import::source_fingerprint(path, "k", &taken), changed);
}

// A source of many blocks (hashed on several threads) is fingerprinted the same every time, and
// one byte changed anywhere changes it.
TEST(SourceDigests, OneByteChangedInAnyBlockChangesTheFingerprint) {
  ImportDir dir;
  std::string text = trace_of(3000);
  const std::string path = dir.write("t.json", text);
  const import::SourceDigests none(kBlock);
  const std::string fresh = import::source_fingerprint(path, "k", &none);
  EXPECT_EQ(import::source_fingerprint(path, "k", &none), fresh);
  for (const std::size_t at : {std::size_t{100}, text.size() / 2, text.size() - 10}) {
    std::string other = text;
    other[at] = other[at] == '1' ? '2' : '1';
    dir.write("t.json", other);
    EXPECT_NE(import::source_fingerprint(path, "k", &none), fresh) << at;
  }
}

}  // namespace ts::test
}  // namespace ts::test
