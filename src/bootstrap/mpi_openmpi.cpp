// SPDX-License-Identifier: BSD-3-Clause
// The MPI bootstrap for OpenMPI's ABI (handles are pointers to objects in libmpi), compiled against
// OpenMPI's <mpi.h> (Debian: libopenmpi-dev); the library itself is reached at run time (mpi.cpp).
#define OMPI_SKIP_MPICXX 1
#include <dlfcn.h>
#include <mpi.h>

#include <cstdint>
#include <string>

namespace nvshm::boot {
namespace {
constexpr const char *kAbiName = "OpenMPI";
}  // namespace
}  // namespace nvshm::boot

#include "bootstrap/mpi_impl.hpp"

namespace nvshm::boot {
namespace {

// OpenMPI's predefined handles are addresses of objects in libmpi (the header's MPI_COMM_WORLD names
// one, which would make libmpi a link-time dependency). An executable linked with libmpi may hold copies
// of them (copy relocations) that libmpi itself then uses: look them up in the global scope first, as the
// dynamic linker resolved them for libmpi, and in the library only when not found there.
template <class Handle>
Handle ompi_object(void *h, const char *name) {
  void *p = dlsym(RTLD_DEFAULT, name);
  return static_cast<Handle>(p ? p : dlsym(h, name));
}

void set_handles(MpiApi *api, void *h) {
  api->world = ompi_object<MPI_Comm>(h, "ompi_mpi_comm_world");
  api->null = ompi_object<MPI_Comm>(h, "ompi_mpi_comm_null");
  api->byte = ompi_object<MPI_Datatype>(h, "ompi_mpi_byte");
  api->errors_return = ompi_object<MPI_Errhandler>(h, "ompi_mpi_errors_return");
}

bool comm_handle_ok(MPI_Comm comm, const std::string &library, const char *where) {
  if (reinterpret_cast<std::uintptr_t>(comm) >= 4096) return true;
  log_error(where,
            "*attr->mpi_comm is %p, not an OpenMPI communicator (%s is OpenMPI); a small integer is an MPICH-ABI "
            "handle: set NVSHMEM_BOOTSTRAP_MPI_PLUGIN to the application's MPI library",
            static_cast<void *>(comm), library.c_str());
  return false;
}

}  // namespace

Status mpi_create_openmpi(void *h, const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out,
                          const std::string &library) {
  return create_for_abi(h, comm, env, out, library);
}

}  // namespace nvshm::boot
