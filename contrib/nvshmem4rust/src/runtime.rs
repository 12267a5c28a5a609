// SPDX-License-Identifier: BSD-3-Clause
//! The process-global runtime: [`NvshmemRuntime`] handles and how it bootstraps ([`InitMethod`]).

use std::fmt;
use std::os::raw::{c_uint, c_void};
use std::ptr;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};

use crate::error::{Error, Result};
use crate::library;
use crate::sys;

/// The 128-byte id of a unique-id bootstrap (`nvshmemx_uniqueid_t`). A plain value: it owns nothing
/// (the rendezvous server it names lives in the process that generated it until that process's
/// runtime finalizes).
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct UniqueId([u8; UniqueId::SIZE]);

const _: () = assert!(std::mem::size_of::<sys::nvshmemx_uniqueid_t>() == UniqueId::SIZE);

impl UniqueId {
    /// Size of the raw id in bytes.
    pub const SIZE: usize = 128;

    /// Starts a rendezvous server in this process and returns its id (`nvshmemx_get_uniqueid`). One
    /// process of the job calls it, before the job's init, then spreads [`UniqueId::as_bytes`] by its
    /// own means. Errors with the library's status.
    pub fn generate() -> Result<UniqueId> {
        library::open()?;
        let mut raw = UniqueId::default_raw();
        // SAFETY: `raw` is a valid, writable nvshmemx_uniqueid_t.
        Error::check(
            unsafe { sys::nvshmemx_get_uniqueid(&mut raw) },
            "nvshmemx_get_uniqueid",
            "could not start a rendezvous server",
        )?;
        // SAFETY: nvshmemx_uniqueid_t is SIZE plain bytes (checked above).
        Ok(UniqueId(unsafe {
            std::mem::transmute::<sys::nvshmemx_uniqueid_t, [u8; UniqueId::SIZE]>(raw)
        }))
    }

    /// An id received from the generating process.
    pub fn from_bytes(bytes: [u8; UniqueId::SIZE]) -> UniqueId {
        UniqueId(bytes)
    }

    /// The raw bytes, to send to the other processes.
    pub fn as_bytes(&self) -> &[u8; UniqueId::SIZE] {
        &self.0
    }

    fn default_raw() -> sys::nvshmemx_uniqueid_t {
        sys::nvshmemx_uniqueid_t {
            version: sys::NVSHMEMX_UNIQUEID_VERSION,
            internal: [0; sys::NVSHMEM_UNIQUEID_INTERNAL_SIZE as usize],
        }
    }

    fn to_raw(self) -> sys::nvshmemx_uniqueid_t {
        // SAFETY: nvshmemx_uniqueid_t is SIZE plain bytes.
        unsafe { std::mem::transmute::<[u8; UniqueId::SIZE], sys::nvshmemx_uniqueid_t>(self.0) }
    }
}

impl fmt::Debug for UniqueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "UniqueId(")?;
        self.0.iter().take(8).try_for_each(|b| write!(f, "{:02x}", b))?;
        write!(f, "..)")
    }
}

/// A non-owning handle on an MPI communicator, for [`InitMethod::MpiComm`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MpiComm(*mut c_void);

// SAFETY: the pointer is only handed to the library at init; from_raw's contract covers its use.
unsafe impl Send for MpiComm {}
unsafe impl Sync for MpiComm {}

impl MpiComm {
    /// Wraps `comm`, a pointer to an initialised `MPI_Comm` (the address of the communicator variable,
    /// as `nvshmemx_init_attr_t::mpi_comm` expects).
    ///
    /// # Safety
    /// The runtime loads the same MPI library as the application (the one `comm` belongs to), and both
    /// the communicator and the variable it points to stay valid, with MPI initialised, until the
    /// runtime initialised with it has finalized (the last [`NvshmemRuntime`], [`crate::SymmetricBuffer`]
    /// and [`crate::ModuleRegistration`] are dropped). A null pointer is accepted here and refused by init.
    pub unsafe fn from_raw(comm: *mut c_void) -> MpiComm {
        MpiComm(comm)
    }

    /// The pointer given to [`MpiComm::from_raw`].
    pub fn as_raw(&self) -> *mut c_void {
        self.0
    }
}

/// How [`NvshmemRuntime::init`] finds the other PEs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InitMethod {
    /// As `nvshmem_init`: the launcher's environment (`nvshmrun`, PMI, MPI as `NVSHMEM_BOOTSTRAP`
    /// says), or a 1-PE job without a launcher.
    BootstrapEnv,
    /// Unique-id bootstrap: each of `nranks` processes passes the same `id` and its own `rank`
    /// (0 <= rank < nranks).
    UniqueId {
        /// The id from [`UniqueId::generate`] in one process of the job.
        id: UniqueId,
        /// This process's rank.
        rank: i32,
        /// Number of processes (PEs).
        nranks: i32,
    },
    /// MPI communicator bootstrap (`NVSHMEMX_INIT_WITH_MPI_COMM`): the communicator's ranks are the PEs.
    MpiComm(MpiComm),
}

/// What a live runtime was started with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Started {
    method: InitMethod,
    cuda_device: Option<i32>,
}

/// The live runtime, shared by every handle, buffer and registration; dropping the last finalizes.
struct RuntimeState {
    started: Started,
    /// Whether the symmetric heap is in GPU memory (probed at init).
    heap_on_device: bool,
}

/// The process-wide registry: the live state, and whether one exists (from its creation to the end
/// of its finalize, so that an init racing with another thread's last drop waits for the finalize).
struct Registry {
    live: Option<Weak<RuntimeState>>,
    exists: bool,
}

static REGISTRY: Mutex<Registry> = Mutex::new(Registry {
    live: None,
    exists: false,
});
static FINALIZED: Condvar = Condvar::new();

fn registry() -> MutexGuard<'static, Registry> {
    REGISTRY.lock().unwrap_or_else(|e| e.into_inner())
}

impl Drop for RuntimeState {
    fn drop(&mut self) {
        let mut reg = registry();
        // SAFETY: the runtime is live (this is its last owner); collective, as documented.
        unsafe { sys::nvshmem_finalize() };
        reg.exists = false;
        reg.live = None;
        FINALIZED.notify_all();
    }
}

/// A handle on the process-global NVSHMEM runtime.
///
/// [`NvshmemRuntime::init`] initialises the runtime unless it is live; clones are cheap handles on the
/// same state. The runtime finalizes (`nvshmem_finalize`, collective: every PE must drop its last
/// owner at the same point of its program) when the last owner is dropped: the last handle,
/// [`crate::SymmetricBuffer`] or [`crate::ModuleRegistration`], in any order. After that, init may be called
/// again. Handles are `Send` and `Sync`; the methods are as thread safe as their C calls (barriers:
/// one thread per PE).
#[derive(Clone)]
pub struct NvshmemRuntime {
    state: Arc<RuntimeState>,
}

impl fmt::Debug for NvshmemRuntime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("NvshmemRuntime")
            .field("method", &self.state.started.method)
            .field("cuda_device", &self.state.started.cuda_device)
            .finish()
    }
}

impl NvshmemRuntime {
    /// Initialises the runtime with `method` on `cuda_device` (None: the library picks, node-local PE
    /// index modulo the visible GPUs), or joins the live one. Collective on the first init: every PE
    /// calls it (one thread each). Opens the library first ([`crate::library`]).
    ///
    /// Errors:
    /// - `NVSHMEMX_ERROR_INVALID_VALUE` when a runtime is live with another method or device (the
    ///   message names both), when the runtime was initialised through the C API, or for an MPI
    ///   communicator that is null;
    /// - the library's status when `nvshmemx_set_attr_uniqueid_args` or `nvshmemx_init_attr` fail;
    /// - `NVSHMEMX_ERROR_INTERNAL` when the library cannot be opened.
    pub fn init(method: InitMethod, cuda_device: Option<i32>) -> Result<NvshmemRuntime> {
        let wanted = Started { method, cuda_device };
        let mut reg = registry();
        loop {
            if let Some(live) = reg.live.as_ref().and_then(Weak::upgrade) {
                if live.started == wanted {
                    return Ok(NvshmemRuntime { state: live });
                }
                let what = format!(
                    "a runtime initialised with {:?} is live; asked for {:?} (drop every NvshmemRuntime, SymmetricBuffer and ModuleRegistration first)",
                    live.started, wanted
                );
                drop(reg); // `live` may be the last owner: its drop takes the registry lock
                drop(live);
                return Err(Error::new(
                    sys::NVSHMEMX_ERROR_INVALID_VALUE,
                    "NvshmemRuntime::init",
                    what,
                ));
            }
            if !reg.exists {
                break;
            }
            reg = FINALIZED.wait(reg).unwrap_or_else(|e| e.into_inner());
        }
        library::open()?;
        // SAFETY: no arguments; callable at any time.
        if unsafe { sys::nvshmemx_init_status() } != sys::NVSHMEM_STATUS_NOT_INITIALIZED {
            return Err(Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                "NvshmemRuntime::init",
                "the runtime was initialised through the C API (nvshmem_init); the crate does not adopt it",
            ));
        }
        let mut attr = init_attr(cuda_device);
        let mut flags = 0;
        let raw_id; // referenced by `attr` until nvshmemx_init_attr returns
        match method {
            InitMethod::BootstrapEnv => {}
            InitMethod::UniqueId { id, rank, nranks } => {
                raw_id = id.to_raw();
                // SAFETY: valid pointers; `raw_id` outlives the init call below.
                let rc = unsafe { sys::nvshmemx_set_attr_uniqueid_args(rank, nranks, &raw_id, &mut attr) };
                Error::check(
                    rc,
                    "nvshmemx_set_attr_uniqueid_args",
                    format!("bad unique-id arguments: rank {} of {}", rank, nranks),
                )?;
                flags = sys::NVSHMEMX_INIT_WITH_UNIQUEID as c_uint;
            }
            InitMethod::MpiComm(comm) => {
                if comm.as_raw().is_null() {
                    return Err(Error::new(
                        sys::NVSHMEMX_ERROR_INVALID_VALUE,
                        "NvshmemRuntime::init",
                        "InitMethod::MpiComm with a null communicator",
                    ));
                }
                attr.mpi_comm = comm.as_raw();
                flags = sys::NVSHMEMX_INIT_WITH_MPI_COMM as c_uint;
            }
        }
        // SAFETY: `attr` is fully initialised; the caller's MpiComm contract covers the communicator.
        let rc = unsafe { sys::nvshmemx_init_attr(flags, &mut attr) };
        Error::check(
            rc,
            "nvshmemx_init_attr",
            format!("initialisation with {:?} failed", wanted),
        )?;
        let state = Arc::new(RuntimeState {
            started: wanted,
            heap_on_device: probe_heap_on_device(),
        });
        reg.live = Some(Arc::downgrade(&state));
        reg.exists = true;
        Ok(NvshmemRuntime { state })
    }

    /// A handle on the live runtime, for the safe functions that take none. Errors with
    /// `NVSHMEMX_ERROR_INVALID_VALUE`, naming `call`, when no runtime started by
    /// [`NvshmemRuntime::init`] is live.
    pub(crate) fn live(call: &'static str) -> Result<NvshmemRuntime> {
        let live = registry().live.as_ref().and_then(Weak::upgrade);
        live.map(|state| NvshmemRuntime { state }).ok_or_else(|| {
            Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                "no runtime is live: call NvshmemRuntime::init first",
            )
        })
    }

    /// True when the symmetric heap is in GPU memory (a GPU, and not `NVSHMEM_HEAP_KIND=SYSMEM`): the
    /// stream-ordered calls and module registration need it.
    pub fn heap_on_device(&self) -> bool {
        self.state.heap_on_device
    }

    /// `Ok` when the heap is in GPU memory, else `NVSHMEMX_ERROR_NOT_SUPPORTED` naming `call` and this PE.
    pub(crate) fn require_device_heap(&self, call: &'static str) -> Result<()> {
        if self.heap_on_device() {
            return Ok(());
        }
        Err(Error::new(
            sys::NVSHMEMX_ERROR_NOT_SUPPORTED,
            call,
            format!(
                "PE {}: the symmetric heap is in host memory (no GPU, or NVSHMEM_HEAP_KIND=SYSMEM): stream-ordered calls need it in GPU memory",
                self.my_pe()
            ),
        ))
    }

    /// True when a runtime started by [`NvshmemRuntime::init`] is live in this process.
    pub fn is_live() -> bool {
        registry().live.as_ref().map_or(false, |w| w.strong_count() > 0)
    }

    /// The method the live runtime was started with.
    pub fn method(&self) -> InitMethod {
        self.state.started.method
    }

    /// The CUDA device asked for at init (None: the library's choice).
    pub fn cuda_device(&self) -> Option<i32> {
        self.state.started.cuda_device
    }

    /// This PE's id in `NVSHMEM_TEAM_WORLD`, 0 .. n_pes()-1 (`nvshmem_my_pe`).
    pub fn my_pe(&self) -> i32 {
        // SAFETY: the runtime is live (self).
        unsafe { sys::nvshmem_my_pe() }
    }

    /// Number of PEs of the job (`nvshmem_n_pes`).
    pub fn n_pes(&self) -> i32 {
        // SAFETY: the runtime is live (self).
        unsafe { sys::nvshmem_n_pes() }
    }

    /// `nvshmem_barrier_all`: every PE, one thread each; completes this PE's RMA, then waits for all.
    pub fn barrier_all(&self) {
        // SAFETY: the runtime is live (self).
        unsafe { sys::nvshmem_barrier_all() }
    }

    /// `nvshmem_sync_all`: every PE, one thread each; waits for all (no quiet).
    pub fn sync_all(&self) {
        // SAFETY: the runtime is live (self).
        unsafe { sys::nvshmem_sync_all() }
    }

    /// `nvshmem_quiet`: completes every RMA this PE issued. Any thread.
    pub fn quiet(&self) {
        // SAFETY: the runtime is live (self).
        unsafe { sys::nvshmem_quiet() }
    }

    /// The NVSHMEM interface level of the library (`nvshmemx_vendor_get_version_info`): (major, minor, patch).
    pub fn library_version(&self) -> (i32, i32, i32) {
        let (mut major, mut minor, mut patch) = (0, 0, 0);
        // SAFETY: three writable ints.
        unsafe { sys::nvshmemx_vendor_get_version_info(&mut major, &mut minor, &mut patch) };
        (major, minor, patch)
    }

    pub(crate) fn check_pe(&self, pe: i32, call: &'static str) -> Result<()> {
        if pe < 0 || pe >= self.n_pes() {
            return Err(Error::new(
                sys::NVSHMEMX_ERROR_INVALID_VALUE,
                call,
                format!("PE {}: target PE {} is not in 0..{}", self.my_pe(), pe, self.n_pes()),
            ));
        }
        Ok(())
    }
}

/// Where the heap of the just-initialised runtime lives: a one-byte allocation, asked of CUDA, freed
/// again (collective, as init is).
fn probe_heap_on_device() -> bool {
    // SAFETY: the runtime is initialised; every PE makes the same calls.
    unsafe {
        let probe = sys::nvshmem_malloc(1);
        let on_device = crate::stream::is_device_memory(probe);
        sys::nvshmem_free(probe);
        on_device
    }
}

/// `NVSHMEMX_INIT_ATTR_INITIALIZER` with `cuda_device` (-1: the library picks).
fn init_attr(cuda_device: Option<i32>) -> sys::nvshmemx_init_attr_t {
    sys::nvshmemx_init_attr_t {
        version: sys::NVSHMEMX_INIT_ATTR_VERSION,
        mpi_comm: ptr::null_mut(),
        args: sys::nvshmemx_init_args_t {
            version: sys::NVSHMEMX_INIT_ARGS_VERSION,
            uid_args: sys::nvshmemx_uniqueid_args_t {
                version: sys::NVSHMEMX_UNIQUEID_ARGS_VERSION,
                id: ptr::null_mut(),
                myrank: -1,
                nranks: -1,
            },
            cuda_device_id: cuda_device.unwrap_or(-1),
            content: [0; 92],
        },
    }
}

/// Safe `nvshmem_my_pe`: this PE's id. Errors with `NVSHMEMX_ERROR_INVALID_VALUE` when no runtime
/// started by [`NvshmemRuntime::init`] is live, where the C call would stop the process (raw:
/// `nvshmem::raw_my_pe`). The runtime is held for the call.
pub fn my_pe() -> Result<i32> {
    Ok(NvshmemRuntime::live("nvshmem_my_pe")?.my_pe())
}

/// Safe `nvshmem_n_pes`: the number of PEs. Errors as [`my_pe`].
pub fn n_pes() -> Result<i32> {
    Ok(NvshmemRuntime::live("nvshmem_n_pes")?.n_pes())
}

/// Safe `nvshmem_barrier_all`: every PE, one thread each; completes this PE's RMA, then waits for all.
/// Errors as [`my_pe`] (no PE waits then: call it on every PE or on none).
pub fn barrier_all() -> Result<()> {
    NvshmemRuntime::live("nvshmem_barrier_all")?.barrier_all();
    Ok(())
}

/// `nvshmemx_init_status`: `NVSHMEM_STATUS_NOT_INITIALIZED` before init and after finalize,
/// `NVSHMEM_STATUS_IS_INITIALIZED` between, or `NVSHMEM_STATUS_LIMITED_MPG` / `NVSHMEM_STATUS_FULL_MPG`
/// where several PEs share this PE's GPU.
pub fn init_status() -> i32 {
    // SAFETY: no arguments; callable at any time.
    unsafe { sys::nvshmemx_init_status() }
}
