// SPDX-License-Identifier: BSD-3-Clause
// The remote engine's environment (docs/remote.md), 2 PEs forced remote: each PE puts to the other and
// reads it back, and prints the CPUs its progress thread (named nvshm-progress) may run on; the CTest
// entries run it under NVSHMEM_CPU_AFFINITY and NVSHMEM_HCA_LIST and check the printed values.
#include <dirent.h>
#include <nvshmem.h>
#include <stdio.h>
#include <string.h>

#include <fstream>
#include <string>

// Cpus_allowed_list of the thread named `name` in this process, or "none".
static std::string thread_cpus(const char *name) {
  DIR *dir = opendir("/proc/self/task");
  std::string cpus = "none";
  while (dirent *e = dir ? readdir(dir) : nullptr) {
    const std::string task = std::string("/proc/self/task/") + e->d_name;
    std::string comm;
    std::getline(std::ifstream(task + "/comm"), comm);
    if (comm != name) continue;
    std::ifstream status(task + "/status");
    for (std::string line; std::getline(status, line);)
      if (line.rfind("Cpus_allowed_list:", 0) == 0) cpus = line.substr(line.find_first_not_of(" \t", 18));
  }
  if (dir) closedir(dir);
  return cpus;
}

int main() {
  nvshmem_init();
  const int me = nvshmem_my_pe(), peer = 1 - me;
  int *word = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  nvshmem_int_p(word, 100 + me, peer);
  nvshmem_barrier_all();
  const bool ok = nvshmem_int_g(word, peer) == 100 + me && nvshmem_int_g(word, me) == 100 + peer;
  printf("PE %d: progress thread CPUs %s, then put and get with PE %d %s\n", me, thread_cpus("nvshm-progress").c_str(),
         peer, ok ? "ok" : "WRONG");
  nvshmem_barrier_all();
  nvshmem_free(word);
  nvshmem_finalize();
  return ok ? 0 : 1;
}
