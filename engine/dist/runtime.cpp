#include "engine/dist/runtime.hpp"

#include <cstdlib>
#include <memory>

#if defined(TRAINSCOPE_WITH_MPI)
#include "engine/dist/mpi_communicator.hpp"
#endif

namespace ts::dist {

namespace {

std::unique_ptr<Communicator>& world_slot() {
  static std::unique_ptr<Communicator> world;
  return world;
}

}  // namespace

bool built_with_mpi() {
#if defined(TRAINSCOPE_WITH_MPI)
  return true;
#else
  return false;
#endif
}

std::string mpi_launcher_variable() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMIX_RANK", "PMI_SIZE"})
    if (const char* v = std::getenv(name); v != nullptr && *v != '\0') return name;
  return "";
}

Communicator& world(std::string* notice) {
  std::unique_ptr<Communicator>& w = world_slot();
  if (w) return *w;
  const std::string launcher = mpi_launcher_variable();
#if defined(TRAINSCOPE_WITH_MPI)
  (void)notice;
  if (!launcher.empty()) w = make_mpi_communicator();
#else
  if (!launcher.empty() && notice != nullptr)
    *notice = "this trainscope was built without MPI (-DTRAINSCOPE_WITH_MPI=OFF), so under " +
              std::string("an MPI launcher (") + launcher +
              " is set) every copy trains alone, as an independent single-process run";
#endif
  if (!w) w = std::make_unique<LocalCommunicator>();
  return *w;
}

bool is_distributed() {
  const std::unique_ptr<Communicator>& w = world_slot();
  return w && w->size() > 1;
}

void finalize() {
  world_slot().reset();
}

void end_job_after_error(int status, bool agreed) {
  if (agreed || !is_distributed()) return;
  world_slot()->abort(status);
}

}  // namespace ts::dist
