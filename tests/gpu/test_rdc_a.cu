// SPDX-License-Identifier: BSD-3-Clause
// Built with -rdc=true and linked with libnvshmem_device.a: kernels in two translation units share
// the one device state.
#include "gpu_test.hpp"

int launch_unit_b(int *out);  // test_rdc_b.cu

namespace {
__global__ void unit_a(int *out) {
  out[0] = nvshmem_my_pe();
  out[1] = nvshmem_n_pes();
}

TEST(Rdc, TwoUnitsSeeTheSameState) {
  int *out = nullptr;
  CUDA_CHECK(cudaMalloc(&out, 4 * sizeof(int)));
  CUDA_CHECK(cudaMemset(out, 0xff, 4 * sizeof(int)));
  unit_a<<<1, 1>>>(out);
  LAUNCH_CHECK();
  ASSERT_EQ(launch_unit_b(out + 2), 0);
  LAUNCH_CHECK();
  int h[4];
  CUDA_CHECK(cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h[0], nvshmem_my_pe());
  EXPECT_EQ(h[1], nvshmem_n_pes());
  EXPECT_EQ(h[2], nvshmem_my_pe());
  EXPECT_EQ(h[3], nvshmem_n_pes());
  CUDA_CHECK(cudaFree(out));
}
}  // namespace
