// SPDX-License-Identifier: BSD-3-Clause
// nvshmem.core._nvshmem: the binding layer of nvshmem4py (README.md). Thin, checked wrappers over the public
// C API: addresses are Python ints, sizes are bytes (elements where a name says nelems), streams are
// cudaStream_t values as ints (0: the null stream, the only one on the CPU backend). Every wrapper checks
// what the C call would abort on (not initialized, PE out of range, an address outside the symmetric
// heap, a team this PE is not in) and raises NvshmemError "nvshmem error (PE n) in <call>: <cause>"; the
// statuses of the C calls that return one become the same exception. Array arguments (NumPy, CuPy, torch,
// the array interfaces, Buffers) and stream objects are described here, once per call (`describe`,
// `stream_handle`): TypeError for a wrong dtype, ValueError for a wrong shape. Team sizes, reduction
// ops and allocation lifetimes are the Python layer's (nvshmem/core/*.py).
#include <cuda_runtime_api.h>
#include <dlpack/dlpack.h>
#include <nvshmem.h>
#include <nvshmemx.h>
#include <pybind11/pybind11.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>

namespace py = pybind11;

namespace {

/// The one error type of the binding; registered as nvshmem.core.NvshmemError.
class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

bool initialized() {
  return nvshmemx_init_status() >= NVSHMEM_STATUS_IS_INITIALIZED;
}

/// "nvshmem error (PE n) in <call>: <cause>", the C library's format.
[[noreturn]] void fail(const std::string &call, const std::string &cause) {
  std::string pe = initialized() ? "PE " + std::to_string(nvshmem_my_pe()) : "not initialized";
  throw Error("nvshmem error (" + pe + ") in " + call + ": " + cause);
}

void check_status(const std::string &call, const char *c_call, int status) {
  if (status != 0) fail(call, std::string(c_call) + " returned " + nvshmemx_status_string(status));
}

void need_init(const std::string &call) {
  if (!initialized()) fail(call, "NVSHMEM is not initialized (call nvshmem.core.init first)");
}

void check_pe(const std::string &call, int pe) {
  need_init(call);
  if (pe < 0 || pe >= nvshmem_n_pes())
    fail(call, "PE " + std::to_string(pe) + " is out of range [0, " + std::to_string(nvshmem_n_pes()) + ")");
}

/// [addr, addr + nbytes) lies in this PE's symmetric heap.
void check_symmetric(const std::string &call, const char *what, std::uintptr_t addr, std::size_t nbytes) {
  need_init(call);
  if (nbytes == 0) return;
  int me = nvshmem_my_pe();
  if (nvshmem_ptr(reinterpret_cast<void *>(addr), me) == nullptr ||
      nvshmem_ptr(reinterpret_cast<void *>(addr + nbytes - 1), me) == nullptr)
    fail(call, std::string(what) + " (" + std::to_string(nbytes) +
                   " bytes) is not in the symmetric heap (allocate it with nvshmem.core.buffer/array/tensor)");
}

void check_team(const std::string &call, int team) {
  need_init(call);
  if (nvshmem_team_n_pes(team) <= 0) fail(call, "team " + std::to_string(team) + " is not a valid team");
  if (nvshmem_team_my_pe(team) < 0) fail(call, "this PE is not a member of team " + std::to_string(team));
}

cudaStream_t as_stream(std::uintptr_t s) {
  return reinterpret_cast<cudaStream_t>(s);
}
template <typename T = void>
T *as_ptr(std::uintptr_t a) {
  return reinterpret_cast<T *>(a);
}

/// DLPack device of memory at `addr`: CUDA device memory, else host (the CPU backend's heap, or no GPU).
DLDevice device_of(std::uintptr_t addr) {
  cudaPointerAttributes attr{};
  if (cudaPointerGetAttributes(&attr, as_ptr(addr)) == cudaSuccess && attr.type == cudaMemoryTypeDevice)
    return DLDevice{kDLCUDA, attr.device};
  cudaGetLastError();  // no GPU, or plain host memory: not an error here
  return DLDevice{kDLCPU, 0};
}

/// A span of symmetric memory: owning (from malloc; freed by free_buffer, collective) or a view (a peer's
/// memory through nvshmem_ptr). Exported through DLPack as a 1-D uint8 tensor of `size` bytes.
struct Buffer {
  std::uintptr_t ptr = 0;
  std::size_t size = 0;
  bool owner = false;
  bool freed = false;
  DLDevice device{kDLCPU, 0};
};

/// An array argument reduced to what the C calls need.
struct View {
  std::uintptr_t ptr = 0;
  std::size_t nbytes = 0;
  std::string dtype;  // NumPy's name ("float32", "bfloat16" from torch); empty for a Buffer (bytes)
  std::size_t size = 0;
  std::size_t itemsize = 1;
};

std::string dtype_name(char kind, std::size_t itemsize) {
  std::string bits = std::to_string(8 * itemsize);
  switch (kind) {
    case 'f':
      return "float" + bits;
    case 'i':
      return "int" + bits;
    case 'u':
      return "uint" + bits;
    case 'b':
      return "bool";
    default:
      return std::string(1, kind) + std::to_string(itemsize);
  }
}

/// The kind ('f', 'i', 'u', 'b') of a struct-module format character (the buffer protocol's).
char format_kind(const char *format) {
  while (*format && std::strchr("@=<>!", *format)) ++format;
  if (*format && std::strchr("efd", *format)) return 'f';
  if (*format && std::strchr("bhilqn", *format)) return 'i';
  if (*format && std::strchr("BHILQN", *format)) return 'u';
  if (*format == '?') return 'b';
  return *format ? *format : 'V';
}

bool c_contiguous(const py::tuple &shape, const py::handle &strides, std::size_t itemsize) {
  if (strides.is_none()) return true;
  py::tuple st = py::reinterpret_borrow<py::tuple>(strides);
  std::size_t expect = itemsize;
  for (std::size_t i = shape.size(); i-- > 0;) {
    auto dim = shape[i].cast<std::size_t>();
    if (dim != 1 && st[i].cast<std::size_t>() != expect) return false;
    expect *= dim;
  }
  return true;
}

/// A torch dtype's name without "torch.", cached per dtype object (torch's dtypes are singletons).
const std::string &torch_dtype(const py::handle &dtype) {
  static std::unordered_map<PyObject *, std::string> names;
  auto it = names.find(dtype.ptr());
  if (it != names.end()) return it->second;
  std::string name = py::str(dtype);
  dtype.inc_ref();  // kept alive with its cache entry
  return names.emplace(dtype.ptr(), name.substr(name.rfind('.') + 1)).first->second;
}

/// The View of `obj` (argument `what` of `call`): a Buffer, anything with the buffer protocol (NumPy), a
/// torch tensor, or anything with __cuda_array_interface__ / __array_interface__ (CuPy). TypeError for
/// what is none of these, ValueError for a non-contiguous array.
View describe(const py::handle &obj, const char *what, const std::string &call) {
  if (py::isinstance<Buffer>(obj)) {
    const Buffer &b = obj.cast<const Buffer &>();
    return View{b.ptr, b.size, "", b.size, 1};
  }
  const bool buffered = PyObject_CheckBuffer(obj.ptr());
  Py_buffer view;
  if (buffered && PyObject_GetBuffer(obj.ptr(), &view, PyBUF_RECORDS_RO) == 0) {
    bool contiguous = PyBuffer_IsContiguous(&view, 'C');
    auto itemsize = static_cast<std::size_t>(view.itemsize);
    View v{reinterpret_cast<std::uintptr_t>(view.buf), static_cast<std::size_t>(view.len),
           dtype_name(format_kind(view.format), itemsize), static_cast<std::size_t>(view.len) / itemsize, itemsize};
    PyBuffer_Release(&view);
    if (!contiguous) throw py::value_error(call + ": " + what + " is not C-contiguous");
    return v;
  }
  // CuPy arrays offer the buffer protocol and refuse it (TypeError) for device memory: they go on to
  // __cuda_array_interface__ below.
  if (buffered) PyErr_Clear();
  py::handle type = reinterpret_cast<PyObject *>(Py_TYPE(obj.ptr()));
  if (py::hasattr(obj, "data_ptr") && py::str(type.attr("__module__")).cast<std::string>().rfind("torch", 0) == 0) {
    if (!obj.attr("is_contiguous")().cast<bool>()) throw py::value_error(call + ": " + what + " is not contiguous");
    auto itemsize = obj.attr("element_size")().cast<std::size_t>();
    auto size = obj.attr("numel")().cast<std::size_t>();
    return View{obj.attr("data_ptr")().cast<std::uintptr_t>(), size * itemsize, torch_dtype(obj.attr("dtype")), size,
                itemsize};
  }
  py::object iface = py::getattr(obj, "__cuda_array_interface__", py::none());
  if (iface.is_none()) iface = py::getattr(obj, "__array_interface__", py::none());
  if (iface.is_none())
    throw py::type_error(call + ": " + what +
                         " must be an array (NumPy, CuPy), a torch tensor or an nvshmem.core.Buffer, not " +
                         std::string(Py_TYPE(obj.ptr())->tp_name));
  py::dict d = iface.cast<py::dict>();
  std::string typestr = d["typestr"].cast<std::string>();
  std::size_t itemsize = std::stoul(typestr.substr(2));
  py::tuple shape = d["shape"].cast<py::tuple>();
  if (!c_contiguous(shape, d.contains("strides") ? py::handle(d["strides"]) : py::none(), itemsize))
    throw py::value_error(call + ": " + what + " is not C-contiguous");
  std::size_t size = 1;
  for (auto dim : shape) size *= dim.cast<std::size_t>();
  return View{d["data"].cast<py::tuple>()[0].cast<std::uintptr_t>(), size * itemsize, dtype_name(typestr[1], itemsize),
              size, itemsize};
}

py::tuple view_tuple(const View &v) {
  return py::make_tuple(v.ptr, v.nbytes, v.dtype.empty() ? py::object(py::none()) : py::str(v.dtype), v.size,
                        v.itemsize);
}

/// TypeError unless dst and src have one dtype.
void same_dtype(const std::string &call, const View &d, const View &s) {
  auto name = [](const View &v) { return v.dtype.empty() ? std::string("bytes (Buffer)") : v.dtype; };
  if (d.dtype != s.dtype) throw py::type_error(call + ": dst has dtype " + name(d) + " but src has " + name(s));
}

/// dst and src of one dtype with dst.size == src.size * num / den (den: reducescatter's team size).
std::pair<View, View> pair(const std::string &call, const py::handle &dst, const py::handle &src, std::size_t num,
                           std::size_t den) {
  View d = describe(dst, "dst", call), s = describe(src, "src", call);
  same_dtype(call, d, s);
  if (d.size * den != s.size * num)
    throw py::value_error(call + ": dst has " + std::to_string(d.size) + " elements but src has " +
                          std::to_string(s.size) + " (dst needs " + std::to_string(s.size * num / den) + ")");
  return {d, s};
}

/// cudaStream_t as an integer: None (the null stream, the only one on the CPU backend), an int, or a stream
/// object of cuda.core (__cuda_stream__ or .handle), torch (.cuda_stream) or CuPy (.ptr).
std::uintptr_t stream_handle(const py::handle &stream) {
  if (stream.is_none()) return 0;
  if (PyLong_Check(stream.ptr())) return stream.cast<std::uintptr_t>();
  if (py::hasattr(stream, "__cuda_stream__"))
    return py::int_(stream.attr("__cuda_stream__")()[py::int_(1)]).cast<std::uintptr_t>();
  for (const char *attr : {"handle", "cuda_stream", "ptr"})
    if (py::hasattr(stream, attr)) return py::int_(stream.attr(attr)).cast<std::uintptr_t>();
  throw py::type_error(std::string("stream must be None, an int or a CUDA stream object, not ") +
                       Py_TYPE(stream.ptr())->tp_name);
}

struct Export {
  DLManagedTensor tensor{};
  std::int64_t shape = 0;
  PyObject *owner = nullptr;  // the Buffer, kept alive while a consumer holds the tensor
};

void export_deleter(DLManagedTensor *m) {
  auto *e = static_cast<Export *>(m->manager_ctx);
  PyGILState_STATE g = PyGILState_Ensure();
  Py_XDECREF(e->owner);
  PyGILState_Release(g);
  delete e;
}

void capsule_destructor(PyObject *capsule) {
  // Consumed capsules are renamed "used_dltensor"; only an unconsumed one still owns the tensor.
  if (PyCapsule_IsValid(capsule, "dltensor"))
    export_deleter(static_cast<DLManagedTensor *>(PyCapsule_GetPointer(capsule, "dltensor")));
}

py::capsule dlpack(py::object self) {
  const Buffer &b = self.cast<const Buffer &>();
  if (b.freed) fail("Buffer.__dlpack__", "the buffer was freed");
  auto *e = new Export;
  e->shape = static_cast<std::int64_t>(b.size);
  e->owner = self.ptr();
  Py_INCREF(e->owner);
  DLTensor &t = e->tensor.dl_tensor;
  t.data = as_ptr(b.ptr);
  t.device = b.device;
  t.ndim = 1;
  t.dtype = DLDataType{kDLUInt, 8, 1};
  t.shape = &e->shape;
  t.strides = nullptr;
  t.byte_offset = 0;
  e->tensor.manager_ctx = e;
  e->tensor.deleter = export_deleter;
  return py::reinterpret_steal<py::capsule>(PyCapsule_New(&e->tensor, "dltensor", capsule_destructor));
}

// ---- typed dispatch, generated from the library's type tables ----

using ReduceFn = int (*)(nvshmem_team_t, void *, const void *, std::size_t, cudaStream_t);
std::unordered_map<std::string, std::pair<ReduceFn, ReduceFn>> reduce_table() {
  std::unordered_map<std::string, std::pair<ReduceFn, ReduceFn>> t;
#define NVSHM4PY_REDUCE(OP, NAME, T)                                                                               \
  t[#OP "_" #NAME] = {[](nvshmem_team_t team, void *d, const void *s, std::size_t n, cudaStream_t st) {            \
                        return nvshmemx_##NAME##_##OP##_reduce_on_stream(team, static_cast<T *>(d),                \
                                                                         static_cast<const T *>(s), n, st);        \
                      },                                                                                           \
                      [](nvshmem_team_t team, void *d, const void *s, std::size_t n, cudaStream_t st) {            \
                        return nvshmemx_##NAME##_##OP##_reducescatter_on_stream(team, static_cast<T *>(d),         \
                                                                                static_cast<const T *>(s), n, st); \
                      }};
  NVSHM_FOR_EACH_REDUCE_OP_TYPE(NVSHM4PY_REDUCE)
#undef NVSHM4PY_REDUCE
  return t;
}

template <typename T>
T from_py(const py::handle &v) {
  if constexpr (std::is_same_v<T, half>)
    return __float2half(v.cast<float>());
  else
    return v.cast<T>();
}
template <typename T>
py::object to_py(T v) {
  if constexpr (std::is_same_v<T, half>)
    return py::float_(__half2float(v));
  else
    return py::cast(v);
}

/// One host atomic: (address, value, cond, pe) -> the fetched value, or None for the non-fetching forms.
using AmoFn = py::object (*)(std::uintptr_t, const py::handle &, const py::handle &, int);
std::unordered_map<std::string, AmoFn> amo_table() {
  std::unordered_map<std::string, AmoFn> t;
#define NVSHM4PY_AMO_VOID(OP, CALL, NAME, T)                                                 \
  t[#OP "_" #NAME] = [](std::uintptr_t a, const py::handle &v, const py::handle &, int pe) { \
    CALL;                                                                                    \
    return py::object(py::none());                                                           \
  };
#define NVSHM4PY_AMO_FETCH(OP, CALL, NAME, T)                                                 \
  t[#OP "_" #NAME] = [](std::uintptr_t a, const py::handle &v, const py::handle &c, int pe) { \
    (void)v;                                                                                  \
    (void)c;                                                                                  \
    return to_py<T>(CALL);                                                                    \
  };
#define NVSHM4PY_AMO_FETCH_FAMILY(NAME, T)                                                      \
  NVSHM4PY_AMO_FETCH(fetch, nvshmem_##NAME##_atomic_fetch(as_ptr<T>(a), pe), NAME, T)           \
  NVSHM4PY_AMO_VOID(set, nvshmem_##NAME##_atomic_set(as_ptr<T>(a), from_py<T>(v), pe), NAME, T) \
  NVSHM4PY_AMO_FETCH(swap, nvshmem_##NAME##_atomic_swap(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)
#define NVSHM4PY_AMO_ARITH_FAMILY(NAME, T)                                                                          \
  NVSHM4PY_AMO_FETCH(compare_swap,                                                                                  \
                     nvshmem_##NAME##_atomic_compare_swap(as_ptr<T>(a), from_py<T>(c), from_py<T>(v), pe), NAME, T) \
  NVSHM4PY_AMO_VOID(inc, nvshmem_##NAME##_atomic_inc(as_ptr<T>(a), pe), NAME, T)                                    \
  NVSHM4PY_AMO_FETCH(fetch_inc, nvshmem_##NAME##_atomic_fetch_inc(as_ptr<T>(a), pe), NAME, T)                       \
  NVSHM4PY_AMO_VOID(add, nvshmem_##NAME##_atomic_add(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)                     \
  NVSHM4PY_AMO_FETCH(fetch_add, nvshmem_##NAME##_atomic_fetch_add(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)
#define NVSHM4PY_AMO_LOGIC_FAMILY(NAME, T)                                                                   \
  NVSHM4PY_AMO_VOID(and, nvshmem_##NAME##_atomic_and(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)              \
  NVSHM4PY_AMO_FETCH(fetch_and, nvshmem_##NAME##_atomic_fetch_and(as_ptr<T>(a), from_py<T>(v), pe), NAME, T) \
  NVSHM4PY_AMO_VOID(or, nvshmem_##NAME##_atomic_or(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)                \
  NVSHM4PY_AMO_FETCH(fetch_or, nvshmem_##NAME##_atomic_fetch_or(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)   \
  NVSHM4PY_AMO_VOID(xor, nvshmem_##NAME##_atomic_xor(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)              \
  NVSHM4PY_AMO_FETCH(fetch_xor, nvshmem_##NAME##_atomic_fetch_xor(as_ptr<T>(a), from_py<T>(v), pe), NAME, T)
  NVSHM_FOR_EACH_AMO_FETCH_TYPE(NVSHM4PY_AMO_FETCH_FAMILY)
  NVSHM_FOR_EACH_AMO_ARITH_TYPE(NVSHM4PY_AMO_ARITH_FAMILY)
  NVSHM_FOR_EACH_AMO_LOGIC_TYPE(NVSHM4PY_AMO_LOGIC_FAMILY)
#undef NVSHM4PY_AMO_LOGIC_FAMILY
#undef NVSHM4PY_AMO_ARITH_FAMILY
#undef NVSHM4PY_AMO_FETCH_FAMILY
#undef NVSHM4PY_AMO_FETCH
#undef NVSHM4PY_AMO_VOID
  return t;
}

// ---- init and finalize ----

constexpr int kInitEnvironment = 0, kInitUniqueId = 1, kInitMpiComm = 2;

void init(int method, const py::bytes &uid, int rank, int nranks, std::uintptr_t mpi_comm, int device) {
  const char *call = "init";
  if (initialized()) fail(call, "NVSHMEM is already initialized (call nvshmem.core.finalize first)");
  nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
  attr.args.cuda_device_id = device;
  unsigned flags = 0;
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  if (method == kInitUniqueId) {
    std::string raw = uid;
    if (raw.size() != sizeof id)
      fail(call, "the unique id has " + std::to_string(raw.size()) + " bytes, not " + std::to_string(sizeof id));
    std::memcpy(&id, raw.data(), sizeof id);
    check_status(call, "nvshmemx_set_attr_uniqueid_args", nvshmemx_set_attr_uniqueid_args(rank, nranks, &id, &attr));
    flags = NVSHMEMX_INIT_WITH_UNIQUEID;
  } else if (method == kInitMpiComm) {
    check_status(call, "nvshmemx_set_attr_mpi_comm_args", nvshmemx_set_attr_mpi_comm_args(as_ptr(mpi_comm), &attr));
    flags = NVSHMEMX_INIT_WITH_MPI_COMM;
  }
  int status;
  {
    py::gil_scoped_release unlocked;  // the bootstrap waits for the other PEs
    status = nvshmemx_init_attr(flags, &attr);
  }
  check_status(call, "nvshmemx_init_attr", status);
}

py::bytes get_unique_id() {
  nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
  check_status("get_unique_id", "nvshmemx_get_uniqueid", nvshmemx_get_uniqueid(&id));
  return py::bytes(reinterpret_cast<const char *>(&id), sizeof id);
}

// ---- memory ----

Buffer malloc_buffer(std::size_t nbytes) {
  const char *call = "buffer";
  need_init(call);
  if (nbytes == 0) fail(call, "size 0: a symmetric allocation needs at least one byte");
  void *p;
  {
    py::gil_scoped_release unlocked;  // collective
    p = nvshmem_malloc(nbytes);
  }
  if (p == nullptr)
    fail(call, "nvshmem_malloc(" + std::to_string(nbytes) +
                   ") returned NULL: the symmetric heap is full (NVSHMEM_SYMMETRIC_SIZE)");
  auto a = reinterpret_cast<std::uintptr_t>(p);
  return Buffer{a, nbytes, true, false, device_of(a)};
}

void free_buffer(Buffer &b) {
  const char *call = "free";
  need_init(call);
  if (!b.owner) fail(call, "the buffer is a peer view (get_peer_*), not an allocation");
  if (b.freed) fail(call, "the buffer was already freed");
  {
    py::gil_scoped_release unlocked;  // collective
    nvshmem_free(as_ptr(b.ptr));
  }
  b.freed = true;
}

/// This PE's address [addr, addr + nbytes) as PE `pe` maps it (nvshmem_ptr), as a non-owning Buffer.
Buffer peer(std::uintptr_t addr, std::size_t nbytes, int pe) {
  const char *call = "get_peer_array";
  check_pe(call, pe);
  check_symmetric(call, "the array", addr, nbytes);
  void *p = nvshmem_ptr(as_ptr(addr), pe);
  if (p == nullptr)
    fail(call,
         "PE " + std::to_string(pe) + "'s memory is not reachable by load/store from this PE (nvshmem_ptr is NULL)");
  auto a = reinterpret_cast<std::uintptr_t>(p);
  return Buffer{a, nbytes, false, false, device_of(a)};
}

// ---- RMA and signals (stream-ordered) ----

/// The bytes an RMA call moves: all of dst and src (same dtype and size), or their first `count` elements.
std::size_t rma_bytes(const std::string &call, const View &d, const View &s, const py::handle &count) {
  if (count.is_none()) {
    if (d.nbytes != s.nbytes)
      throw py::value_error(call + ": dst has " + std::to_string(d.size) + " elements but src has " +
                            std::to_string(s.size));
    return d.nbytes;
  }
  auto n = count.cast<long long>();
  if (n < 0 || static_cast<std::size_t>(n) > std::min(d.size, s.size))
    throw py::value_error(call + ": count " + std::to_string(n) + " is outside [0, " +
                          std::to_string(std::min(d.size, s.size)) + "], the elements of dst and src");
  return static_cast<std::size_t>(n) * d.itemsize;
}

/// put (get: false) or get of arrays dst and src: `count` elements (None: all), PE `pe`, on `stream`.
void rma(bool is_get, py::handle dst, py::handle src, int pe, py::handle stream, py::handle count) {
  const std::string call = is_get ? "get" : "put";
  View d = describe(dst, "dst", call), s = describe(src, "src", call);
  same_dtype(call, d, s);
  std::size_t nbytes = rma_bytes(call, d, s, count);
  std::uintptr_t st = stream_handle(stream);
  check_pe(call, pe);
  if (is_get) {
    check_symmetric(call, "src", s.ptr, nbytes);
    nvshmemx_getmem_on_stream(as_ptr(d.ptr), as_ptr(s.ptr), nbytes, pe, as_stream(st));
  } else {
    check_symmetric(call, "dst", d.ptr, nbytes);
    nvshmemx_putmem_on_stream(as_ptr(d.ptr), as_ptr(s.ptr), nbytes, pe, as_stream(st));
  }
}

/// The address of a signal word: a symmetric uint64 array (or a Buffer of at least 8 bytes).
std::uintptr_t signal_word(const char *call, const py::handle &signal_var) {
  View v = describe(signal_var, "signal_var", call);
  if ((v.dtype != "uint64" && !v.dtype.empty()) || v.nbytes < sizeof(std::uint64_t))
    throw py::type_error(std::string(call) +
                         ": signal_var must be a uint64 array (or a Buffer of at least 8 bytes), not " +
                         (v.dtype.empty() ? "bytes" : v.dtype) + " of " + std::to_string(v.nbytes) + " bytes");
  check_symmetric(call, "signal_var", v.ptr, sizeof(std::uint64_t));
  return v.ptr;
}

void check_signal_op(const char *call, int op) {
  if (op != NVSHMEM_SIGNAL_SET && op != NVSHMEM_SIGNAL_ADD)
    fail(call, "signal_op " + std::to_string(op) + " is neither SignalOp.SIGNAL_SET nor SignalOp.SIGNAL_ADD");
}

void put_signal(py::handle dst, py::handle src, py::handle signal_var, std::uint64_t value, int op, int pe,
                py::handle stream) {
  const char *call = "put_signal";
  auto [d, s] = pair(call, dst, src, 1, 1);
  std::uintptr_t st = stream_handle(stream);
  check_pe(call, pe);
  check_symmetric(call, "dst", d.ptr, d.nbytes);
  std::uintptr_t sig = signal_word(call, signal_var);
  check_signal_op(call, op);
  nvshmemx_putmem_signal_on_stream(as_ptr(d.ptr), as_ptr(s.ptr), d.nbytes, as_ptr<std::uint64_t>(sig), value, op, pe,
                                   as_stream(st));
}

void signal_op(py::handle signal_var, std::uint64_t value, int op, int pe, py::handle stream) {
  const char *call = "signal_op";
  std::uintptr_t st = stream_handle(stream);
  check_pe(call, pe);
  std::uintptr_t sig = signal_word(call, signal_var);
  check_signal_op(call, op);
  nvshmemx_signal_op_on_stream(as_ptr<std::uint64_t>(sig), value, op, pe, as_stream(st));
}

void signal_wait(py::handle signal_var, std::uint64_t value, int cmp, py::handle stream) {
  const char *call = "signal_wait";
  std::uintptr_t st = stream_handle(stream);
  std::uintptr_t sig = signal_word(call, signal_var);
  if (cmp < NVSHMEM_CMP_EQ || cmp > NVSHMEM_CMP_GE)
    fail(call, "comparison " + std::to_string(cmp) + " is not a ComparisonType");
  py::gil_scoped_release unlocked;  // on the CPU backend the wait runs here (bounded by the library)
  nvshmemx_signal_wait_until_on_stream(as_ptr<std::uint64_t>(sig), cmp, value, as_stream(st));
}

void quiet(py::handle stream) {
  std::uintptr_t st = stream_handle(stream);
  need_init("quiet");
  nvshmemx_quiet_on_stream(as_stream(st));
}

// ---- collectives (stream-ordered; all members of the team call them) ----

void barrier(int team, py::handle stream) {
  std::uintptr_t st = stream_handle(stream);
  check_team("barrier", team);
  py::gil_scoped_release unlocked;
  check_status("barrier", "nvshmemx_barrier_on_stream", nvshmemx_barrier_on_stream(team, as_stream(st)));
}

void team_sync(int team, py::handle stream) {
  std::uintptr_t st = stream_handle(stream);
  check_team("sync", team);
  py::gil_scoped_release unlocked;
  check_status("sync", "nvshmemx_team_sync_on_stream", nvshmemx_team_sync_on_stream(team, as_stream(st)));
}

/// broadcast / fcollect / alltoall in bytes: `nbytes` per PE block; dst holds n_pes blocks for fcollect
/// and alltoall, and src too for alltoall (checked by the caller's shapes and here against the heap).
void bytes_collective(const std::string &name, int team, std::uintptr_t dst, std::uintptr_t src, std::size_t nbytes,
                      int root, py::handle stream_obj) {
  std::uintptr_t stream = stream_handle(stream_obj);
  check_team(name, team);
  std::size_t n = static_cast<std::size_t>(nvshmem_team_n_pes(team));
  std::size_t dst_bytes = name == "broadcast" ? nbytes : nbytes * n;
  check_symmetric(name, "dst", dst, dst_bytes);
  check_symmetric(name, "src", src, name == "alltoall" ? nbytes * n : nbytes);
  if (name == "broadcast" && (root < 0 || static_cast<std::size_t>(root) >= n))
    fail(name, "root " + std::to_string(root) + " is out of range [0, " + std::to_string(n) + ") of the team");
  int status;
  const char *c_call;
  {
    py::gil_scoped_release unlocked;
    if (name == "broadcast") {
      c_call = "nvshmemx_broadcastmem_on_stream";
      status = nvshmemx_broadcastmem_on_stream(team, as_ptr(dst), as_ptr(src), nbytes, root, as_stream(stream));
    } else if (name == "fcollect") {
      c_call = "nvshmemx_fcollectmem_on_stream";
      status = nvshmemx_fcollectmem_on_stream(team, as_ptr(dst), as_ptr(src), nbytes, as_stream(stream));
    } else {
      c_call = "nvshmemx_alltoallmem_on_stream";
      status = nvshmemx_alltoallmem_on_stream(team, as_ptr(dst), as_ptr(src), nbytes, as_stream(stream));
    }
  }
  check_status(name, c_call, status);
}

}  // namespace

PYBIND11_MODULE(_nvshmem, m) {
  m.doc() = "nvshmem4py's binding layer over the public NVSHMEM C API (internal; use nvshmem.core)";
  py::register_exception<Error>(m, "NvshmemError", PyExc_Exception);

  py::class_<Buffer>(m, "Buffer", py::buffer_protocol(),
                     "Symmetric memory (or a peer's view of it) as a byte span: DLPack, and the buffer protocol "
                     "on host memory (NumPy's from_dlpack gives read-only arrays)")
      .def_buffer([](const Buffer &b) {
        if (b.freed) fail("Buffer", "the buffer was freed");
        if (b.device.device_type != kDLCPU)
          throw py::buffer_error("nvshmem.core.Buffer: GPU memory has no buffer protocol; use DLPack");
        return py::buffer_info(as_ptr(b.ptr), 1, py::format_descriptor<std::uint8_t>::format(), 1,
                               {static_cast<py::ssize_t>(b.size)}, {static_cast<py::ssize_t>(1)}, false);
      })
      .def_readonly("handle", &Buffer::ptr, "Address of the first byte (int)")
      .def_readonly("size", &Buffer::size, "Size in bytes")
      .def_readonly("owner", &Buffer::owner, "True for an allocation (free it), False for a peer view")
      .def_readonly("freed", &Buffer::freed, "True once free() released it")
      .def_property_readonly("is_device_accessible", [](const Buffer &b) { return b.device.device_type == kDLCUDA; })
      .def(
          "__dlpack__", [](py::object self, py::args, py::kwargs) { return dlpack(self); },
          "DLPack capsule of a 1-D uint8 tensor over the bytes; the stream argument is accepted and ignored "
          "(the buffer has no pending producer work of its own)")
      .def("__dlpack_device__",
           [](const Buffer &b) { return py::make_tuple(static_cast<int>(b.device.device_type), b.device.device_id); })
      .def("__repr__", [](const Buffer &b) {
        return "<nvshmem.core.Buffer " + std::to_string(b.size) + " bytes at 0x" +
               py::str(py::int_(b.ptr)).cast<std::string>() +
               (b.device.device_type == kDLCUDA ? " (cuda)" : " (host)") + (b.owner ? "" : " peer view") +
               (b.freed ? " freed" : "") + ">";
      });

  m.attr("UNIQUE_ID_BYTES") = sizeof(nvshmemx_uniqueid_t);
  m.attr("INIT_ENVIRONMENT") = kInitEnvironment;
  m.attr("INIT_UNIQUE_ID") = kInitUniqueId;
  m.attr("INIT_MPI_COMM") = kInitMpiComm;
  m.def("init", &init);
  m.def("get_unique_id", &get_unique_id);
  m.def("finalize", [] {
    py::gil_scoped_release unlocked;  // collective
    nvshmem_finalize();
  });
  m.def("init_status", [] { return nvshmemx_init_status(); });
  m.def("my_pe", [] {
    need_init("my_pe");
    return nvshmem_my_pe();
  });
  m.def("n_pes", [] {
    need_init("n_pes");
    return nvshmem_n_pes();
  });
  m.def("team_my_pe", [](int team) {
    need_init("team_my_pe");
    return nvshmem_team_my_pe(team);
  });
  m.def("team_n_pes", [](int team) {
    need_init("team_n_pes");
    return nvshmem_team_n_pes(team);
  });
  m.def("version", [] {
    int major, minor, patch;
    nvshmemx_vendor_get_version_info(&major, &minor, &patch);
    char name[NVSHMEM_MAX_NAME_LEN];
    nvshmem_info_get_name(name);
    return py::make_tuple(major, minor, patch, std::string(name));
  });

  m.def("malloc", &malloc_buffer);
  m.def("free", &free_buffer);
  m.def("peer", &peer);

  m.def("describe", [](py::handle obj, const char *what, const std::string &call) {
    return view_tuple(describe(obj, what, call));
  });
  m.def("pair", [](const std::string &call, py::handle dst, py::handle src, std::size_t num, std::size_t den) {
    auto [d, s] = pair(call, dst, src, num, den);
    return py::make_tuple(view_tuple(d), view_tuple(s));
  });
  m.def("stream_handle", &stream_handle);
  m.def("put", [](py::handle dst, py::handle src, int pe, py::handle stream, py::handle count) {
    rma(false, dst, src, pe, stream, count);
  });
  m.def("get", [](py::handle dst, py::handle src, int pe, py::handle stream, py::handle count) {
    rma(true, dst, src, pe, stream, count);
  });
  m.def("put_signal", &put_signal);
  m.def("signal_op", &signal_op);
  m.def("signal_wait", &signal_wait);
  m.def("quiet", &quiet);
  // The C call alone, without the checks: the perftest's baseline for the binding's own cost.
  m.def("putmem_on_stream_unchecked",
        [](std::uintptr_t dst, std::uintptr_t src, std::size_t n, int pe, std::uintptr_t stream) {
          nvshmemx_putmem_on_stream(as_ptr(dst), as_ptr(src), n, pe, as_stream(stream));
        });

  // The same call in a C++ loop: the perftest's cost of the C call itself, in seconds for `iters` calls.
  m.def("time_c_putmem_on_stream",
        [](std::uintptr_t dst, std::uintptr_t src, std::size_t n, int pe, std::uintptr_t stream, int iters) {
          check_pe("time_c_putmem_on_stream", pe);
          check_symmetric("time_c_putmem_on_stream", "dst", dst, n);
          auto start = std::chrono::steady_clock::now();
          for (int i = 0; i < iters; ++i) nvshmemx_putmem_on_stream(as_ptr(dst), as_ptr(src), n, pe, as_stream(stream));
          return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        });

  m.def("barrier", &barrier);
  m.def("sync", &team_sync);
  m.def("bytes_collective", &bytes_collective);
  static const auto reduces = reduce_table();
  m.def("reduce_types", [] {
    py::set names;
    for (const auto &kv : reduces) names.add(kv.first);
    return names;
  });
  m.def("reduce", [](const std::string &name, const std::string &key, int team, std::uintptr_t dst, std::uintptr_t src,
                     std::size_t nelems, std::size_t elem_bytes, py::handle stream_obj) {
    std::uintptr_t stream = stream_handle(stream_obj);
    auto it = reduces.find(key);
    if (it == reduces.end()) fail(name, "no reduction " + key + " (op_type) in the library");
    check_team(name, team);
    std::size_t n = static_cast<std::size_t>(nvshmem_team_n_pes(team));
    bool scatter = name == "reducescatter";
    check_symmetric(name, "dst", dst, nelems * elem_bytes);
    check_symmetric(name, "src", src, nelems * elem_bytes * (scatter ? n : 1));
    ReduceFn fn = scatter ? it->second.second : it->second.first;
    int status;
    {
      py::gil_scoped_release unlocked;
      status = fn(team, as_ptr(dst), as_ptr(src), nelems, as_stream(stream));
    }
    check_status(name, scatter ? "nvshmemx_<T>_<op>_reducescatter_on_stream" : "nvshmemx_<T>_<op>_reduce_on_stream",
                 status);
  });

  static const auto amos = amo_table();
  m.def("atomic", [](const std::string &op, const std::string &type, std::uintptr_t addr, std::size_t elem_bytes,
                     py::handle value, py::handle cond, int pe) {
    std::string call = "atomic_" + op;
    auto it = amos.find(op + "_" + type);
    if (it == amos.end()) throw py::type_error("nvshmem error in " + call + ": no atomic " + op + " on " + type);
    check_pe(call, pe);
    check_symmetric(call, "the target", addr, elem_bytes);
    return it->second(addr, value, cond, pe);
  });
}
