// A kernel in a cubin loaded with cuModuleLoad sees the runtime's state after
// nvshmemx_cumodule_init, and loses it after nvshmemx_cumodule_finalize.
#include <cuda.h>

#include "gpu_test.hpp"

namespace {
template <typename F>
F driver_function(const char *name) {
  void *fn = nullptr;
  cudaDriverEntryPointQueryResult found;
  if (cudaGetDriverEntryPointByVersion(name, &fn, 12000, cudaEnableDefault, &found) != cudaSuccess) return nullptr;
  return reinterpret_cast<F>(fn);
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
  EXPECT_EQ(nvshmemx_cumodule_finalize(module), 0);
  EXPECT_EQ(unload(module), CUDA_SUCCESS);
  nvshmem_free(dst);
}
}  // namespace
