// SPDX-License-Identifier: BSD-3-Clause
// Constructors of the bootstrap methods that bootstrap_create picks from (internal to src/bootstrap).
#pragma once
#include <memory>
#include <string>

#include "bootstrap/bootstrap.hpp"

namespace nvshm::boot {

// MPI: the ranks of *comm (an MPI_Comm of the MPI library in this process), or of MPI_COMM_WORLD when
// comm is NULL (initialising MPI if nobody has; we then finalize it when the bootstrap is destroyed).
// The library is the one already loaded by the application, else NVSHMEM_BOOTSTRAP_MPI_PLUGIN (dlopen).
Status mpi_create(const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out);
// The same for a library `h` of OpenMPI's or MPICH's ABI (defined where the build found that <mpi.h>).
Status mpi_create_openmpi(void *h, const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out,
                          const std::string &library);
Status mpi_create_mpich(void *h, const void *comm, const Env &env, std::unique_ptr<Bootstrap> *out,
                        const std::string &library);

// PMI-1 simple protocol over PMI_FD (set by the process manager) or PMI_PORT.
Status pmi1_create(const Env &env, std::unique_ptr<Bootstrap> *out);
// The same over a connected descriptor (not closed by the bootstrap), with rank and size known; for tests.
Status pmi1_connect_fd(int fd, int rank, int size, const Env &env, std::unique_ptr<Bootstrap> *out);

// PMI-2 wire protocol over PMI_FD (hydra, srun --mpi=pmi2). rank_hint: PMI_RANK, sent in fullinit.
Status pmi2_create(const Env &env, std::unique_ptr<Bootstrap> *out);
Status pmi2_connect_fd(int fd, long rank_hint, const Env &env, std::unique_ptr<Bootstrap> *out);

// PMIx through libpmix loaded at run time (NVSHMEM_BOOTSTRAP_PMIX_PLUGIN, default libpmix.so.2): PMIx
// carries the unique id of a server PE 0 starts, the rounds run over the TCP star.
Status pmix_create(const Env &env, std::unique_ptr<Bootstrap> *out);

// The TCP star client, connected to the server described by `info` (bootstrap.cpp); `name` is its name().
struct UidInfo;
Status tcp_connect(const UidInfo &info, int rank, int nranks, long timeout_s, const char *name,
                   std::unique_ptr<Bootstrap> *out);

// A library name from NVSHMEM_BOOTSTRAP_*_PLUGIN: NVIDIA's plugin names (nvshmem_bootstrap_*.so) mean
// "the default" here, since we talk to the MPI/PMIx library itself.
std::string plugin_library(const std::string &value, const char *fallback);

}  // namespace nvshm::boot
