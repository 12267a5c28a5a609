// SPDX-License-Identifier: BSD-3-Clause
// The MPI bootstrap: allgather/barrier over a communicator of the application's MPI library, which we
// reach at run time (dlopen/dlsym) so that libnvshmem_host.so has no link-time MPI dependency.
// MPI_Comm is ABI-specific (OpenMPI: a pointer to a struct; MPICH and its derivatives: an int): this
// file picks the library and reads its ABI; mpi_openmpi.cpp and mpi_mpich.cpp hold the bootstrap of each,
// compiled against that implementation's own <mpi.h> (mpi_impl.hpp).
#include <dlfcn.h>

#include <string>

#include "bootstrap/methods.hpp"
#include "common/dl.hpp"
#include "common/log.hpp"

namespace nvshm::boot {
namespace {

constexpr const char *kDefaultMpiLibrary = "libmpi.so.40";  // OpenMPI 4.x and 5.x

// The bootstrap for the ABI of the library `h`, or a message naming the header this build lacked.
Status create_with_abi(bool openmpi, void *h, const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out,
                       const std::string &library, const char *where) {
#if NVSHM_HAVE_OPENMPI_H
  if (openmpi) return mpi_create_openmpi(h, comm, env, out, library);
#endif
#if NVSHM_HAVE_MPICH_H
  if (!openmpi) return mpi_create_mpich(h, comm, env, out, library);
#endif
  (void)h, (void)comm, (void)env, (void)out;
  const char *abi = openmpi ? "OpenMPI" : "MPICH";
  log_error(where,
            "the MPI library '%s' has the %s ABI, and this build of NVSHMEM has no MPI bootstrap for it: it was "
            "built without %s's <mpi.h> (Debian: %s)",
            library.c_str(), abi, abi, openmpi ? "libopenmpi-dev" : "libmpich-dev");
  return Status::not_supported;
}

}  // namespace

std::string plugin_library(const std::string &value, const char *fallback) {
  if (value.empty()) return fallback;
  std::size_t slash = value.rfind('/');
  std::string base = slash == std::string::npos ? value : value.substr(slash + 1);
  if (base.rfind("nvshmem_bootstrap", 0) == 0) return fallback;  // NVIDIA's plugin name: not a library of ours
  return value;
}

Status mpi_create(const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out) {
  const char *where = comm ? "nvshmemx_init_attr (NVSHMEMX_INIT_WITH_MPI_COMM)" : "nvshmem_init (MPI bootstrap)";
  // The application's own MPI library, when it is linked in (global scope), is the one its communicator
  // belongs to; otherwise the library named by NVSHMEM_BOOTSTRAP_MPI_PLUGIN.
  std::string library;
  void *h = nullptr;
  Dl_info info{};
  if (void *sym = dlsym(RTLD_DEFAULT, "MPI_Comm_dup"); sym && dladdr(sym, &info) && info.dli_fname) {
    h = dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
    if (h) library = info.dli_fname;
  }
  if (!h) {
    library = plugin_library(env.bootstrap_mpi_plugin, kDefaultMpiLibrary);
    h = dl_open(library, where, "MPI",
                "install it (OpenMPI: libopenmpi3) or set NVSHMEM_BOOTSTRAP_MPI_PLUGIN to the application's MPI "
                "library (e.g. libmpich.so.12)");
    if (!h) return Status::not_supported;
  }
  // The library is never closed: MPI libraries do not support being unloaded.
  if (dlsym(h, "ompi_mpi_comm_world")) return create_with_abi(true, h, comm, env, out, library, where);
  for (const char *mpich : {"MPIR_Process", "MPIR_Err_create_code", "MPIR_Comm_create", "MPIR_Init_thread"})
    if (dlsym(h, mpich)) return create_with_abi(false, h, comm, env, out, library, where);
  log_error(where,
            "cannot tell the ABI of the MPI library '%s' (neither OpenMPI's ompi_mpi_comm_world nor MPICH's MPIR_* "
            "symbols): only OpenMPI and MPICH-ABI libraries are supported",
            library.c_str());
  return Status::not_supported;
}

}  // namespace nvshm::boot
