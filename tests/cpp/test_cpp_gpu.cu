// SPDX-License-Identifier: BSD-3-Clause
// The C++ layer on a GPU, 2 PEs under nvshmrun: device views in kernels (block-scope puts, atomics,
// put-with-signal), SymmetricBuffer stream forms and collective members, a team from a unique id used
// by a kernel (byte-form collectives by scope), and a kernel compiled at run time by NVRTC, loaded
// through the driver API and registered with Runtime::register_module, the registration outliving the
// Runtime handle and the buffer. Exits 77 (skipped) without a GPU.
// `test_cpp_gpu --nvrtc-compile-only` compiles the NVRTC kernel and exits (no GPU needed).
#include <cuda.h>
#include <cuda_runtime.h>
#include <gtest/gtest.h>
#include <nvrtc.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <nvshmem/nvshmem.hpp>
#include <nvshmem/rtc.hpp>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "gpu_test.hpp"  // CUDA_CHECK, gpu_test::driver_function (shared with tests/gpu)

namespace {

using gpu_test::driver_function;
using nvshmem::DeviceView;
using nvshmem::Runtime;
using nvshmem::SymmetricBuffer;

constexpr const char *kRtcSource = R"(
#include <nvshmem.h>
#include <nvshmem/device.hpp>
#include <nvshmem/device_view.hpp>
// Each PE writes its id + 1 into its right neighbour's word, through the C API and the C++ view.
extern "C" __global__ void rtc_ring(nvshmem::DeviceView<int> words) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  words.p((me + 1) % n, 0, me + 1);
  nvshmem::device::atomic_add(words.data() + 1, 10, (me + 1) % n);
  nvshmem::device::quiet();
}
)";

// Compile kRtcSource for sm_<arch>; returns the cubin, or an empty vector with the log in *log.
std::vector<char> compile_rtc(int arch, std::string *log) {
  const nvshmem::rtc::Headers headers = nvshmem::rtc::headers();
  nvrtcProgram prog;
  if (nvrtcCreateProgram(&prog, kRtcSource, "rtc_ring.cu", headers.count(), headers.sources.data(),
                         headers.names.data()) != NVRTC_SUCCESS) {
    *log = "nvrtcCreateProgram failed";
    return {};
  }
  std::vector<std::string> opts =
      nvshmem::rtc::options({NVSHM_RTC_SRC_INCLUDE, NVSHM_RTC_GEN_INCLUDE, NVSHM_RTC_CUDA_INCLUDE});
  opts.push_back("-arch=sm_" + std::to_string(arch));
  std::vector<const char *> argv;
  for (const std::string &o : opts) argv.push_back(o.c_str());
  const nvrtcResult rc = nvrtcCompileProgram(prog, static_cast<int>(argv.size()), argv.data());
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  log->assign(log_size, '\0');
  if (log_size) nvrtcGetProgramLog(prog, &(*log)[0]);
  std::vector<char> cubin;
  size_t size = 0;
  if (rc == NVRTC_SUCCESS && nvrtcGetCUBINSize(prog, &size) == NVRTC_SUCCESS) {
    cubin.resize(size);
    if (nvrtcGetCUBIN(prog, cubin.data()) != NVRTC_SUCCESS) cubin.clear();
  } else {
    *log += std::string("\nnvrtcCompileProgram: ") + nvrtcGetErrorString(rc);
  }
  nvrtcDestroyProgram(&prog);
  return cubin;
}

constexpr int kCount = 4096;

__global__ void view_ring(DeviceView<int> dst, DeviceView<int> src, DeviceView<int> counter) {
  const int me = nvshmem::my_pe(), right = (me + 1) % nvshmem::n_pes();
  dst.put<nvshmem::block>(right, src.data(), src.size());
  if (threadIdx.x == 0) {
    counter.atomic_add(right, 0, me + 1);
    counter.p(right, 1, 100 + me);
    nvshmem::device::quiet();
  }
}

TEST(CppGpu, DeviceViewsInAKernel) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes(), left = (me + n - 1) % n;
  auto src = SymmetricBuffer<int>::allocate(rt, kCount);
  auto dst = SymmetricBuffer<int>::zeroed(rt, kCount);
  auto counter = SymmetricBuffer<int>::zeroed(rt, 2);
  std::vector<int> mine(kCount);
  for (int i = 0; i < kCount; ++i) mine[i] = me * 1000003 + i;
  src.copy_from_host(mine);
  rt.barrier_all();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  view_ring<<<1, 256, 0, stream>>>(dst.view(), src.view(), counter.view());
  CUDA_CHECK(cudaGetLastError());
  rt.barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<int> got = dst.to_vector();
  for (int i = 0; i < kCount; ++i) ASSERT_EQ(got[i], left * 1000003 + i) << "element " << i;
  const std::vector<int> c = counter.to_vector();
  EXPECT_EQ(c[0], left + 1);
  EXPECT_EQ(c[1], 100 + left);
  CUDA_CHECK(cudaStreamDestroy(stream));
  rt.barrier_all();
}

// Put-with-signal by a block, then a signal wait: each PE sends before it waits, so no PE blocks another.
__global__ void signal_ring(DeviceView<long> dst, DeviceView<long> src, uint64_t *sig, DeviceView<int> ok) {
  const int me = nvshmem::my_pe(), n = nvshmem::n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  nvshmem::device::put_signal<nvshmem::block>(dst.data(), src.data(), src.size(), sig, 1, NVSHMEM_SIGNAL_ADD, right);
  if (threadIdx.x == 0) {
    (void)nvshmem::device::signal_wait_until(sig, NVSHMEM_CMP_GE, 1);
    int good = 1;
    for (size_t i = 0; i < dst.size(); ++i) good &= dst[i] == left * 10000L + static_cast<long>(i);
    ok[0] = good;
  }
}

TEST(CppGpu, PutSignalAndWaitThroughGenerics) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe();
  constexpr int kLen = 1000;
  auto src = SymmetricBuffer<long>::allocate(rt, kLen);
  auto dst = SymmetricBuffer<long>::zeroed(rt, kLen);
  auto sig = SymmetricBuffer<uint64_t>::zeroed(rt, 1);
  auto ok = SymmetricBuffer<int>::zeroed(rt, 1);
  std::vector<long> mine(kLen);
  for (int i = 0; i < kLen; ++i) mine[i] = me * 10000L + i;
  src.copy_from_host(mine);
  rt.barrier_all();
  signal_ring<<<1, 128>>>(dst.view(), src.view(), sig.data(), ok.view());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  EXPECT_EQ(ok.g(me, 0), 1);
  EXPECT_EQ(sig.g(me, 0), 1u);
  rt.barrier_all();
}

TEST(CppGpu, BufferStreamForms) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  auto src = SymmetricBuffer<double>::allocate(rt, kCount);
  auto dst = SymmetricBuffer<double>::zeroed(rt, 2 * kCount);
  auto back = SymmetricBuffer<double>::zeroed(rt, kCount);
  std::vector<double> mine(kCount);
  for (int i = 0; i < kCount; ++i) mine[i] = me + i * 0.5;
  src.copy_from_host(mine);
  rt.barrier_all();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  dst.put_on_stream(right, src.data(), kCount, stream);
  dst.put_nbi_on_stream(right, src.data(), kCount, stream, kCount);
  rt.quiet_on_stream(stream);
  rt.barrier_all_on_stream(stream);
  // Read back what this PE wrote into its right neighbour's dst (into the local symmetric `back`).
  dst.get_on_stream(right, back.data(), kCount / 2, stream);
  dst.get_nbi_on_stream(right, back.data() + kCount / 2, kCount / 2, stream, kCount + kCount / 2);
  rt.quiet_on_stream(stream);
  rt.sync_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  const std::vector<double> got = dst.to_vector();
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(got[i], left + i * 0.5) << i;
    ASSERT_EQ(got[kCount + i], left + i * 0.5) << i;
  }
  EXPECT_EQ(back.to_vector(), mine);
  rt.barrier_all();
  CUDA_CHECK(cudaStreamDestroy(stream));
}

// Block-scope collectives through the device generics: a sum over the team, then a broadcast from
// team member 1 % n.
__global__ void block_collectives(nvshmem_team_t team, DeviceView<int> sum, DeviceView<int> bcast, DeviceView<int> src,
                                  DeviceView<int> rc) {
  int r = nvshmem::device::reduce<nvshmem::Op::sum, nvshmem::block>(team, sum.data(), src.data(), src.size());
  r |= nvshmem::device::broadcast<nvshmem::block>(team, bcast.data(), src.data(), src.size(),
                                                  1 % nvshmem_team_n_pes(team));
  if (threadIdx.x == 0) rc[0] = r;
}

std::vector<int> random_ints(int n, int pe) {
  std::mt19937 gen(4242u + static_cast<unsigned>(pe));
  std::vector<int> v(n);
  for (int &x : v) x = static_cast<int>(gen() % 1000000);
  return v;
}

TEST(CppGpu, DeviceCollectivesAndStreamCollectives) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr int kLen = 3000;
  auto src = SymmetricBuffer<int>::allocate(rt, kLen);
  auto sum = SymmetricBuffer<int>::allocate(rt, kLen);
  auto bcast = SymmetricBuffer<int>::allocate(rt, kLen);
  auto out = SymmetricBuffer<int>::allocate(rt, static_cast<std::size_t>(kLen) * n);
  auto rc = SymmetricBuffer<int>::zeroed(rt, 1);
  src.copy_from_host(random_ints(kLen, me));
  const std::vector<int> poison(static_cast<std::size_t>(kLen) * n, -1);
  sum.copy_from_host(poison.data(), kLen);
  bcast.copy_from_host(poison.data(), kLen);
  out.copy_from_host(poison);
  std::vector<int> expect_sum(kLen, 0), expect_max(kLen, 0), expect_all;
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = random_ints(kLen, pe);
    for (int i = 0; i < kLen; ++i) expect_sum[i] += v[i], expect_max[i] = std::max(expect_max[i], v[i]);
    expect_all.insert(expect_all.end(), v.begin(), v.end());
  }
  rt.barrier_all();

  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));
  block_collectives<<<1, 256, 0, stream>>>(nvshmem::Team::world().handle(), sum.view(), bcast.view(), src.view(),
                                           rc.view());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(rc.to_vector()[0], 0);
  EXPECT_EQ(sum.to_vector(), expect_sum);
  EXPECT_EQ(bcast.to_vector(), random_ints(kLen, 1 % n));

  // Stream-ordered: a max reduction, then fcollect, then a team barrier, all on one stream.
  nvshmem::reduce_on_stream<nvshmem::Op::max>(nvshmem::Team::world(), sum.data(), src.data(), kLen, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(sum.to_vector(), expect_max);
  nvshmem::fcollect_on_stream(nvshmem::Team::world(), out.data(), src.data(), kLen, stream);
  rt.barrier_on_stream(nvshmem::Team::world(), stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(out.to_vector(), expect_all);
  CUDA_CHECK(cudaStreamDestroy(stream));
  rt.barrier_all();
}

// SymmetricBuffer::put_signal_on_stream / put_signal_nbi_on_stream around the ring (a put then a
// stream wait for the signal), then every collective member in its blocking and stream forms.
TEST(CppGpu, BufferPutSignalAndCollectiveMembers) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes(), right = (me + 1) % n, left = (me + n - 1) % n;
  constexpr int kLen = 2000;
  auto src = SymmetricBuffer<int>::allocate(rt, static_cast<std::size_t>(kLen) * n);
  auto dst = SymmetricBuffer<int>::allocate(rt, static_cast<std::size_t>(kLen) * n);
  auto part = SymmetricBuffer<int>::allocate(rt, kLen);
  auto sig = SymmetricBuffer<uint64_t>::zeroed(rt, 2);
  auto theirs = [&](int pe) { return random_ints(kLen * n, pe + 100); };
  src.copy_from_host(theirs(me));
  part.copy_from_host(theirs(me).data(), kLen);
  const std::vector<int> poison(static_cast<std::size_t>(kLen) * n, -1);
  dst.copy_from_host(poison);
  rt.barrier_all();
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreate(&stream));

  // First half blocking, second half nbi at offset kLen / 2; each signal ADDs 1 to word 1.
  dst.put_signal_on_stream(right, src.data(), kLen / 2, sig, 1, 1, NVSHMEM_SIGNAL_ADD, stream);
  dst.put_signal_nbi_on_stream(right, src.data() + kLen / 2, kLen / 2, sig, 1, 1, NVSHMEM_SIGNAL_ADD, stream, kLen / 2);
  nvshmem::signal_wait_until_on_stream(sig.data() + 1, NVSHMEM_CMP_EQ, 2, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<int> got = dst.to_vector();
  const std::vector<int> from_left = theirs(left);
  for (int i = 0; i < kLen; ++i) ASSERT_EQ(got[i], from_left[i]) << "put_signal element " << i;
  EXPECT_EQ(got[kLen], -1) << "nothing past the put";
  EXPECT_EQ(sig.signal_fetch(1), 2u);
  rt.barrier_all();

  std::vector<int> expect(static_cast<std::size_t>(kLen) * n, 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = theirs(pe);
    for (std::size_t i = 0; i < expect.size(); ++i) expect[i] += v[i];
  }
  dst.reduce<nvshmem::Op::sum>(nvshmem::Team::world(), src);  // blocking, heap in GPU memory
  EXPECT_EQ(dst.to_vector(), expect) << "reduce<sum>";
  dst.reduce_on_stream<nvshmem::Op::max>(nvshmem::Team::world(), src, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  std::fill(expect.begin(), expect.end(), 0);
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = theirs(pe);
    for (std::size_t i = 0; i < expect.size(); ++i) expect[i] = std::max(expect[i], v[i]);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "reduce_on_stream<max>";
  dst.broadcast_on_stream(nvshmem::Team::world(), src, n - 1, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  EXPECT_EQ(dst.to_vector(), theirs(n - 1)) << "broadcast_on_stream";
  dst.fcollect_on_stream(nvshmem::Team::world(), part, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  expect.clear();
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = theirs(pe);
    expect.insert(expect.end(), v.begin(), v.begin() + kLen);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "fcollect_on_stream";
  dst.alltoall_on_stream(nvshmem::Team::world(), src, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  expect.clear();
  for (int pe = 0; pe < n; ++pe) {
    const std::vector<int> v = theirs(pe);
    expect.insert(expect.end(), v.begin() + me * kLen, v.begin() + (me + 1) * kLen);
  }
  EXPECT_EQ(dst.to_vector(), expect) << "alltoall_on_stream";
  rt.barrier_all();
  dst.copy_from_host(poison);
  rt.barrier_all();
  dst.reducescatter_on_stream<nvshmem::Op::min>(nvshmem::Team::world(), src, stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  got = dst.to_vector();
  const std::vector<int> first = theirs(0);
  std::vector<int> mins(first.begin() + me * kLen, first.begin() + (me + 1) * kLen);
  for (int pe = 1; pe < n; ++pe) {
    const std::vector<int> v = theirs(pe);
    for (int i = 0; i < kLen; ++i) mins[i] = std::min(mins[i], v[me * kLen + i]);
  }
  for (int i = 0; i < kLen; ++i) ASSERT_EQ(got[i], mins[i]) << "reducescatter_on_stream<min> element " << i;
  EXPECT_EQ(got[kLen], -1) << "nothing past this PE's block";
  CUDA_CHECK(cudaStreamDestroy(stream));
  rt.barrier_all();
}

// A team from a unique id (every PE, reverse order) used in a kernel: DeviceView::put_signal by a
// block to the team's next member, then byte-form collectives by scope (fcollectmem by the block,
// broadcastmem by a warp) over the team.
__global__ void unique_team_kernel(nvshmem_team_t team, DeviceView<int> dst, DeviceView<int> src,
                                   DeviceView<uint64_t> sig, DeviceView<int> gathered, DeviceView<int> bcast,
                                   DeviceView<int> rc) {
  const int idx = nvshmem_team_my_pe(team), size = nvshmem_team_n_pes(team);
  const int next = nvshmem_team_translate_pe(team, (idx + 1) % size, NVSHMEM_TEAM_WORLD);
  dst.put_signal<nvshmem::block>(next, src.data(), src.size(), sig, 0, 7, NVSHMEM_SIGNAL_SET);
  if (threadIdx.x == 0) (void)sig.signal_wait_until(0, NVSHMEM_CMP_EQ, 7);
  __syncthreads();
  int r = nvshmem::device::fcollectmem<nvshmem::block>(team, gathered.data(), src.data(), src.bytes());
  if (threadIdx.x < 32)
    r |= nvshmem::device::broadcastmem<nvshmem::warp>(team, bcast.data(), src.data(), src.bytes(), 0);
  if (threadIdx.x == 0) rc[0] = r;
}

TEST(CppGpu, UniqueTeamFromAnIdInAKernel) {
  Runtime rt = Runtime::init();
  const int me = rt.my_pe(), n = rt.n_pes();
  constexpr int kLen = 1500;
  auto word = SymmetricBuffer<uint64_t>::zeroed(rt, 1);
  if (me == 0) word.p(me, 0, nvshmem::TeamUniqueId::generate().raw());
  word.broadcast(nvshmem::Team::world(), 0);
  nvshmem::UniqueTeam team = nvshmem::UniqueTeam::init(nvshmem::TeamUniqueId(word.g(me, 0)), n, n - 1 - me);
  ASSERT_EQ(team->my_pe(), n - 1 - me);
  EXPECT_EQ(team->config().uniqueid, word.g(me, 0));

  auto src = SymmetricBuffer<int>::allocate(rt, kLen);
  auto dst = SymmetricBuffer<int>::allocate(rt, kLen);
  auto sig = SymmetricBuffer<uint64_t>::zeroed(rt, 1);
  auto gathered = SymmetricBuffer<int>::allocate(rt, static_cast<std::size_t>(kLen) * n);
  auto bcast = SymmetricBuffer<int>::allocate(rt, kLen);
  auto rc = SymmetricBuffer<int>::zeroed(rt, 1);
  src.copy_from_host(random_ints(kLen, me + 500));
  const std::vector<int> poison(static_cast<std::size_t>(kLen) * n, -1);
  dst.copy_from_host(poison.data(), kLen);
  gathered.copy_from_host(poison);
  bcast.copy_from_host(poison.data(), kLen);
  rt.barrier_all();
  unique_team_kernel<<<1, 256>>>(team->handle(), dst.view(), src.view(), sig.view(), gathered.view(), bcast.view(),
                                 rc.view());
  CUDA_CHECK(cudaGetLastError());
  CUDA_CHECK(cudaDeviceSynchronize());
  rt.barrier_all();
  EXPECT_EQ(rc.to_vector()[0], 0);
  // Team index i is world PE n-1-i; this PE (index n-1-me) got the data of index n-2-me, PE me+1.
  EXPECT_EQ(dst.to_vector(), random_ints(kLen, (me + 1) % n + 500)) << "put_signal from the previous member";
  EXPECT_EQ(sig.signal_fetch(0), 7u);
  std::vector<int> expect;
  for (int i = 0; i < n; ++i) {
    const std::vector<int> v = random_ints(kLen, n - 1 - i + 500);
    expect.insert(expect.end(), v.begin(), v.end());
  }
  EXPECT_EQ(gathered.to_vector(), expect) << "fcollectmem in team order";
  EXPECT_EQ(bcast.to_vector(), random_ints(kLen, n - 1 + 500)) << "broadcastmem from team index 0";
  rt.barrier_all();
}

TEST(CppGpu, NvrtcModuleRegistrationOutlivesRuntimeAndBuffer) {
  auto load_data = driver_function<decltype(&cuModuleLoadData)>("cuModuleLoadData");
  auto get_function = driver_function<decltype(&cuModuleGetFunction)>("cuModuleGetFunction");
  auto launch = driver_function<decltype(&cuLaunchKernel)>("cuLaunchKernel");
  auto unload = driver_function<decltype(&cuModuleUnload)>("cuModuleUnload");
  ASSERT_TRUE(load_data && get_function && launch && unload);
  int device = 0, major = 0, minor = 0;
  CUDA_CHECK(cudaGetDevice(&device));
  CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device));
  CUDA_CHECK(cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device));
  std::string log;
  const std::vector<char> cubin = compile_rtc(major * 10 + minor, &log);
  ASSERT_FALSE(cubin.empty()) << log;

  std::optional<Runtime> rt(Runtime::init());
  CUDA_CHECK(cudaFree(nullptr));  // the primary context is current
  CUmodule module;
  ASSERT_EQ(load_data(&module, cubin.data()), CUDA_SUCCESS);
  CUfunction fn;
  ASSERT_EQ(get_function(&fn, module, "rtc_ring"), CUDA_SUCCESS);
  const int me = rt->my_pe(), n = rt->n_pes(), left = (me + n - 1) % n;
  {
    auto words = SymmetricBuffer<int>::zeroed(*rt, 2);
    auto reg = rt->register_module(module);
    EXPECT_EQ(reg.module(), module);
    DeviceView<int> view = words.view();
    void *args[] = {&view};
    ASSERT_EQ(launch(fn, 1, 1, 1, 1, 1, 1, 0, nullptr, args, nullptr), CUDA_SUCCESS);
    CUDA_CHECK(cudaDeviceSynchronize());
    rt->barrier_all();
    EXPECT_EQ(words.g(me, 0), left + 1);
    EXPECT_EQ(words.g(me, 1), 10);
    rt->barrier_all();
    rt.reset();     // the last Runtime handle goes ...
    words.reset();  // ... and the buffer (collective free) ...
    EXPECT_GE(nvshmemx_init_status(), NVSHMEM_STATUS_IS_INITIALIZED) << "... the registration keeps the runtime";
    reg.finalize();
    EXPECT_TRUE(reg.finalized());
  }  // the registration's end releases the last owner: finalize
  EXPECT_EQ(nvshmemx_init_status(), NVSHMEM_STATUS_NOT_INITIALIZED);
  EXPECT_EQ(unload(module), CUDA_SUCCESS);
  Runtime again = Runtime::init();  // re-init after full release
  EXPECT_EQ(again.n_pes(), n);
}

}  // namespace

int main(int argc, char **argv) {
  if (argc > 1 && std::strcmp(argv[1], "--nvrtc-compile-only") == 0) {
    std::string log;
    const bool ok = !compile_rtc(90, &log).empty();
    std::printf("NVRTC compile of the C++ layer's device headers: %s\n%s\n", ok ? "ok" : "FAILED", log.c_str());
    return ok ? 0 : 1;
  }
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    std::printf("no GPU visible: skipping the C++ layer's GPU tests\n");
    return 77;
  }
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
