// SPDX-License-Identifier: BSD-3-Clause
// Host-side compatibility with what NVIDIA's headers make visible, after only nvshmem.h/nvshmemx.h
// (as NVIDIA's perftest helper includes them):
//  - the NVSHMEMI_* error-check macros print "<file>:<line>: " and the caller's text, set the status
//    and jump to the label exactly when their condition holds, and the _EXIT forms end the process;
//  - the version and build-option macros;
//  - the explanation nvshmemx_collective_launch[_query_gridsize] prints when no block of a kernel can
//    be resident (registers, block size, shared memory), on the limits of an H200.
// One process, no GPU, no nvshmem_init.
#include <gtest/gtest.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <string>

namespace {
using testing::internal::CaptureStderr;
using testing::internal::GetCapturedStderr;

static_assert(NVSHMEM_VENDOR_MAJOR_VERSION >= 3 && NVSHMEM_VENDOR_VERSION >= 30800 && NVSHMEM_MAJOR_VERSION == 1 &&
                  NVSHMEM_MINOR_VERSION >= 3 && NVSHM_RELEASE_VERSION >= 100,
              "version macros through nvshmem.h: NVSHMEM interface level 3.8, OpenSHMEM 1.3, our release");
#if !defined(NVSHMEM_ENABLE_ALL_DEVICE_INLINING)
#error "the build-option macros must be visible through nvshmem.h"
#endif

// Each helper runs one macro and reports (status after it, whether the label was reached).
struct Outcome {
  int status;
  bool jumped;
};

Outcome nz(int status) {
  NVSHMEMI_NZ_ERROR_JMP(status, NVSHMEMX_ERROR_INTERNAL, out, "nz failed with %s\n", "context");
  return {status, false};
out:
  return {status, true};
}
Outcome null_check(const void *ptr) {
  int status = 0;
  NVSHMEMI_NULL_ERROR_JMP(ptr, status, NVSHMEMX_ERROR_OUT_OF_MEMORY, out, "allocation of %d bytes\n", 64);
  return {status, false};
out:
  return {status, true};
}
Outcome always(int status) {
  NVSHMEMI_ERROR_JMP(status, NVSHMEMX_ERROR_INVALID_VALUE, out, "always\n");
  return {status, false};
out:
  return {status, true};
}
#define CMP_HELPER(NAME, MACRO)                                         \
  Outcome NAME(int value, int expected) {                               \
    int status = value;                                                 \
    MACRO(status, expected, NVSHMEMX_ERROR_SYMMETRY, out, "compare\n"); \
    return {status, false};                                             \
  out:                                                                  \
    return {status, true};                                              \
  }
CMP_HELPER(eq, NVSHMEMI_EQ_ERROR_JMP)
CMP_HELPER(ne, NVSHMEMI_NE_ERROR_JMP)
CMP_HELPER(gt, NVSHMEMI_GT_ERROR_JMP)
CMP_HELPER(ge, NVSHMEMI_GE_ERROR_JMP)
CMP_HELPER(lt, NVSHMEMI_LT_ERROR_JMP)
CMP_HELPER(le, NVSHMEMI_LE_ERROR_JMP)
#undef CMP_HELPER

// The outcome and everything the macro printed.
template <class F>
std::pair<Outcome, std::string> run(F f) {
  CaptureStderr();
  const Outcome o = f();
  return {o, GetCapturedStderr()};
}

TEST(ErrorMacros, NonZeroJumpsWithTheErrorAndSaysWhere) {
  auto [o, text] = run([] { return nz(5); });
  EXPECT_TRUE(o.jumped);
  EXPECT_EQ(o.status, NVSHMEMX_ERROR_INTERNAL);
  EXPECT_NE(text.find("test_compat.cpp:"), std::string::npos) << text;
  EXPECT_NE(text.find("non-zero status 5: nz failed with context\n"), std::string::npos) << text;
  auto [zero, quiet] = run([] { return nz(0); });
  EXPECT_FALSE(zero.jumped);
  EXPECT_EQ(zero.status, 0);
  EXPECT_EQ(quiet, "");
}

TEST(ErrorMacros, NullJumpsOnlyForNull) {
  int x = 0;
  auto [o, text] = run([] { return null_check(nullptr); });
  EXPECT_TRUE(o.jumped);
  EXPECT_EQ(o.status, NVSHMEMX_ERROR_OUT_OF_MEMORY);
  EXPECT_NE(text.find("NULL value: allocation of 64 bytes\n"), std::string::npos) << text;
  auto [ok, quiet] = run([&] { return null_check(&x); });
  EXPECT_FALSE(ok.jumped);
  EXPECT_EQ(ok.status, 0);
  EXPECT_EQ(quiet, "");
}

TEST(ErrorMacros, ErrorJmpAlwaysJumps) {
  auto [o, text] = run([] { return always(0); });
  EXPECT_TRUE(o.jumped);
  EXPECT_EQ(o.status, NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_NE(text.find(": always\n"), std::string::npos) << text;
}

TEST(ErrorMacros, ComparisonsJumpExactlyWhenTheyHold) {
  struct Case {
    Outcome (*f)(int, int);
    const char *op;
    bool below, equal, above;  // does it jump for value < / == / > expected
  };
  const Case cases[] = {{eq, "==", false, true, false}, {ne, "!=", true, false, true}, {gt, ">", false, false, true},
                        {ge, ">=", false, true, true},  {lt, "<", true, false, false}, {le, "<=", true, true, false}};
  for (const Case &c : cases) {
    const int values[] = {2, 3, 4};
    const bool expect[] = {c.below, c.equal, c.above};
    for (int i = 0; i < 3; ++i) {
      auto [o, text] = run([&] { return c.f(values[i], 3); });
      EXPECT_EQ(o.jumped, expect[i]) << values[i] << " " << c.op << " 3";
      EXPECT_EQ(o.status, expect[i] ? NVSHMEMX_ERROR_SYMMETRY : values[i]) << c.op;
      if (expect[i]) {
        EXPECT_NE(text.find("status " + std::to_string(values[i]) + " " + c.op + " 3: compare\n"), std::string::npos)
            << text;
      } else {
        EXPECT_EQ(text, "") << c.op;
      }
    }
  }
}

TEST(ErrorMacros, PrintsAndWarnings) {
  CaptureStderr();
  NVSHMEMI_ERROR_PRINT("error %d\n", 7);
  NVSHMEMI_WARN_PRINT("careful %s\n", "now");
  const std::string text = GetCapturedStderr();
  EXPECT_NE(text.find("test_compat.cpp:"), std::string::npos) << text;
  EXPECT_NE(text.find(": error 7\n"), std::string::npos) << text;
  EXPECT_NE(text.find(": WARN: careful now\n"), std::string::npos) << text;
}

TEST(ErrorMacrosDeathTest, ExitFormsEndTheProcessWithFailure) {
  EXPECT_EXIT(NVSHMEMI_ERROR_EXIT("fatal %d\n", 9), testing::ExitedWithCode(EXIT_FAILURE),
              "test_compat.cpp:[0-9]+: fatal 9");
  EXPECT_EXIT(NVSHMEMI_NZ_EXIT(3, "step %s\n", "two"), testing::ExitedWithCode(EXIT_FAILURE),
              "non-zero status 3: step two");
  CaptureStderr();
  NVSHMEMI_NZ_EXIT(0, "never\n");  // zero: nothing printed, no exit
  EXPECT_EQ(GetCapturedStderr(), "");
}

// The limits of an H200 (sm_90) and a kernel that otherwise fits.
nvshm_launch_shape h200(int threads, int regs, size_t dynamic_shmem) {
  nvshm_launch_shape s{};
  s.threads = threads;
  s.dynamic_shmem = dynamic_shmem;
  s.regs_per_thread = regs;
  s.static_shmem = 1024;
  s.max_threads_per_block = regs > 64 ? 65536 / (((regs + 7) / 8 * 8) * 32) * 32 : 1024;
  s.max_dynamic_shmem = 48 * 1024;
  s.regs_per_block = 65536;
  s.max_block_threads = 1024;
  s.shmem_per_block_optin = 232448;
  return s;
}
// The explanation; a limit must explain it (return 1) unless `explained` says it cannot.
std::string explain(const nvshm_launch_shape &s, int explained = 1) {
  char buf[320];
  EXPECT_EQ(nvshm_explain_no_residency(&s, buf, sizeof buf), explained) << buf;
  return buf;
}

TEST(CollectiveLaunch, ExplainsRegisters) {
  // A kernel of 72 registers in 1024-thread blocks (issue 25's MoE shuffle): 73728 > 65536.
  EXPECT_EQ(explain(h200(1024, 72, 0)),
            "registers: the kernel uses 72 per thread, 73728 for a block of 1024 threads, more than the 65536 a block "
            "may hold (at most 896 threads per block for this kernel)");
  // 65 registers round up to 72 per thread as well.
  EXPECT_NE(explain(h200(1024, 65, 0)).find("registers: the kernel uses 65 per thread, 73728"), std::string::npos);
}

TEST(CollectiveLaunch, ExplainsBlockSizeAndSharedMemory) {
  nvshm_launch_shape bounded = h200(512, 32, 0);
  bounded.max_threads_per_block = 256;  // __launch_bounds__(256)
  EXPECT_EQ(explain(bounded),
            "block size: the kernel launches at most 256 threads per block (__launch_bounds__), not 512");
  EXPECT_EQ(explain(h200(2048, 16, 0)), "a block of 2048 threads is larger than the device's 1024");
  EXPECT_EQ(explain(h200(128, 32, 240000)),
            "shared memory: 241024 bytes per block (1024 static + 240000 dynamic) is more than the 232448 a block may "
            "use");
  EXPECT_NE(explain(h200(128, 32, 64 * 1024))
                .find("shared memory: 65536 dynamic bytes per block is more than the "
                      "kernel's limit of 49152 (raise it with cudaFuncSetAttribute"),
            std::string::npos);
  EXPECT_NE(explain(h200(128, 32, 0), 0).find("occupancy calculator gives 0 blocks per SM"), std::string::npos);
}

}  // namespace

namespace {
// NVSHMEM 3.7's nvshmemx_status_string: every nvshmemx_status value by name, anything else unknown.
TEST(Compat, StatusStringNamesEveryStatus) {
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_SUCCESS), "NVSHMEMX_SUCCESS");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_INVALID_VALUE), "NVSHMEMX_ERROR_INVALID_VALUE");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_OUT_OF_MEMORY), "NVSHMEMX_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_NOT_SUPPORTED), "NVSHMEMX_ERROR_NOT_SUPPORTED");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_SYMMETRY), "NVSHMEMX_ERROR_SYMMETRY");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_GPU_NOT_SELECTED), "NVSHMEMX_ERROR_GPU_NOT_SELECTED");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED),
               "NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED");
  EXPECT_STREQ(nvshmemx_status_string(NVSHMEMX_ERROR_INTERNAL), "NVSHMEMX_ERROR_INTERNAL");
  for (int other : {-1, 8, 977, static_cast<int>(NVSHMEMX_ERROR_SENTINEL)})
    EXPECT_STREQ(nvshmemx_status_string(other), "NVSHMEMX_ERROR_<unknown>") << other;
}
}  // namespace

namespace {
// NVSHMEM 3.8's nvshmemx_collective_launch_attr refuses bad arguments before touching CUDA (no GPU needed
// here; tests/gpu/test_device_sync.cu launches with it).
TEST(Compat, CollectiveLaunchAttrRefusesBadArguments) {
  static int not_a_kernel;
  const void *func = &not_a_kernel;
  nvshmemx_collective_launch_attr_t attr = {};
  attr.cuda_config.blockDim = dim3(128, 1, 1);
  CaptureStderr();
  EXPECT_EQ(nvshmemx_collective_launch_attr(nullptr, func, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, nullptr, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  std::string err = GetCapturedStderr();
  EXPECT_NE(err.find("nvshmemx_collective_launch_attr: attr is NULL"), std::string::npos) << err;
  EXPECT_NE(err.find("nvshmemx_collective_launch_attr: func is NULL"), std::string::npos) << err;
  cudaLaunchAttribute many[17] = {};
  attr.cuda_config.attrs = many;
  attr.cuda_config.numAttrs = 17;
  CaptureStderr();
  EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, func, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  attr.cuda_config.attrs = nullptr;
  attr.cuda_config.numAttrs = 1;
  EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, func, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
  err = GetCapturedStderr();
  EXPECT_NE(err.find("17 launch attributes"), std::string::npos) << err;
  EXPECT_NE(err.find("1 launch attributes at (nil)"), std::string::npos) << err;
  attr.cuda_config.numAttrs = 0;
  for (dim3 grid : {dim3(4, 0, 1), dim3(0, 2, 1), dim3(0, 0, 3)}) {
    attr.cuda_config.gridDim = grid;
    CaptureStderr();
    EXPECT_EQ(nvshmemx_collective_launch_attr(&attr, func, nullptr), NVSHMEMX_ERROR_INVALID_VALUE);
    err = GetCapturedStderr();
    EXPECT_NE(err.find("has a dimension of 0"), std::string::npos) << err;
  }
}
}  // namespace

namespace {
// NVSHMEM 3.7's nvshmemx_ask_smem (no init needed): the TMA path's staging buffers and mbarrier
// (docs/tma.md), the mbarrier alone for BARRIERS_ONLY; an unknown amount gives 0 and is named.
TEST(Compat, AskSmemGivesTheTmaPathsAmounts) {
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_RECOMMENDED), 65536);
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_MINIMUM), 32768);
  EXPECT_EQ(nvshmemx_ask_smem(NVSHMEMX_SMEM_BARRIERS_ONLY), 16);
  CaptureStderr();
  EXPECT_EQ(nvshmemx_ask_smem(static_cast<nvshmemx_smem_amount_t>(7)), 0);
  const std::string err = GetCapturedStderr();
  EXPECT_NE(err.find("nvshmemx_ask_smem: flag 7 is not an nvshmemx_smem_amount_t"), std::string::npos) << err;
}
}  // namespace
