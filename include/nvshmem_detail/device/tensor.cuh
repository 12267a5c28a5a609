// SPDX-License-Identifier: BSD-3-Clause
/* Tensor descriptions of the tile API (NVSHMEM 3.4.5: "Tile-based collectives", the tile helpers):
 * a Layout is a shape and a stride, each a cuda::std::tuple of integers (int, size_t, ConstInt<v>,
 * ...); a Tensor is a typed pointer to the first element of a tile plus its Layout. Element
 * (c_0, ..., c_{r-1}) of a tensor lives at data() + sum_d c_d * stride_d (strides in elements).
 * The algorithm selectors of the tile calls are here too. docs/collectives.md, "Tile API". */
#ifndef NVSHMEM_DETAIL_DEVICE_TENSOR_CUH
#define NVSHMEM_DETAIL_DEVICE_TENSOR_CUH

#include <cuda/std/tuple>
#include <cuda/std/type_traits>

/* A compile-time integer usable as one extent or stride of a shape or stride tuple
 * (`make_shape(ConstInt<16>{}, n)`); it converts to int. Global, as in NVIDIA's headers. */
template <int v>
struct ConstInt : cuda::std::integral_constant<int, v> {};

namespace nvshmemx {

/* The tuple types of a shape, a stride, and of the start_coord/boundary arguments of the tile calls. */
template <class... Extents>
using shape = cuda::std::tuple<Extents...>;
template <class... Steps>
using stride = cuda::std::tuple<Steps...>;

/* A shape tuple of the given extents (elements per dimension). */
template <class... Extents>
__host__ __device__ constexpr shape<Extents...> make_shape(Extents const &...extents) {
  return shape<Extents...>(extents...);
}

/* A stride tuple: for each dimension, how many elements apart two neighbours along it are. */
template <class... Steps>
__host__ __device__ constexpr stride<Steps...> make_stride(Steps const &...steps) {
  return stride<Steps...>(steps...);
}

/* A shape and a stride of the same rank. */
template <class Shape, class Stride>
struct Layout {
  __host__ __device__ constexpr Layout(Shape const &s = {}, Stride const &d = {}) : shape_(s), stride_(d) {}
  __host__ __device__ constexpr Shape shape() const { return shape_; }
  __host__ __device__ constexpr Stride stride() const { return stride_; }

 private:
  Shape shape_;
  Stride stride_;
};

/* The layout of `shape` with `stride`. */
template <class Shape, class Stride>
__host__ __device__ constexpr Layout<Shape, Stride> make_layout(Shape const &shape, Stride const &stride) {
  return Layout<Shape, Stride>(shape, stride);
}

/* A tile: `data` points at its first element (for a tile of a larger matrix, the matrix's address of
 * the tile's corner), `layout` gives its extents and the matrix's strides. */
template <typename T, class LayoutT>
struct Tensor {
  using value_type = T;
  using layout_type = LayoutT;

  __host__ __device__ constexpr Tensor(T *data, LayoutT layout) : data_(data), layout_(layout) {}
  __host__ __device__ constexpr Tensor(LayoutT layout) : data_(nullptr), layout_(layout) {}

  __host__ __device__ constexpr LayoutT layout() const { return layout_; }
  __host__ __device__ T *data() { return data_; }
  __host__ __device__ constexpr T *data() const { return data_; }
  __host__ __device__ constexpr auto shape() const { return layout_.shape(); }
  __host__ __device__ constexpr auto stride() const { return layout_.stride(); }

 private:
  T *data_;
  LayoutT layout_;
};

/* Algorithm selector of the tile collectives. NVIDIA runs them on NVLink multicast; this library
 * has no multicast and maps each value to a unicast algorithm (docs/collectives.md, "Tile API").
 * Every one is non-blocking: tile_collective_wait completes it. */
enum tile_coll_algo_t {
  NVLS_ONE_SHOT_PUSH_NBI = 0,
  NVLS_ONE_SHOT_PULL_NBI = 1,
  NVLS_TWO_SHOT_PUSH_NBI = 2,
  NVLS_TWO_SHOT_PULL_NBI = 3,
};

/* Algorithm selector of tile_put/tile_get: peer loads and stores, or (NVIDIA) a network transport.
 * Here both move the tile with peer loads and stores. */
enum tile_algo_t {
  PEER_PUSH_NBI = 0,
  PEER_PULL_NBI = 0,
  REMOTE_PUSH_NBI = 1,
  REMOTE_PULL_NBI = 1,
};

}  // namespace nvshmemx

#endif /* NVSHMEM_DETAIL_DEVICE_TENSOR_CUH */
