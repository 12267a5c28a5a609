// SPDX-License-Identifier: BSD-3-Clause
// main() of the GPU test binaries: skip (77) without a GPU, else init, run, finalize.
#include "gpu_test.hpp"

int main(int argc, char **argv) {
  return gpu_test::gpu_test_main(argc, argv);
}
