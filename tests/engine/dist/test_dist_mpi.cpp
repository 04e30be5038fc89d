// The MPI communicator under mpirun -np 2 (Open MPI; as root with --allow-run-as-root): every
// collective (mpi_child.cpp), a failing rank that ends the job instead of leaving the other
// waiting, and the same program without mpirun, which runs as one local rank.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <string>

#include "tests/support/mpirun.hpp"

namespace {

struct Outcome {
  int status = -1;
  std::string out;
  double seconds = 0;
};

Outcome run(const std::string& cmd) {
  Outcome r;
  const auto t0 = std::chrono::steady_clock::now();
  FILE* p = ::popen((cmd + " 2>&1").c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p) != nullptr) r.out += buf;
  const int raw = ::pclose(p);
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 128 + WTERMSIG(raw);
  r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

TEST(MpiCommunicator, EveryCollectiveWorksUnderMpirun) {
  const Outcome r = run(ts::test::mpirun() + "-np 2 " TS_DIST_MPI_CHILD);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("rank 0 ok (mpi, 2 ranks)"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rank 1 ok (mpi, 2 ranks)"), std::string::npos) << r.out;
}

TEST(MpiCommunicator, AFailingRankEndsTheJobInsteadOfLeavingTheOthersWaiting) {
  const Outcome r = run(ts::test::mpirun(120) + "-np 2 " TS_DIST_MPI_CHILD " abort");
  EXPECT_NE(r.status, 0) << r.out;
  EXPECT_NE(r.status, 124) << "the job hung until the timeout:\n" << r.out;
  EXPECT_NE(r.out.find("rank 1: failing now"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("the collective returned"), std::string::npos) << r.out;
  EXPECT_LT(r.seconds, 60) << r.out;
}

TEST(MpiCommunicator, WithoutMpirunTheProgramIsOneLocalRank) {
  const Outcome r = run("env -u OMPI_COMM_WORLD_SIZE -u PMIX_RANK -u PMI_SIZE " TS_DIST_MPI_CHILD);
  EXPECT_EQ(r.status, 0) << r.out;
  EXPECT_NE(r.out.find("rank 0 ok (local, 1 ranks)"), std::string::npos) << r.out;
}

}  // namespace
