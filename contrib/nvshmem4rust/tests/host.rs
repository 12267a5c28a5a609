// SPDX-License-Identifier: BSD-3-Clause
//! The crate's tests, run as 2 PEs under nvshmrun (README.md): every PE runs the same tests in the
//! same order (`--test-threads=1`), each starting and ending its own runtime. CPU backend in CI
//! (NVSHMEM_HEAP_KIND=SYSMEM), GPU heap on the GPU machine: memory is read only through RMA.

use std::ptr;

use nvshmem::sys;
use nvshmem::{Error, InitMethod, NvshmemRuntime, SymmetricBuffer, UniqueId};

fn runtime() -> NvshmemRuntime {
    NvshmemRuntime::init(InitMethod::BootstrapEnv, None).expect("init from the launcher's environment")
}

/// Deterministic pseudo-random values that differ per PE and per call site.
fn random_values(seed: u64, len: usize) -> Vec<u64> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        })
        .collect()
}

/// Initialised: IS_INITIALIZED, or LIMITED_MPG / FULL_MPG where the PEs share one GPU (2 PEs on the GPU
/// machine's one GPU).
fn assert_initialised() {
    let status = nvshmem::init_status();
    assert!(
        [
            sys::NVSHMEM_STATUS_IS_INITIALIZED,
            sys::NVSHMEM_STATUS_LIMITED_MPG,
            sys::NVSHMEM_STATUS_FULL_MPG
        ]
        .contains(&status),
        "init status {status}"
    );
}

#[test]
fn queries() {
    let rt = runtime();
    assert_eq!(rt.n_pes(), 2, "run under nvshmrun -n 2");
    assert!(rt.my_pe() >= 0 && rt.my_pe() < 2);
    assert_eq!(nvshmem::my_pe(), Ok(rt.my_pe()));
    assert_eq!(nvshmem::n_pes(), Ok(2));
    assert_initialised();
    assert!(NvshmemRuntime::is_live());
    assert_eq!(rt.library_version().0, sys::NVSHMEM_VENDOR_MAJOR_VERSION);
    // The prefix-stripped raw aliases reach the same functions.
    assert_eq!(unsafe { nvshmem::team_my_pe(sys::NVSHMEM_TEAM_WORLD) }, rt.my_pe());
    rt.barrier_all();
    nvshmem::barrier_all().unwrap();
    rt.sync_all();
    rt.quiet();
}

/// The safe query and barrier without a live runtime: an error naming the call, not a stopped
/// process (the C calls print a message and stop it before init).
#[test]
fn safe_calls_without_a_runtime_are_errors() {
    assert!(!NvshmemRuntime::is_live());
    for (result, call) in [
        (nvshmem::my_pe().map(drop), "nvshmem_my_pe"),
        (nvshmem::n_pes().map(drop), "nvshmem_n_pes"),
        (nvshmem::barrier_all(), "nvshmem_barrier_all"),
        (
            nvshmem::quiet_on_stream(nvshmem::Stream::DEFAULT),
            "nvshmemx_quiet_on_stream",
        ),
    ] {
        let e = result.unwrap_err();
        assert_eq!((e.call, e.status), (call, sys::NVSHMEMX_ERROR_INVALID_VALUE), "{}", e);
        assert!(e.message.contains("no runtime is live"), "{}", e);
    }
    // With a runtime: the values; after its last handle: errors again.
    let rt = runtime();
    let me = rt.my_pe();
    assert_eq!((nvshmem::my_pe(), nvshmem::n_pes()), (Ok(me), Ok(2)));
    nvshmem::barrier_all().unwrap();
    drop(rt);
    assert_eq!(nvshmem::init_status(), sys::NVSHMEM_STATUS_NOT_INITIALIZED);
    assert_eq!(nvshmem::my_pe().unwrap_err().call, "nvshmem_my_pe");
}

#[test]
fn heap_alloc_and_free() {
    let rt = runtime();
    let empty = SymmetricBuffer::<u32>::new(&rt, 0).unwrap();
    assert!(empty.is_empty());
    assert_eq!(empty.len(), 0);
    let a = SymmetricBuffer::<u8>::new(&rt, 1).unwrap();
    let b = SymmetricBuffer::<f64>::new(&rt, 1000).unwrap();
    let c = SymmetricBuffer::<[u64; 4]>::new(&rt, 3).unwrap();
    assert_eq!((a.len(), b.len(), b.bytes(), c.bytes()), (1, 1000, 8000, 96));
    assert_eq!(b.as_ptr() as usize % 8, 0);
    assert_eq!(c.as_ptr() as usize % 8, 0);
    assert_ne!(a.as_ptr() as usize, b.as_ptr() as usize);
    assert_eq!(b.peer_ptr(rt.my_pe()), Some(b.as_mut_ptr()));
    // Overflowing sizes fail the same way on every PE, without a collective call.
    let err = SymmetricBuffer::<u64>::new(&rt, usize::MAX / 4).unwrap_err();
    assert_eq!(err.status, sys::NVSHMEMX_ERROR_INVALID_VALUE);
    assert!(err.to_string().contains("overflow"), "{}", err);
    drop(b);
    drop(a);
    // Freed space is reused: the same request gets an address again.
    let d = SymmetricBuffer::<f64>::new(&rt, 1000).unwrap();
    assert!(!d.as_ptr().is_null());
}

#[test]
fn put_get_real_data() {
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let right = (me + 1) % n;
    let left = (me + n - 1) % n;
    let len = 4096 + 3;
    let buf = SymmetricBuffer::<u64>::new(&rt, len).unwrap();
    // Poison the own copy, then let the left neighbour overwrite it.
    buf.put(0, &vec![u64::MAX; len], me).unwrap();
    rt.barrier_all();
    buf.put(0, &random_values(me as u64 + 1, len), right).unwrap();
    rt.barrier_all();
    let mut mine = vec![0u64; len];
    buf.get(0, &mut mine, me).unwrap();
    assert_eq!(mine, random_values(left as u64 + 1, len));
    // get from the peer sees what this PE sent it.
    let mut theirs = vec![0u64; 17];
    buf.get(100, &mut theirs, right).unwrap();
    assert_eq!(theirs, random_values(me as u64 + 1, len)[100..117].to_vec());
    rt.barrier_all();
    // Typed raw aliases: raw_int_p / raw_int_g on a buffer of i32.
    let ints = SymmetricBuffer::<i32>::new(&rt, 2).unwrap();
    unsafe { nvshmem::raw_int_p(ints.as_mut_ptr().add(1), 1000 + me, right) };
    rt.barrier_all();
    assert_eq!(unsafe { nvshmem::raw_int_g(ints.as_ptr().add(1), me) }, 1000 + left);
    // Out-of-range requests are refused before any transfer.
    assert_eq!(
        buf.put(len - 1, &[1, 2], right).unwrap_err().status,
        sys::NVSHMEMX_ERROR_INVALID_VALUE
    );
    assert_eq!(
        buf.get(0, &mut [0u64; 1], n).unwrap_err().status,
        sys::NVSHMEMX_ERROR_INVALID_VALUE
    );
    assert!(buf.put(usize::MAX, &[1], right).is_err());
    rt.barrier_all();
}

#[test]
fn signals() {
    let rt = runtime();
    let me = rt.my_pe();
    let sig = SymmetricBuffer::<u64>::new(&rt, 1).unwrap();
    unsafe { sys::nvshmemx_signal_op(sig.as_mut_ptr(), 0, sys::NVSHMEM_SIGNAL_SET, me) };
    rt.barrier_all();
    // Every PE adds (its id + 1) to PE 0's word (the raw aliases).
    unsafe { nvshmem::raw_signal_op(sig.as_mut_ptr(), me as u64 + 1, sys::NVSHMEM_SIGNAL_ADD, 0) };
    rt.barrier_all();
    if me == 0 {
        assert_eq!(unsafe { nvshmem::raw_signal_fetch(sig.as_mut_ptr()) }, 3);
    }
    rt.barrier_all();
    // The safe forms: element 1 of a pair on the left neighbour, set then added to.
    let (n, pair) = (rt.n_pes(), SymmetricBuffer::<u64>::new(&rt, 2).unwrap());
    nvshmem::signal_op(&pair, 0, 0, sys::NVSHMEM_SIGNAL_SET, me).unwrap();
    nvshmem::signal_op(&pair, 1, 0, sys::NVSHMEM_SIGNAL_SET, me).unwrap();
    rt.barrier_all();
    let right = (me + 1) % n;
    nvshmem::signal_op(&pair, 1, 1000, sys::NVSHMEM_SIGNAL_SET, right).unwrap();
    nvshmem::signal_op(&pair, 1, me as u64 + 1, sys::NVSHMEM_SIGNAL_ADD, right).unwrap();
    rt.barrier_all();
    let left = (me + n - 1) % n;
    assert_eq!(nvshmem::signal_fetch(&pair, 1).unwrap(), 1000 + left as u64 + 1);
    assert_eq!(nvshmem::signal_fetch(&pair, 0).unwrap(), 0);
    let e = nvshmem::signal_op(&pair, 0, 1, 7, right).unwrap_err();
    assert!(
        e.call == "nvshmemx_signal_op" && e.message.contains("sig_op 7"),
        "{}",
        e
    );
    assert!(nvshmem::signal_op(&pair, 2, 1, sys::NVSHMEM_SIGNAL_SET, right).is_err());
    assert!(nvshmem::signal_op(&pair, 0, 1, sys::NVSHMEM_SIGNAL_SET, n).is_err());
    assert!(nvshmem::signal_fetch(&pair, 2).is_err());
    rt.barrier_all();
    unsafe { sys::nvshmemx_signal_op(sig.as_mut_ptr(), 42 + me as u64, sys::NVSHMEM_SIGNAL_SET, 1 - me) };
    rt.barrier_all();
    assert_eq!(
        unsafe { sys::nvshmem_signal_fetch(sig.as_mut_ptr()) },
        42 + (1 - me) as u64
    );
    rt.barrier_all();
}

#[test]
fn atomics() {
    let rt = runtime();
    let me = rt.my_pe();
    let counter = SymmetricBuffer::<i64>::new(&rt, 1).unwrap();
    let word = SymmetricBuffer::<u32>::new(&rt, 1).unwrap();
    unsafe {
        nvshmem::raw_int64_atomic_set(counter.as_mut_ptr(), 0, me);
        nvshmem::raw_uint32_atomic_set(word.as_mut_ptr(), 0, me);
    }
    rt.barrier_all();
    let rounds = 100;
    for _ in 0..rounds {
        let before = unsafe { nvshmem::raw_int64_atomic_fetch_add(counter.as_mut_ptr(), me as i64 + 1, 0) };
        assert!((0..3 * rounds).contains(&before));
    }
    unsafe { nvshmem::raw_uint32_atomic_or(word.as_mut_ptr(), 1 << me, 0) };
    rt.barrier_all();
    if me == 0 {
        assert_eq!(
            unsafe { nvshmem::raw_int64_atomic_fetch(counter.as_ptr(), 0) },
            3 * rounds
        );
        assert_eq!(unsafe { nvshmem::raw_uint32_atomic_fetch(word.as_ptr(), 0) }, 0b11);
    }
    rt.barrier_all();
    // compare_swap on PE 1's word: exactly one PE wins.
    unsafe { nvshmem::raw_int64_atomic_set(counter.as_mut_ptr(), 7, 1) };
    rt.barrier_all();
    let old = unsafe { nvshmem::raw_int64_atomic_compare_swap(counter.as_mut_ptr(), 7, 100 + me as i64, 1) };
    rt.barrier_all();
    let now = unsafe { nvshmem::raw_int64_atomic_fetch(counter.as_ptr(), 1) };
    assert!(now == 100 || now == 101, "{}", now);
    // The winner saw 7, the loser saw the winner's value.
    assert!(old == 7 || old == now, "{} {}", old, now);
    rt.barrier_all();
}

#[test]
fn lifetime_buffer_outlives_handle() {
    let rt = runtime();
    let buf = SymmetricBuffer::<u32>::new(&rt, 8).unwrap();
    drop(rt);
    assert_initialised();
    assert!(NvshmemRuntime::is_live());
    let me = buf.runtime().my_pe();
    buf.put(0, &[me as u32 + 5; 8], me).unwrap();
    let mut back = [0u32; 8];
    buf.get(0, &mut back, me).unwrap();
    assert_eq!(back, [me as u32 + 5; 8]);
    buf.runtime().barrier_all();
    drop(buf);
    assert_eq!(nvshmem::init_status(), sys::NVSHMEM_STATUS_NOT_INITIALIZED);
    assert!(!NvshmemRuntime::is_live());
}

#[test]
fn lifetime_clones_and_reinit() {
    let rt = runtime();
    let clone = rt.clone();
    let joined = runtime(); // same method: a handle on the live runtime
    drop(rt);
    drop(joined);
    assert_initialised();
    let from_thread = std::thread::spawn(move || {
        let n = clone.n_pes();
        drop(clone);
        n
    })
    .join()
    .unwrap();
    assert_eq!(from_thread, 2);
    assert_eq!(nvshmem::init_status(), sys::NVSHMEM_STATUS_NOT_INITIALIZED);
    // A new cycle after the full release.
    let again = runtime();
    assert_eq!(again.n_pes(), 2);
}

#[test]
fn second_init_with_another_method_is_an_error() {
    let rt = runtime();
    let other = InitMethod::UniqueId {
        id: UniqueId::from_bytes([7; UniqueId::SIZE]),
        rank: rt.my_pe(),
        nranks: 2,
    };
    let err: Error = NvshmemRuntime::init(other, None).unwrap_err();
    assert_eq!(err.status, sys::NVSHMEMX_ERROR_INVALID_VALUE);
    assert!(
        err.message.contains("BootstrapEnv") && err.message.contains("UniqueId"),
        "{}",
        err
    );
    let other_device = NvshmemRuntime::init(InitMethod::BootstrapEnv, Some(0)).unwrap_err();
    assert!(
        other_device.message.contains("cuda_device: Some(0)"),
        "{}",
        other_device
    );
    let mpi = InitMethod::MpiComm(unsafe { nvshmem::MpiComm::from_raw(ptr::null_mut()) });
    assert!(NvshmemRuntime::init(mpi, None).is_err());
    // The live runtime is untouched.
    assert_eq!(rt.n_pes(), 2);
    rt.barrier_all();
}

#[test]
fn module_registration_raw_cumodule() {
    let rt = runtime();
    let me = rt.my_pe();
    // A null module is refused with the library's status and this PE (on the CPU backend: no device
    // interface at all).
    let err = unsafe { rt.register_cumodule(ptr::null_mut()) }.unwrap_err();
    let expected = if rt.heap_on_device() {
        sys::NVSHMEMX_ERROR_INVALID_VALUE
    } else {
        sys::NVSHMEMX_ERROR_NOT_SUPPORTED
    };
    assert_eq!((err.call, err.status), ("nvshmemx_cumodule_init", expected), "{}", err);
    assert!(err.message.contains(&format!("PE {}", me)), "{}", err);
    rt.barrier_all();
    if !rt.heap_on_device() {
        return;
    }
    let cubin = match std::env::var("NVSHM_RUST_TEST_CUBIN") {
        Ok(path) => path,
        Err(_) => {
            return eprintln!("module_registration_raw_cumodule: NVSHM_RUST_TEST_CUBIN not set; the launch is skipped")
        }
    };
    // A real cubin: registered, launched (each PE writes its id + 1 to its right neighbour), finalized.
    let gpu = Gpu::new(me);
    let module = gpu.load(&cubin);
    let dst = SymmetricBuffer::<i32>::new(&rt, 1).unwrap();
    nvshmem::int_p(&dst, 0, 0, me).unwrap();
    rt.barrier_all();
    let registration = unsafe { rt.register_cumodule(module) }.unwrap();
    assert_eq!(registration.module(), module);
    gpu.launch(module, b"nvshmem4rust_ring\0", dst.as_mut_ptr());
    gpu.synchronize();
    rt.barrier_all();
    let n = rt.n_pes();
    assert_eq!(nvshmem::int_g(&dst, 0, me).unwrap(), (me + n - 1) % n + 1);
    registration.finalize().unwrap();
    // Dropping a registration unregisters too.
    drop(unsafe { rt.register_cumodule(module) }.unwrap());
    rt.barrier_all();
}

#[test]
fn unique_id_bytes_round_trip() {
    let bytes: [u8; UniqueId::SIZE] = std::array::from_fn(|i| i as u8);
    let id = UniqueId::from_bytes(bytes);
    assert_eq!(id.as_bytes(), &bytes);
    assert_eq!(UniqueId::from_bytes(*id.as_bytes()), id);
}

/// A user struct of plain data, with padding (u8 then u32).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
struct Particle {
    kind: u8,
    id: u32,
    position: [f32; 3],
}
unsafe impl nvshmem::PlainData for Particle {}

/// Alignment beyond the heap's default.
#[repr(C, align(4096))]
#[derive(Clone, Copy)]
struct Page([u8; 4096]);
unsafe impl nvshmem::PlainData for Page {}

#[derive(Clone, Copy)]
struct Nothing;
unsafe impl nvshmem::PlainData for Nothing {}

#[test]
fn user_plain_data() {
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let particles = SymmetricBuffer::<Particle>::new(&rt, 5).unwrap();
    assert_eq!(particles.bytes(), 5 * std::mem::size_of::<Particle>());
    let mine: Vec<Particle> = (0..5)
        .map(|i| Particle {
            kind: me as u8,
            id: 100 * me as u32 + i,
            position: [i as f32, me as f32, 0.5],
        })
        .collect();
    particles.put(0, &mine, (me + 1) % n).unwrap();
    rt.barrier_all();
    let mut got = vec![mine[0]; 5];
    particles.get(0, &mut got, me).unwrap();
    let left = (me + n - 1) % n;
    assert_eq!(
        got[4],
        Particle {
            kind: left as u8,
            id: 100 * left as u32 + 4,
            position: [4.0, left as f32, 0.5]
        }
    );
    let pages = SymmetricBuffer::<Page>::new(&rt, 2).unwrap();
    assert_eq!(pages.as_ptr() as usize % 4096, 0);
    let err = SymmetricBuffer::<Nothing>::new(&rt, 3).unwrap_err();
    assert_eq!(err.status, sys::NVSHMEMX_ERROR_INVALID_VALUE);
    assert!(
        err.message.contains("zero-sized") && err.message.contains(&format!("PE {}", me)),
        "{}",
        err
    );
    rt.barrier_all();
}

/// The CUDA driver, for the GPU halves of the tests: the primary context of this PE's GPU (the
/// library's choice: node-local PE index modulo the visible GPUs), made current.
struct Gpu {
    cuda: libloading::os::unix::Library,
}

impl Gpu {
    fn new(me: i32) -> Gpu {
        use std::os::raw::{c_int, c_void};
        // SAFETY: the driver's C functions, typed as their declarations; the library is already loaded.
        unsafe {
            let cuda = libloading::os::unix::Library::open(Some("libcuda.so.1"), libloading::os::unix::RTLD_NOW)
                .expect("the CUDA driver");
            let count = cuda
                .get::<unsafe extern "C" fn(*mut c_int) -> c_int>(b"cuDeviceGetCount\0")
                .unwrap();
            let retain = cuda
                .get::<unsafe extern "C" fn(*mut *mut c_void, c_int) -> c_int>(b"cuDevicePrimaryCtxRetain\0")
                .unwrap();
            let set = cuda
                .get::<unsafe extern "C" fn(*mut c_void) -> c_int>(b"cuCtxSetCurrent\0")
                .unwrap();
            let mut n = 0;
            assert_eq!(count(&mut n), 0);
            let mut ctx = std::ptr::null_mut();
            assert_eq!(retain(&mut ctx, me % n), 0);
            assert_eq!(set(ctx), 0);
            drop((count, retain, set));
            Gpu { cuda }
        }
    }

    fn load(&self, path: &str) -> nvshmem::CUmodule {
        let path = std::ffi::CString::new(path).unwrap();
        let mut module = ptr::null_mut();
        // SAFETY: cuModuleLoad(CUmodule *, const char *).
        unsafe {
            let load = self
                .cuda
                .get::<unsafe extern "C" fn(*mut nvshmem::CUmodule, *const std::os::raw::c_char) -> i32>(
                    b"cuModuleLoad\0",
                )
                .unwrap();
            assert_eq!(load(&mut module, path.as_ptr()), 0, "cuModuleLoad {:?}", path);
        }
        module
    }

    /// One thread of `kernel(arg)` on the legacy default stream.
    fn launch(&self, module: nvshmem::CUmodule, kernel: &[u8], arg: *mut i32) {
        use std::os::raw::{c_uint, c_void};
        type Launch = unsafe extern "C" fn(
            *mut c_void,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            c_uint,
            *mut c_void,
            *mut *mut c_void,
            *mut *mut c_void,
        ) -> i32;
        // SAFETY: cuModuleGetFunction and cuLaunchKernel with one pointer argument.
        unsafe {
            let get = self
                .cuda
                .get::<unsafe extern "C" fn(*mut *mut c_void, nvshmem::CUmodule, *const i8) -> i32>(
                    b"cuModuleGetFunction\0",
                )
                .unwrap();
            let launch = self.cuda.get::<Launch>(b"cuLaunchKernel\0").unwrap();
            let mut f = ptr::null_mut();
            assert_eq!(get(&mut f, module, kernel.as_ptr() as *const i8), 0);
            let mut arg = arg;
            let mut params = [&mut arg as *mut *mut i32 as *mut c_void];
            assert_eq!(
                launch(
                    f,
                    1,
                    1,
                    1,
                    1,
                    1,
                    1,
                    0,
                    ptr::null_mut(),
                    params.as_mut_ptr(),
                    ptr::null_mut()
                ),
                0
            );
        }
    }

    /// Waits for all work of the current context.
    fn synchronize(&self) {
        // SAFETY: cuCtxSynchronize(void).
        unsafe {
            let sync = self
                .cuda
                .get::<unsafe extern "C" fn() -> i32>(b"cuCtxSynchronize\0")
                .unwrap();
            assert_eq!(sync(), 0, "cuCtxSynchronize");
        }
    }
}

#[test]
fn safe_wrappers() {
    use nvshmem::Stream;
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    let world = sys::NVSHMEM_TEAM_WORLD;
    let a = SymmetricBuffer::<i32>::new(&rt, 8).unwrap();
    let b = SymmetricBuffer::<i32>::new(&rt, 8).unwrap();
    let wide = SymmetricBuffer::<f32>::new(&rt, 16).unwrap();

    // Blocking typed forms with host memory on the local side.
    nvshmem::int_put(&a, &[10 * me, 10 * me + 1, 10 * me + 2], right).unwrap();
    nvshmem::int_p(&a, 7, 70 + me, right).unwrap();
    rt.barrier_all();
    let mut got = [0; 3];
    nvshmem::int_get(&mut got, &a, me).unwrap();
    assert_eq!(got, [10 * left, 10 * left + 1, 10 * left + 2]);
    assert_eq!(nvshmem::int_g(&a, 7, me).unwrap(), 70 + left);
    assert_eq!(nvshmem::int_g(&a, 0, right).unwrap(), 10 * me);
    rt.barrier_all();

    // Misuse is an error naming the call and the PE, before any transfer.
    let here = format!("PE {}", me);
    let e = nvshmem::int_put(&a, &[0; 9], right).unwrap_err();
    assert!(
        e.call == "nvshmem_int_put" && e.message.contains(&here) && e.message.contains("9"),
        "{}",
        e
    );
    let e = nvshmem::int_get(&mut got, &a, n).unwrap_err();
    assert!(e.message.contains(&format!("target PE {}", n)), "{}", e);
    assert!(nvshmem::int_p(&a, 8, 0, right).is_err());
    assert!(nvshmem::int_g(&a, usize::MAX, me).is_err());
    let e = nvshmem::int_put_on_stream(&a, &b, 9, right, Stream::DEFAULT).unwrap_err();
    assert_eq!(
        (e.call, e.status),
        ("nvshmemx_int_put_on_stream", sys::NVSHMEMX_ERROR_INVALID_VALUE)
    );
    assert!(nvshmem::int_get_on_stream(&a, &b, 1, -1, Stream::DEFAULT).is_err());
    let e = nvshmem::int_sum_reduce_on_stream(12345, &a, &b, 1, Stream::DEFAULT).unwrap_err();
    assert!(e.message.contains("team 12345"), "{}", e);
    let e = nvshmem::int_broadcast_on_stream(world, &a, &b, 1, n, Stream::DEFAULT).unwrap_err();
    assert!(e.message.contains(&format!("root {}", n)), "{}", e);
    // fcollect's destination holds nelems per PE: 8 elements are not 2 x 8.
    assert!(nvshmem::int_fcollect_on_stream(world, &a, &b, 8, Stream::DEFAULT).is_err());
    assert!(nvshmem::float_alltoall_on_stream(world, &wide, &wide, 9, Stream::DEFAULT).is_err());
    assert!(nvshmem::float_sum_reducescatter_on_stream(world, &wide, &wide, 9, Stream::DEFAULT).is_err());
    let sig = SymmetricBuffer::<u64>::new(&rt, 1).unwrap();
    let e = nvshmem::int_put_signal_on_stream(&a, &b, 1, &sig, 1, 7, right, Stream::DEFAULT).unwrap_err();
    assert!(e.message.contains("sig_op 7"), "{}", e);
    assert!(nvshmem::int_p_on_stream(&a, 8, 0, right, Stream::DEFAULT).is_err());

    if !rt.heap_on_device() {
        // CPU backend: every stream-ordered call is refused with an error instead of stopping the process.
        let refused = [
            nvshmem::int_put_on_stream(&a, &b, 1, right, Stream::DEFAULT),
            nvshmem::int_get_nbi_on_stream(&a, &b, 1, right, Stream::DEFAULT),
            nvshmem::int_sum_reduce_on_stream(world, &a, &b, 4, Stream::DEFAULT),
            nvshmem::int_broadcast_on_stream(world, &a, &b, 4, 0, Stream::DEFAULT),
            nvshmem::int_fcollect_on_stream(world, &a, &b, 4, Stream::DEFAULT),
            nvshmem::int_p_on_stream(&a, 0, 1, right, Stream::DEFAULT),
            nvshmem::int_g_on_stream(&a, 0, right, Stream::DEFAULT).map(drop),
            nvshmem::int_put_signal_nbi_on_stream(&a, &b, 1, &sig, 1, sys::NVSHMEM_SIGNAL_ADD, right, Stream::DEFAULT),
            nvshmem::barrier_all_on_stream(Stream::DEFAULT),
            nvshmem::sync_all_on_stream(Stream::DEFAULT),
            nvshmem::quiet_on_stream(Stream::DEFAULT),
            nvshmem::barrier_on_stream(world, Stream::DEFAULT),
            nvshmem::team_sync_on_stream(world, Stream::DEFAULT),
        ];
        for r in refused {
            let e = r.unwrap_err();
            assert_eq!(e.status, sys::NVSHMEMX_ERROR_NOT_SUPPORTED, "{}", e);
            assert!(e.message.contains(&here) && e.message.contains("host memory"), "{}", e);
        }
        rt.barrier_all();
        return;
    }
    // GPU heap: the stream forms move real data (the default stream, then a device-wide wait).
    nvshmem::int_put(&b, &[me + 1; 8], me).unwrap();
    rt.barrier_all();
    nvshmem::int_put_on_stream(&a, &b, 8, right, Stream::DEFAULT).unwrap();
    nvshmem::quiet_on_stream(Stream::DEFAULT).unwrap();
    nvshmem::barrier_all_on_stream(Stream::DEFAULT).unwrap();
    nvshmem::int_sum_reduce_on_stream(world, &b, &a, 8, Stream::DEFAULT).unwrap();
    nvshmem::int_broadcast_on_stream(world, &a, &b, 8, 1, Stream::DEFAULT).unwrap();
    Gpu::new(me).synchronize();
    rt.barrier_all();
    let mut sums = [0; 8];
    nvshmem::int_get(&mut sums, &a, me).unwrap();
    // a held the left neighbour's id + 1 on every PE: the sum is 1 + 2 + ... + n.
    assert_eq!(sums, [n * (n + 1) / 2; 8]);
    rt.barrier_all();
    // p, g and put-with-signal in stream order: each PE adds 1 to its right neighbour's signal.
    let c = SymmetricBuffer::<i32>::new(&rt, 1).unwrap();
    nvshmem::uint64_p(&sig, 0, 0, me).unwrap();
    rt.barrier_all();
    nvshmem::int_p_on_stream(&b, 0, 500 + me, right, Stream::DEFAULT).unwrap();
    nvshmem::int_put_signal_on_stream(&c, &a, 1, &sig, 1, sys::NVSHMEM_SIGNAL_ADD, right, Stream::DEFAULT).unwrap();
    nvshmem::quiet_on_stream(Stream::DEFAULT).unwrap();
    nvshmem::barrier_all_on_stream(Stream::DEFAULT).unwrap();
    Gpu::new(me).synchronize();
    rt.barrier_all();
    assert_eq!(
        nvshmem::int_g_on_stream(&b, 0, me, Stream::DEFAULT).unwrap(),
        500 + left
    );
    assert_eq!(nvshmem::uint64_g(&sig, 0, me).unwrap(), 1);
    assert_eq!(nvshmem::int_g(&c, 0, me).unwrap(), n * (n + 1) / 2);
    rt.barrier_all();
}

#[test]
fn safe_strided() {
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let (right, left) = ((me + 1) % n, (me + n - 1) % n);
    let a = SymmetricBuffer::<i32>::new(&rt, 9).unwrap();
    let wide = SymmetricBuffer::<u64>::new(&rt, 8).unwrap();
    let read = |buf: &SymmetricBuffer<i32>| {
        let mut v = vec![0; buf.len()];
        nvshmem::int_get(&mut v, buf, me).unwrap();
        v
    };
    nvshmem::int_put(&a, &[-1; 9], me).unwrap();
    nvshmem::uint64_put(&wide, &[0; 8], me).unwrap();
    rt.barrier_all();

    // iput: source elements 0, 2, 4 (sst 2) into the right neighbour's elements 0, 3, 6 (dst 3).
    let source: Vec<i32> = (0..6).map(|i| 100 * me + i).collect();
    nvshmem::int_iput(&a, &source, 3, 2, 3, right).unwrap();
    // A u64 buffer: source elements 0, 1, 2, 3 (sst 1) into elements 0, 2, 4, 6 (dst 2), here.
    let words: Vec<u64> = (0..4).map(|i| (u64::from(me as u32) << 32) | (i + 1)).collect();
    nvshmem::uint64_iput(&wide, &words, 2, 1, 4, me).unwrap();
    rt.barrier_all();
    let l = 100 * left;
    assert_eq!(read(&a), vec![l, -1, -1, l + 2, -1, -1, l + 4, -1, -1]);
    let mut got = [7u64; 8];
    nvshmem::uint64_get(&mut got, &wide, me).unwrap();
    let m = u64::from(me as u32) << 32;
    assert_eq!(got, [m | 1, 0, m | 2, 0, m | 3, 0, m | 4, 0]);

    // iget: the right neighbour's elements 0, 3, 6 (sst 3) into host elements 0, 2, 4 (dst 2); the
    // right neighbour's copy holds what this PE put there.
    let mut host = [-9; 5];
    nvshmem::int_iget(&mut host, &a, 2, 3, 3, right).unwrap();
    assert_eq!(host, [100 * me, -9, 100 * me + 2, -9, 100 * me + 4]);
    // The right neighbour's even elements (sst 2) into 4 contiguous host elements (dst 1).
    let mut even = [0u64; 4];
    nvshmem::uint64_iget(&mut even, &wide, 1, 2, 4, right).unwrap();
    let r = u64::from(right as u32) << 32;
    assert_eq!(even, [r | 1, r | 2, r | 3, r | 4]);
    // No elements: nothing moves (any positive strides).
    nvshmem::int_iget(&mut host, &a, 5, 7, 0, right).unwrap();
    assert_eq!(host, [100 * me, -9, 100 * me + 2, -9, 100 * me + 4]);
    rt.barrier_all();

    // Misuse is refused before any transfer, naming the call and the PE.
    let here = format!("PE {}", me);
    let e = nvshmem::int_iput(&a, &source, 0, 2, 3, right).unwrap_err();
    assert_eq!(
        (e.call, e.status),
        ("nvshmem_int_iput", sys::NVSHMEMX_ERROR_INVALID_VALUE),
        "{}",
        e
    );
    assert!(e.message.contains(&here) && e.message.contains("dst stride 0"), "{}", e);
    // dest's 4th element at 3 * 3 is past its 9 elements.
    let e = nvshmem::int_iput(&a, &source, 3, 1, 4, right).unwrap_err();
    assert!(e.message.contains("dest holds 9 elements, the call needs 10"), "{}", e);
    // source's 4th element at 3 * 2 is past its 6 elements.
    let e = nvshmem::int_iput(&a, &source, 1, 2, 4, right).unwrap_err();
    assert!(e.message.contains("source holds 6 elements, the call needs 7"), "{}", e);
    let e = nvshmem::int_iput(&a, &source, 1, 1, 1, -1).unwrap_err();
    assert!(e.message.contains("target PE -1"), "{}", e);
    let e = nvshmem::int_iget(&mut host, &a, 2, -3, 1, right).unwrap_err();
    assert_eq!(e.call, "nvshmem_int_iget");
    assert!(
        e.message.contains(&here) && e.message.contains("sst stride -3"),
        "{}",
        e
    );
    // The host destination: its 4th element at 3 * 2 is past its 5 elements.
    let e = nvshmem::int_iget(&mut host, &a, 2, 1, 4, right).unwrap_err();
    assert!(e.message.contains("dest holds 5 elements, the call needs 7"), "{}", e);
    let e = nvshmem::int_iget(&mut host, &a, 1, 1, 1, n).unwrap_err();
    assert!(e.message.contains(&format!("target PE {}", n)), "{}", e);
    // The last element's index overflows usize.
    let e = nvshmem::uint64_iget(&mut even, &wide, 2, 1, usize::MAX, me).unwrap_err();
    assert!(e.message.contains("more than usize::MAX"), "{}", e);
    assert_eq!(host, [100 * me, -9, 100 * me + 2, -9, 100 * me + 4]);
    rt.barrier_all();
    assert_eq!(read(&a), vec![l, -1, -1, l + 2, -1, -1, l + 4, -1, -1], "nothing moved");
    // The raw alias stays.
    unsafe { nvshmem::raw_int_iput(a.as_mut_ptr(), source.as_ptr(), 1, 1, 1, me) };
    assert_eq!(nvshmem::int_g(&a, 0, me).unwrap(), 100 * me);
    rt.barrier_all();
}

#[test]
fn safe_atomics() {
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let counter = SymmetricBuffer::<i64>::new(&rt, 2).unwrap();
    let bits = SymmetricBuffer::<u32>::new(&rt, 1).unwrap();
    let real = SymmetricBuffer::<f64>::new(&rt, 1).unwrap();
    nvshmem::int64_atomic_set(&counter, 1, 0, me).unwrap();
    nvshmem::uint32_atomic_set(&bits, 0, 0, me).unwrap();
    nvshmem::double_atomic_set(&real, 0, -1.0, me).unwrap();
    rt.barrier_all();
    // Every PE adds its id + 1 fifty times to PE 0's element 1, and counts increments on PE 1's.
    let rounds = 50;
    for _ in 0..rounds {
        let old = nvshmem::int64_atomic_fetch_add(&counter, 1, me as i64 + 1, 0).unwrap();
        assert!((0..rounds * 3).contains(&old), "{}", old);
        nvshmem::int64_atomic_inc(&counter, 0, 1).unwrap();
    }
    let before = nvshmem::uint32_atomic_fetch_or(&bits, 0, 1 << (4 + me), 0).unwrap();
    assert_eq!(before & !0b11_0000, 0, "{:#x}", before);
    rt.barrier_all();
    let total: i64 = (1..=n as i64).sum::<i64>() * rounds;
    assert_eq!(nvshmem::int64_atomic_fetch(&counter, 1, 0).unwrap(), total);
    assert_eq!(nvshmem::int64_atomic_fetch(&counter, 0, 1).unwrap(), rounds * n as i64);
    assert_eq!(nvshmem::uint32_atomic_fetch(&bits, 0, 0).unwrap(), 0b11_0000);
    rt.barrier_all();
    // compare_swap on PE 1's element 1: exactly one PE wins; swap and fetch_inc return the old value.
    if me == 0 {
        nvshmem::int64_atomic_set(&counter, 1, 7, 1).unwrap();
    }
    rt.barrier_all();
    let old = nvshmem::int64_atomic_compare_swap(&counter, 1, 7, 100 + me as i64, 1).unwrap();
    rt.barrier_all();
    let now = nvshmem::int64_atomic_fetch(&counter, 1, 1).unwrap();
    assert!((100..100 + n as i64).contains(&now), "{}", now);
    assert!(old == 7 || old == now, "{} {}", old, now);
    let wins = (0..n).filter(|&p| now == 100 + p as i64).count();
    assert_eq!(wins, 1);
    rt.barrier_all();
    if me == 1 {
        assert_eq!(nvshmem::double_atomic_swap(&real, 0, 2.5, 0).unwrap(), -1.0);
        assert_eq!(nvshmem::int64_atomic_fetch_inc(&counter, 0, 0).unwrap(), 0);
    }
    rt.barrier_all();
    if me == 0 {
        assert_eq!(nvshmem::double_atomic_fetch(&real, 0, 0).unwrap(), 2.5);
        assert_eq!(nvshmem::int64_atomic_fetch(&counter, 0, 0).unwrap(), 1);
    }
    // Misuse is refused before the call: an element outside the buffer, a PE outside the job.
    let e = nvshmem::int64_atomic_fetch_add(&counter, 2, 1, 0).unwrap_err();
    assert!(
        e.call == "nvshmem_int64_atomic_fetch_add" && e.message.contains("holds 2 elements"),
        "{}",
        e
    );
    assert!(nvshmem::int64_atomic_compare_swap(&counter, 0, 0, 1, n).is_err());
    assert!(nvshmem::uint32_atomic_inc(&bits, 1, 0).is_err());
    assert!(nvshmem::double_atomic_fetch(&real, 0, -1).is_err());
    // The raw alias stays.
    assert_eq!(unsafe { nvshmem::raw_uint32_atomic_fetch(bits.as_ptr(), 0) }, 0b11_0000);
    rt.barrier_all();
}

#[test]
fn safe_host_collectives() {
    let rt = runtime();
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let nu = n as usize;
    let world = sys::NVSHMEM_TEAM_WORLD;
    let len = 8;
    let src = SymmetricBuffer::<i32>::new(&rt, len * nu).unwrap();
    let dst = SymmetricBuffer::<i32>::new(&rt, len * nu).unwrap();
    let read = |buf: &SymmetricBuffer<i32>, count: usize| {
        let mut v = vec![0; count];
        nvshmem::int_get(&mut v, buf, me).unwrap();
        v
    };
    // Source: PE p holds (p + 1) * 1000 + i at element i; the destination is poisoned.
    let mine = |p: i32| -> Vec<i32> { (0..len * nu).map(|i| (p + 1) * 1000 + i as i32).collect() };
    nvshmem::int_put(&src, &mine(me), me).unwrap();
    let poison = vec![-7; len * nu];
    nvshmem::int_put(&dst, &poison, me).unwrap();
    rt.barrier_all();

    nvshmem::int_sum_reduce(world, &dst, &src, len).unwrap();
    let sums: Vec<i32> = (0..len).map(|i| (0..n).map(|p| mine(p)[i]).sum()).collect();
    assert_eq!(read(&dst, len), sums);
    assert_eq!(read(&dst, len * nu)[len..], poison[len..], "past nreduce: untouched");
    nvshmem::int_max_reduce(world, &dst, &src, len).unwrap();
    assert_eq!(read(&dst, len), mine(n - 1)[..len].to_vec());

    nvshmem::int_put(&dst, &poison, me).unwrap();
    rt.barrier_all();
    nvshmem::int_broadcast(world, &dst, &src, len, 1).unwrap();
    if me != 1 {
        assert_eq!(read(&dst, len), mine(1)[..len].to_vec());
    }

    nvshmem::int_fcollect(world, &dst, &src, len).unwrap();
    let gathered: Vec<i32> = (0..n).flat_map(|p| mine(p)[..len].to_vec()).collect();
    assert_eq!(read(&dst, len * nu), gathered);

    // alltoall: block j of PE p's destination is block p of PE j's source.
    nvshmem::int_alltoall(world, &dst, &src, len).unwrap();
    let exchanged: Vec<i32> = (0..n)
        .flat_map(|j| mine(j)[me as usize * len..(me as usize + 1) * len].to_vec())
        .collect();
    assert_eq!(read(&dst, len * nu), exchanged);

    // reducescatter: PE p's destination is the sum over PEs of their block p.
    nvshmem::int_put(&dst, &poison, me).unwrap();
    rt.barrier_all();
    nvshmem::int_sum_reducescatter(world, &dst, &src, len).unwrap();
    let block = me as usize * len..(me as usize + 1) * len;
    let scattered: Vec<i32> = block.map(|i| (0..n).map(|p| mine(p)[i]).sum()).collect();
    assert_eq!(read(&dst, len), scattered);

    // Misuse, the same on every PE, is refused before any PE enters the collective.
    let e = nvshmem::int_sum_reduce(12345, &dst, &src, 1).unwrap_err();
    assert!(
        e.call == "nvshmem_int_sum_reduce" && e.message.contains("team 12345"),
        "{}",
        e
    );
    let e = nvshmem::int_broadcast(world, &dst, &src, 1, n).unwrap_err();
    assert!(e.message.contains(&format!("root {}", n)), "{}", e);
    assert!(nvshmem::int_fcollect(world, &dst, &src, len * nu).is_err());
    assert!(nvshmem::int_sum_reducescatter(world, &dst, &src, len + 1).is_err());
    // A collective still runs after the refusals: the PEs stayed in step.
    nvshmem::int_min_reduce(world, &dst, &src, 1).unwrap();
    assert_eq!(read(&dst, 1), vec![1000]);
    rt.barrier_all();
}
