// SPDX-License-Identifier: BSD-3-Clause
// A kernel in a cubin loaded with cuModuleLoad (or as a CUlibrary) sees the runtime's state after
// nvshmemx_cumodule_init (nvshmemx_culibrary_init), and loses it after the matching finalize.
#include <cuda.h>

#include "gpu_test.hpp"

namespace {
using gpu_test::driver_function;

/* Runs the cubin's module_ring kernel (each PE puts its id + 1 to the next PE) and checks the value
 * that arrived from the previous PE. */
void expect_ring(CUfunction fn, decltype(&cuLaunchKernel) launch) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  int *dst = static_cast<int *>(nvshmem_malloc(sizeof(int)));
  CUDA_CHECK(cudaMemset(dst, 0xff, sizeof(int)));
  gpu_test::barrier();
  void *args[] = {&dst};
  ASSERT_EQ(launch(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
  LAUNCH_CHECK();
  gpu_test::barrier();
  int h = 0;
  CUDA_CHECK(cudaMemcpy(&h, dst, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h, (me + n - 1) % n + 1);
  nvshmem_free(dst);
}

TEST(Module, CumoduleInitGivesKernelsTheState) {
  auto load = driver_function<decltype(&cuModuleLoad)>("cuModuleLoad");
  auto get_function = driver_function<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  auto launch = driver_function<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  auto unload = driver_function<decltype(&cuModuleUnload)>("cuModuleUnload");
  ASSERT_TRUE(load && get_function && launch && unload);
  CUDA_CHECK(cudaFree(nullptr));  // the primary context is current
  CUmodule module;
  ASSERT_EQ(load(&module, NVSHM_TEST_CUBIN), CUDA_SUCCESS) << NVSHM_TEST_CUBIN;
  ASSERT_EQ(nvshmemx_cumodule_init(module), 0);
  CUfunction fn;
  ASSERT_EQ(get_function(&fn, module, "module_ring"), CUDA_SUCCESS);

  expect_ring(fn, launch);
  EXPECT_EQ(nvshmemx_cumodule_finalize(module), 0);
  EXPECT_EQ(unload(module), CUDA_SUCCESS);
}

// nvshmemx_culibrary_init: the module cubin loaded as a CUlibrary runs a kernel that uses the
// device API; culibrary_finalize clears its state.
TEST(Library, CulibraryInitGivesKernelsTheState) {
  auto load = driver_function<decltype(&cuLibraryLoadFromFile)>("cuLibraryLoadFromFile");
  auto get_kernel = driver_function<decltype(&cuLibraryGetKernel)>("cuLibraryGetKernel");
  auto kernel_function = driver_function<decltype(&cuKernelGetFunction)>("cuKernelGetFunction");
  auto launch = driver_function<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  auto unload = driver_function<decltype(&cuLibraryUnload)>("cuLibraryUnload");
  ASSERT_TRUE(load && get_kernel && kernel_function && launch && unload);
  CUDA_CHECK(cudaFree(nullptr));  // the primary context is current
  CUlibrary library;
  ASSERT_EQ(load(&library, NVSHM_TEST_CUBIN, nullptr, nullptr, 0, nullptr, nullptr, 0), CUDA_SUCCESS)
      << NVSHM_TEST_CUBIN;
  ASSERT_EQ(nvshmemx_culibrary_init(library), 0);
  CUkernel kernel;
  CUfunction fn;
  ASSERT_EQ(get_kernel(&kernel, library, "module_ring"), CUDA_SUCCESS);
  ASSERT_EQ(kernel_function(&fn, kernel), CUDA_SUCCESS);
  expect_ring(fn, launch);
  EXPECT_EQ(nvshmemx_culibrary_finalize(library), 0);
  EXPECT_EQ(unload(library), CUDA_SUCCESS);
}
}  // namespace
