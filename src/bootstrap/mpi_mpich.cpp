// SPDX-License-Identifier: BSD-3-Clause
// The MPI bootstrap for MPICH's ABI (integer handles; also Intel MPI, MVAPICH and Cray MPICH), compiled
// against MPICH's <mpi.h> (Debian: libmpich-dev); the library itself is reached at run time (mpi.cpp).
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <string>

namespace nvshm::boot {
namespace {
constexpr const char *kAbiName = "MPICH";
}  // namespace
}  // namespace nvshm::boot

#include "bootstrap/mpi_impl.hpp"

namespace nvshm::boot {
namespace {

// The predefined handles are constants of the ABI, kept by MPICH's ABI-compatible derivatives.
void set_handles(MpiApi *api, void *) {
  api->world = MPI_COMM_WORLD;
  api->null = MPI_COMM_NULL;
  api->byte = MPI_BYTE;
  api->errors_return = MPI_ERRORS_RETURN;
}

// An MPICH handle of kind "communicator": 2 kind bits (not 0: invalid), then 4 object bits (1: MPI_Comm).
bool comm_handle_ok(MPI_Comm comm, const std::string &library, const char *where) {
  const unsigned u = static_cast<unsigned>(comm);
  if ((u >> 30) != 0 && ((u >> 26) & 0xf) == 1) return true;
  log_error(where,
            "*attr->mpi_comm is 0x%x, not an MPICH communicator handle (%s has the MPICH ABI); was it freed, or "
            "does the application use another MPI library (set NVSHMEM_BOOTSTRAP_MPI_PLUGIN)?",
            u, library.c_str());
  return false;
}

}  // namespace

Status mpi_create_mpich(void *h, const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out,
                        const std::string &library) {
  return create_for_abi(h, comm, env, out, library);
}

}  // namespace nvshm::boot
