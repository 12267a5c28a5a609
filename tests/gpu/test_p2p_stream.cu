// SPDX-License-Identifier: BSD-3-Clause
// Stream-ordered signals, waits and the remaining stream RMA forms: put_signal / signal_op /
// signal_wait_until / wait_until_all_vector on a stream, captured in a CUDA graph and replayed 100
// times; p/g/iput/iget and sized forms on a stream; the typed stream waits of every wait type.
#include "gpu_test.hpp"

namespace {
using gpu_test::kPoison;
using gpu_test::random_bytes;
using gpu_test::to_host;

constexpr int kWords = 1024, kReplays = 100;

__global__ void bump(int *src, int words) {
  for (int i = threadIdx.x; i < words; i += blockDim.x) src[i] += 1;
}
// After the wait: the data from the left must be its replay number; count the replay; set the next
// target of the vector wait; reset the SET signal for the next replay.
__global__ void check_and_advance(const int *data, int words, int *replay, uint64_t *targets, uint64_t *set_sig,
                                  int *errors) {
  __shared__ int r;
  if (threadIdx.x == 0) r = ++*replay;
  __syncthreads();
  for (int i = threadIdx.x; i < words; i += blockDim.x)
    if (data[i] != r) atomicAdd(errors, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    targets[0] = static_cast<uint64_t>(r + 1);
    *set_sig = 0;
  }
}

TEST(StreamSignal, GraphOfSignalsAndWaitsReplayed100Times) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n;
  int *src = static_cast<int *>(nvshmem_calloc(kWords, sizeof(int)));
  int *data = static_cast<int *>(nvshmem_calloc(kWords, sizeof(int)));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(2, sizeof(uint64_t)));  // [0] SET, [1] ADD
  ASSERT_TRUE(src && data && sig);
  int *replay = nullptr, *errors = nullptr;
  uint64_t *targets = nullptr;
  CUDA_CHECK(cudaMalloc(&replay, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&errors, sizeof(int)));
  CUDA_CHECK(cudaMalloc(&targets, sizeof(uint64_t)));
  CUDA_CHECK(cudaMemset(replay, 0, sizeof(int)));
  CUDA_CHECK(cudaMemset(errors, 0, sizeof(int)));
  const uint64_t one = 1;
  CUDA_CHECK(cudaMemcpy(targets, &one, sizeof one, cudaMemcpyHostToDevice));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  gpu_test::barrier();

  cudaGraph_t graph;
  cudaGraphExec_t exec;
  CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
  bump<<<1, 256, 0, stream>>>(src, kWords);
  nvshmemx_int_put_signal_on_stream(data, src, kWords, sig, 1, NVSHMEM_SIGNAL_SET, right, stream);
  nvshmemx_signal_op_on_stream(sig + 1, 1, NVSHMEM_SIGNAL_ADD, right, stream);
  nvshmemx_signal_wait_until_on_stream(sig, NVSHMEM_CMP_EQ, 1, stream);
  nvshmemx_uint64_wait_until_all_vector_on_stream(sig + 1, 1, nullptr, NVSHMEM_CMP_GE, targets, stream);
  check_and_advance<<<1, 256, 0, stream>>>(data, kWords, replay, targets, sig, errors);
  nvshmemx_barrier_all_on_stream(stream);  // nobody signals again before everybody reset its word
  CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
  CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
  for (int r = 0; r < kReplays; ++r) CUDA_CHECK(cudaGraphLaunch(exec, stream));
  CUDA_CHECK(cudaStreamSynchronize(stream));
  int h_errors = -1, h_replay = -1;
  uint64_t h_sig[2];
  CUDA_CHECK(cudaMemcpy(&h_errors, errors, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(&h_replay, replay, sizeof(int), cudaMemcpyDeviceToHost));
  CUDA_CHECK(cudaMemcpy(h_sig, sig, sizeof h_sig, cudaMemcpyDeviceToHost));
  EXPECT_EQ(h_errors, 0);
  EXPECT_EQ(h_replay, kReplays);
  EXPECT_EQ(h_sig[1], static_cast<uint64_t>(kReplays));
  gpu_test::barrier();
  CUDA_CHECK(cudaGraphExecDestroy(exec));
  CUDA_CHECK(cudaGraphDestroy(graph));
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(targets));
  CUDA_CHECK(cudaFree(errors));
  CUDA_CHECK(cudaFree(replay));
  nvshmem_free(sig);
  nvshmem_free(data);
  nvshmem_free(src);
}

// p, g, iput, iget (typed and sized), sized put/get and put_signal forms, on a stream.
TEST(StreamRma, PGStridedSizedSignal) {
  const int me = nvshmem_my_pe(), n = nvshmem_n_pes();
  const int right = (me + 1) % n, left = (me + n - 1) % n;
  const size_t count = 513;
  double *src = static_cast<double *>(nvshmem_malloc(count * sizeof(double)));
  double *dst = static_cast<double *>(nvshmem_malloc(8 * count * sizeof(double)));
  short *ps = static_cast<short *>(nvshmem_malloc(4 * sizeof(short)));
  uint64_t *sig = static_cast<uint64_t *>(nvshmem_calloc(1, sizeof(uint64_t)));
  double *got = nullptr;
  ASSERT_TRUE(src && dst && ps && sig);
  CUDA_CHECK(cudaMalloc(&got, 2 * count * sizeof(double)));
  const size_t bytes = count * sizeof(double);
  const auto mine = random_bytes(bytes, me, 31);
  CUDA_CHECK(cudaMemcpy(src, mine.data(), bytes, cudaMemcpyHostToDevice));
  CUDA_CHECK(cudaMemset(dst, kPoison, 8 * bytes));
  CUDA_CHECK(cudaMemset(got, kPoison, 2 * bytes));
  CUDA_CHECK(cudaMemset(ps, 0, 4 * sizeof(short)));
  cudaStream_t stream;
  CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  nvshmemx_barrier_all_on_stream(stream);
  nvshmemx_short_p_on_stream(ps + 1, static_cast<short>(1000 + me), right, stream);
  nvshmemx_double_iput_on_stream(dst, src, 2, 1, count, right, stream);             // section 0..1, even
  nvshmemx_iput64_on_stream(dst + 2 * count + 1, src, 2, 1, count, right, stream);  // section 2..3, odd
  nvshmemx_put64_on_stream(dst + 4 * count, src, count, right, stream);             // section 4
  nvshmemx_put32_nbi_on_stream(dst + 5 * count, src, 2 * count, right, stream);     // section 5
  nvshmemx_put64_signal_nbi_on_stream(dst + 6 * count, src, count, sig, 7, NVSHMEM_SIGNAL_ADD, right, stream);
  nvshmemx_double_iget_on_stream(got, src, 2, 1, count, right, stream);
  nvshmemx_quiet_on_stream(stream);
  nvshmemx_barrier_all_on_stream(stream);
  CUDA_CHECK(cudaStreamSynchronize(stream));
  // The right neighbour's word holds what this PE wrote there with p_on_stream.
  EXPECT_EQ(nvshmemx_short_g_on_stream(ps + 1, right, stream), static_cast<short>(1000 + me));
  EXPECT_EQ(nvshmemx_uint64_g_on_stream(sig, me, stream), 7u);
  const auto puts = to_host(dst, 8 * bytes), gets = to_host(got, 2 * bytes);
  const auto from_left = random_bytes(bytes, left, 31), from_right = random_bytes(bytes, right, 31);
  for (size_t i = 0; i < count; ++i) {
    EXPECT_EQ(memcmp(puts.data() + 2 * i * 8, from_left.data() + i * 8, 8), 0) << "iput " << i;
    EXPECT_EQ(puts[(2 * i + 1) * 8], kPoison) << "iput wrote between strides at " << i;
    EXPECT_EQ(memcmp(puts.data() + (2 * count + 1 + 2 * i) * 8, from_left.data() + i * 8, 8), 0) << "iput64 " << i;
    EXPECT_EQ(memcmp(gets.data() + 2 * i * 8, from_right.data() + i * 8, 8), 0) << "iget " << i;
  }
  EXPECT_EQ(memcmp(puts.data() + 4 * bytes, from_left.data(), bytes), 0) << "put64";
  EXPECT_EQ(memcmp(puts.data() + 5 * bytes, from_left.data(), bytes), 0) << "put32_nbi";
  EXPECT_EQ(memcmp(puts.data() + 6 * bytes, from_left.data(), bytes), 0) << "put64_signal_nbi";
  EXPECT_EQ(puts[7 * bytes], kPoison);
  gpu_test::barrier();
  CUDA_CHECK(cudaStreamDestroy(stream));
  CUDA_CHECK(cudaFree(got));
  nvshmem_free(sig);
  nvshmem_free(ps);
  nvshmem_free(dst);
  nvshmem_free(src);
}

// Typed stream waits: each PE's later stream work waits until the left neighbour's p (host, after
// a barrier) reaches the value; wait_until_all with a status that excludes element 1.
#define DEFINE_STREAM_WAIT(NAME, T)                                                                      \
  TEST(StreamWait, Typed_##NAME) {                                                                       \
    const int me = nvshmem_my_pe(), n = nvshmem_n_pes();                                                 \
    T *v = static_cast<T *>(nvshmem_calloc(4, sizeof(T)));                                               \
    int *status = nullptr;                                                                               \
    T *targets = nullptr;                                                                                \
    ASSERT_NE(v, nullptr);                                                                               \
    CUDA_CHECK(cudaMalloc(&status, 3 * sizeof(int)));                                                    \
    CUDA_CHECK(cudaMalloc(&targets, 3 * sizeof(T)));                                                     \
    const int h_status[3] = {0, 1, 0};                                                                   \
    const T h_targets[3] = {static_cast<T>(5), static_cast<T>(6), static_cast<T>(7)};                    \
    CUDA_CHECK(cudaMemcpy(status, h_status, sizeof h_status, cudaMemcpyHostToDevice));                   \
    CUDA_CHECK(cudaMemcpy(targets, h_targets, sizeof h_targets, cudaMemcpyHostToDevice));                \
    cudaStream_t stream;                                                                                 \
    CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));                               \
    gpu_test::barrier();                                                                                 \
    nvshmemx_##NAME##_p_on_stream(v + 3, static_cast<T>(3), (me + 1) % n, stream);                       \
    nvshmemx_##NAME##_iput_on_stream(v, targets, 1, 1, 3, (me + 1) % n, stream);                         \
    nvshmemx_##NAME##_wait_until_on_stream(v + 3, NVSHMEM_CMP_GE, static_cast<T>(3), stream);            \
    nvshmemx_##NAME##_wait_until_all_on_stream(v, 3, status, NVSHMEM_CMP_GT, static_cast<T>(4), stream); \
    nvshmemx_##NAME##_wait_until_all_vector_on_stream(v, 3, nullptr, NVSHMEM_CMP_EQ, targets, stream);   \
    CUDA_CHECK(cudaStreamSynchronize(stream));                                                           \
    T h[4];                                                                                              \
    CUDA_CHECK(cudaMemcpy(h, v, sizeof h, cudaMemcpyDeviceToHost));                                      \
    EXPECT_EQ(h[0], static_cast<T>(5));                                                                  \
    EXPECT_EQ(h[2], static_cast<T>(7));                                                                  \
    EXPECT_EQ(h[3], static_cast<T>(3));                                                                  \
    gpu_test::barrier();                                                                                 \
    CUDA_CHECK(cudaStreamDestroy(stream));                                                               \
    CUDA_CHECK(cudaFree(targets));                                                                       \
    CUDA_CHECK(cudaFree(status));                                                                        \
    nvshmem_free(v);                                                                                     \
  }
NVSHM_FOR_EACH_WAIT_TYPE(DEFINE_STREAM_WAIT)
#undef DEFINE_STREAM_WAIT

}  // namespace
