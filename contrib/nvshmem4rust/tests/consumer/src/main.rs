// SPDX-License-Identifier: BSD-3-Clause
//! The consumer project's program, run as 2 PEs under nvshmrun: each PE puts its id into its right
//! neighbour's buffer and checks what its left neighbour wrote. Errors end the program with a message
//! and a non-zero status.

use nvshmem::{InitMethod, NvshmemRuntime, SymmetricBuffer};

fn run() -> nvshmem::Result<String> {
    let rt = NvshmemRuntime::init(InitMethod::BootstrapEnv, None)?;
    let (me, n) = (rt.my_pe(), rt.n_pes());
    let buf = SymmetricBuffer::<u64>::new(&rt, 64)?;
    buf.put(0, &[me as u64 + 1; 64], (me + 1) % n)?;
    rt.barrier_all();
    let mut got = [0u64; 64];
    buf.get(0, &mut got, me)?;
    let left = ((me + n - 1) % n) as u64 + 1;
    if got != [left; 64] {
        return Err(nvshmem::Error {
            status: nvshmem::sys::NVSHMEMX_ERROR_INTERNAL,
            call: "consumer",
            message: format!("PE {} read {:?}, expected {} from PE {}", me, &got[..4], left, left - 1),
        });
    }
    rt.barrier_all();
    Ok(format!("consumer OK: {} PEs (PE {})", n, me))
}

fn main() {
    match run() {
        Ok(line) => println!("{}", line),
        Err(e) => {
            eprintln!("consumer: {}", e);
            std::process::exit(1);
        }
    }
}
