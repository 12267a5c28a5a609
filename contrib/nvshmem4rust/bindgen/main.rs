// SPDX-License-Identifier: BSD-3-Clause
//! nvshmem4rust-bindgen: writes `nvshmem_host.rs` (the host API with its exact C names, as `extern "C"`
//! declarations of the linked `libnvshmem_host.so`) and `nvshmem_host_api.rs` (the same functions
//! without their `nvshmem_`/`nvshmemx_` prefix) from an installed NVSHMEM's headers.
//!
//! Our headers expand typed families from X-macro tables, so the names exist only after
//! preprocessing: the generator runs the C preprocessor over `host/nvshmemx_coll_api.h` (`nvshmem_host.h`
//! and the stream-ordered collectives, all host functions of the library), keeps the exported
//! declarations (`visibility("default")`) named `nvshmem_*`/`nvshmemx_*`, the `nvshmem*` structs,
//! typedefs and enums, and asks the C compiler (a probe program it compiles and runs) for every
//! struct's `sizeof` and every constant's value. The headers are C++ for a host compiler (CUDA's
//! `half` and `__nv_bfloat16` are C++ types), so CXX is a C++ compiler. Standard library only; built
//! with plain `rustc`.
//!
//! With NVCC and ARCH it also writes `nvshmem_device_cuda_oxide.rs`: the C-linkage device functions
//! of the CUDA kernel interface (`nvshmem.h`, `nvshmemx.h` preprocessed by nvcc for ARCH) as
//! `extern "C"` declarations for CUDA-Oxide kernels.
//!
//! Usage: nvshmem4rust-bindgen CXX NVSHMEM_INCLUDE_DIR CUDA_INCLUDE_DIR OUT_DIR WORK_DIR [NVCC ARCH]
//! (OUT_DIR: the bindings; WORK_DIR: the preprocessor inputs and the size/constant probe).

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{exit, Command};

/// Functions whose safe form the crate defines by hand (src/runtime.rs, src/safe.rs; the module
/// registration is NvshmemRuntime::register_module): their raw alias is `raw_<name>`.
const HAND_WRAPPED: &[&str] = &[
    "nvshmem_my_pe",
    "nvshmem_n_pes",
    "nvshmem_barrier_all",
    "nvshmemx_init_status",
    "nvshmemx_cumodule_init",
    "nvshmemx_cumodule_finalize",
    "nvshmemx_barrier_all_on_stream",
    "nvshmemx_sync_all_on_stream",
    "nvshmemx_quiet_on_stream",
    "nvshmemx_barrier_on_stream",
    "nvshmemx_team_sync_on_stream",
    "nvshmemx_signal_op",
    "nvshmem_signal_fetch",
];

/// The typed families with a generated safe wrapper: the short name's ending, the parameter names of
/// the C declaration, the Rust parameters of the wrapper (`T` the element type) and the call of
/// src/safe.rs it makes (`F` the C function, `C` its name as a string).
const FAMILIES: &[(&str, &[&str], &str, &str)] = &[
    ("_put", &["dest", "source", "nelems", "pe"], "dest: &SymmetricBuffer<{T}>, source: &[{T}], pe: i32",
     "put({C}, {F}, dest, source, pe)"),
    ("_get", &["dest", "source", "nelems", "pe"], "dest: &mut [{T}], source: &SymmetricBuffer<{T}>, pe: i32",
     "get({C}, {F}, dest, source, pe)"),
    ("_iput", &["dest", "source", "dst", "sst", "nelems", "pe"],
     "dest: &SymmetricBuffer<{T}>, source: &[{T}], dst: isize, sst: isize, nelems: usize, pe: i32",
     "iput({C}, {F}, dest, source, dst, sst, nelems, pe)"),
    ("_iget", &["dest", "source", "dst", "sst", "nelems", "pe"],
     "dest: &mut [{T}], source: &SymmetricBuffer<{T}>, dst: isize, sst: isize, nelems: usize, pe: i32",
     "iget({C}, {F}, dest, source, dst, sst, nelems, pe)"),
    ("_p", &["dest", "value", "pe"], "dest: &SymmetricBuffer<{T}>, index: usize, value: {T}, pe: i32",
     "element({C}, dest, index, pe, |e| unsafe { {F}(e, value, pe) })"),
    ("_g", &["source", "pe"], "source: &SymmetricBuffer<{T}>, index: usize, pe: i32", "element({C}, source, index, pe, |e| unsafe { {F}(e, pe) })"),
    ("_on_stream", &["dest", "source", "nelems", "pe", "stream"],
     "dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, pe: i32, stream: Stream",
     "rma_on_stream({C}, {F}, dest, source, nelems, pe, stream)"),
    ("_p_on_stream", &["dest", "value", "pe", "stream"],
     "dest: &SymmetricBuffer<{T}>, index: usize, value: {T}, pe: i32, stream: Stream",
     "p_on_stream({C}, {F}, dest, index, value, pe, stream)"),
    ("_g_on_stream", &["source", "pe", "stream"], "source: &SymmetricBuffer<{T}>, index: usize, pe: i32, stream: Stream",
     "g_on_stream({C}, {F}, source, index, pe, stream)"),
    ("_on_stream", &["dest", "source", "nelems", "sig_addr", "signal", "sig_op", "pe", "stream"],
     "dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, signal: &SymmetricBuffer<u64>, value: u64, sig_op: i32, pe: i32, stream: Stream",
     "put_signal_on_stream({C}, {F}, dest, source, nelems, signal, value, sig_op, pe, stream)"),
    ("_broadcast_on_stream", &["team", "dest", "source", "nelems", "pe_root", "stream"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, root: i32, stream: Stream",
     "broadcast_on_stream({C}, {F}, team, dest, source, nelems, root, stream)"),
    ("_fcollect_on_stream", &["team", "dest", "source", "nelems", "stream"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, stream: Stream",
     "collective_on_stream({C}, {F}, Shape::Gather, team, dest, source, nelems, stream)"),
    ("_alltoall_on_stream", &["team", "dest", "source", "nelems", "stream"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, stream: Stream",
     "collective_on_stream({C}, {F}, Shape::AllToAll, team, dest, source, nelems, stream)"),
    ("_reduce_on_stream", &["team", "dest", "source", "nreduce", "stream"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nreduce: usize, stream: Stream",
     "collective_on_stream({C}, {F}, Shape::Same, team, dest, source, nreduce, stream)"),
    ("_reducescatter_on_stream", &["team", "dest", "source", "nreduce", "stream"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nreduce: usize, stream: Stream",
     "collective_on_stream({C}, {F}, Shape::Scatter, team, dest, source, nreduce, stream)"),
    // The host-initiated collectives (blocking; any heap).
    ("_broadcast", &["team", "dest", "source", "nelems", "pe_root"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize, root: i32",
     "broadcast({C}, {F}, team, dest, source, nelems, root)"),
    ("_fcollect", &["team", "dest", "source", "nelems"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize",
     "collective({C}, {F}, Shape::Gather, team, dest, source, nelems)"),
    ("_alltoall", &["team", "dest", "source", "nelems"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nelems: usize",
     "collective({C}, {F}, Shape::AllToAll, team, dest, source, nelems)"),
    ("_reduce", &["team", "dest", "source", "nreduce"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nreduce: usize",
     "collective({C}, {F}, Shape::Same, team, dest, source, nreduce)"),
    ("_reducescatter", &["team", "dest", "source", "nreduce"],
     "team: nvshmem_team_t, dest: &SymmetricBuffer<{T}>, source: &SymmetricBuffer<{T}>, nreduce: usize",
     "collective({C}, {F}, Shape::Scatter, team, dest, source, nreduce)"),
];

/// The typed atomic memory operations (`<T>_atomic_*`), told apart by their C parameter names and
/// whether they return the old value: the Rust parameters and the call of src/safe.rs, as FAMILIES.
/// The target is element `index` of a SymmetricBuffer.
const ATOMICS: &[(&[&str], bool, &str, &str)] = &[
    (
        &["source", "pe"],
        true,
        "source: &SymmetricBuffer<{T}>, index: usize, pe: i32",
        "element({C}, source, index, pe, |e| unsafe { {F}(e, pe) })",
    ),
    (
        &["dest", "value", "pe"],
        false,
        "dest: &SymmetricBuffer<{T}>, index: usize, value: {T}, pe: i32",
        "element({C}, dest, index, pe, |e| unsafe { {F}(e, value, pe) })",
    ),
    (
        &["dest", "value", "pe"],
        true,
        "dest: &SymmetricBuffer<{T}>, index: usize, value: {T}, pe: i32",
        "element({C}, dest, index, pe, |e| unsafe { {F}(e, value, pe) })",
    ),
    (
        &["dest", "pe"],
        false,
        "dest: &SymmetricBuffer<{T}>, index: usize, pe: i32",
        "element({C}, dest, index, pe, |e| unsafe { {F}(e, pe) })",
    ),
    (
        &["dest", "pe"],
        true,
        "dest: &SymmetricBuffer<{T}>, index: usize, pe: i32",
        "element({C}, dest, index, pe, |e| unsafe { {F}(e, pe) })",
    ),
    (
        &["dest", "cond", "value", "pe"],
        true,
        "dest: &SymmetricBuffer<{T}>, index: usize, cond: {T}, value: {T}, pe: i32",
        "element({C}, dest, index, pe, |e| unsafe { {F}(e, cond, value, pe) })",
    ),
];

/// The generated safe wrapper of `f` named `short`, when `f` is a typed function of one of the
/// FAMILIES (its element type taken from `dest`, or `source` for `_g`: a typed pointer, not void).
fn safe_wrapper(f: &Func, short: &str, known: &BTreeSet<String>) -> Option<String> {
    let names: Vec<&str> = f.params.iter().map(|(n, _)| n.as_str()).collect();
    let returns = rust_type(&f.ret, known) != "()";
    let (params, call) = if short.contains("_atomic_") {
        ATOMICS
            .iter()
            .find(|(pnames, r, _, _)| names == *pnames && *r == returns)
            .map(|(_, _, params, call)| (params, call))?
    } else {
        FAMILIES
            .iter()
            .find(|(ending, pnames, _, _)| short.ends_with(ending) && names == *pnames)
            .map(|(_, _, params, call)| (params, call))?
    };
    // `_on_stream` alone is the typed RMA family: put, get, put_nbi, get_nbi.
    if names.len() == 5
        && names[0] == "dest"
        && ![
            "_put_on_stream",
            "_get_on_stream",
            "_put_nbi_on_stream",
            "_get_nbi_on_stream",
        ]
        .iter()
        .any(|e| short.ends_with(e))
    {
        return None;
    }
    let elem_param = usize::from(names[0] == "team");
    let elem = rust_type(&f.params[elem_param].1, known);
    let elem = elem.strip_prefix("*mut ").or_else(|| elem.strip_prefix("*const "))?;
    if elem == "c_void" || !f.name.starts_with("nvshmem") {
        return None;
    }
    Some(format!(
        "/// Safe `{c}` (checks and errors: [`crate::safe`]); raw: [`raw_{s}`].\npub fn {s}({p}) -> Result<{r}> {{\n    safe::{call}\n}}\n",
        c = f.name,
        s = short,
        p = params.replace("{T}", elem),
        // The collectives' int is their status (an Err); the other calls return the element's value.
        r = if returns && names[0] != "team" { elem } else { "()" },
        call = call.replace("{C}", &format!("\"{}\"", f.name)).replace("{F}", &format!("sys::{}", f.name)),
    ))
}

struct Func {
    name: String,
    ret: String,
    params: Vec<(String, String)>,
}

#[derive(Clone)]
struct Field {
    name: String,
    ty: String,
    array: Option<String>,
}

#[derive(Default)]
struct Api {
    funcs: Vec<Func>,
    structs: Vec<(String, Vec<Field>)>,
    aliases: Vec<(String, String)>,
    enumerators: Vec<String>,
}

fn die(msg: &str) -> ! {
    eprintln!("nvshmem4rust-bindgen: {}", msg);
    exit(1)
}

fn run(cmd: &mut Command, what: &str) -> String {
    let out = cmd.output().unwrap_or_else(|e| die(&format!("{}: {}", what, e)));
    if !out.status.success() {
        let err = String::from_utf8_lossy(&out.stderr);
        die(&format!(
            "{} failed:\n{}",
            what,
            err.chars().take(4000).collect::<String>()
        ));
    }
    String::from_utf8(out.stdout).unwrap_or_else(|_| die(&format!("{}: output is not UTF-8", what)))
}

/// C tokens: identifiers and numbers, string literals, single punctuation characters. A number keeps its
/// C++14 digit separators (`0x7fff'ffff`, in CUDA's headers for sm_100): taken for a character literal,
/// the quote would swallow the text up to the next one and every declaration after it.
fn tokenize(text: &str) -> Vec<String> {
    let chars: Vec<char> = text.chars().collect();
    let mut tokens = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
        } else if c.is_alphanumeric() || c == '_' {
            let start = i;
            let number = c.is_ascii_digit();
            let separator = |i: usize| {
                number && chars[i] == '\'' && matches!(chars.get(i + 1), Some(n) if n.is_alphanumeric())
            };
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_' || separator(i)) {
                i += 1;
            }
            tokens.push(chars[start..i].iter().collect());
        } else if c == '"' || c == '\'' {
            let start = i;
            i += 1;
            while i < chars.len() && chars[i] != c {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            tokens.push(chars[start..i.min(chars.len())].iter().collect());
        } else if c == '.' && chars.get(i + 1) == Some(&'.') {
            tokens.push("...".to_string());
            i += 3;
        } else {
            tokens.push(c.to_string());
            i += 1;
        }
    }
    tokens
}

/// Top-level declarations: split at `;` outside brackets; a function body ends its declaration.
/// The braces of `extern "C" { ... }` are transparent.
/// Each statement with whether it has C linkage (inside `extern "C" { }`, or `extern "C"` itself).
fn statements(tokens: &[String]) -> Vec<(Vec<String>, bool)> {
    let mut out = Vec::new();
    let mut cur: Vec<String> = Vec::new();
    let mut depth = 0i32;
    let mut linkage_blocks = 0;
    for t in tokens {
        if t == "{" && depth == 0 && cur.len() >= 2 && cur[cur.len() - 2] == "extern" && cur[cur.len() - 1] == "\"C\"" {
            cur.truncate(cur.len() - 2);
            linkage_blocks += 1;
            continue;
        }
        if t == "}" && depth == 0 && linkage_blocks > 0 {
            linkage_blocks -= 1;
            continue;
        }
        cur.push(t.clone());
        match t.as_str() {
            "(" | "{" | "[" => depth += 1,
            ")" | "]" => depth -= 1,
            "}" => {
                depth -= 1;
                let compound = matches!(cur[0].as_str(), "typedef" | "struct" | "enum" | "union");
                if depth == 0 && !compound {
                    let c = linkage_blocks > 0 || cur.iter().any(|t| t == "\"C\"");
                    out.push((std::mem::take(&mut cur), c));
                }
            }
            ";" if depth == 0 => {
                let c = linkage_blocks > 0 || cur.iter().any(|t| t == "\"C\"");
                out.push((std::mem::take(&mut cur), c));
            }
            _ => {}
        }
    }
    out
}

/// Drops `__attribute__((...))` and qualifiers that do not change the ABI.
fn strip_attributes(tokens: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match tokens[i].as_str() {
            "__attribute__" => {
                let mut depth = 0;
                i += 1;
                while i < tokens.len() {
                    match tokens[i].as_str() {
                        "(" => depth += 1,
                        ")" => depth -= 1,
                        _ => {}
                    }
                    i += 1;
                    if depth == 0 {
                        break;
                    }
                }
            }
            "extern" | "__extension__" | "__restrict" | "restrict" | "volatile" => i += 1,
            _ => {
                out.push(tokens[i].clone());
                i += 1;
            }
        }
    }
    out
}

fn is_api_name(name: &str) -> bool {
    name.starts_with("nvshmem_") || name.starts_with("nvshmemx_")
}

/// Splits `tokens` at top-level commas.
fn split_commas(tokens: &[String]) -> Vec<Vec<String>> {
    let mut parts = vec![Vec::new()];
    let mut depth = 0;
    for t in tokens {
        match t.as_str() {
            "(" | "[" | "{" => depth += 1,
            ")" | "]" | "}" => depth -= 1,
            "," if depth == 0 => {
                parts.push(Vec::new());
                continue;
            }
            _ => {}
        }
        parts.last_mut().unwrap().push(t.clone());
    }
    parts
}

/// A declarator `type tokens... name` into (name, type tokens joined by spaces).
fn split_declarator(tokens: &[String]) -> (String, String) {
    let (name, ty) = tokens.split_last().unwrap_or_else(|| die("empty declarator"));
    (name.clone(), ty.join(" "))
}

fn parse(text: &str) -> Api {
    let mut api = Api::default();
    for (stmt, _) in statements(&tokenize(text)) {
        let exported = stmt
            .windows(3)
            .any(|w| w[0] == "visibility" && w[1] == "(" && w[2] == "\"default\"");
        let stmt = strip_attributes(&stmt);
        if stmt.is_empty() {
            continue;
        }
        if exported {
            if let Some(f) = parse_function(&stmt) {
                api.funcs.push(f);
            }
        } else if stmt[0] == "typedef" {
            parse_typedef(&stmt, &mut api);
        } else if stmt[0] == "enum" {
            parse_enum(&stmt, &mut api);
        }
    }
    api
}

fn parse_function(stmt: &[String]) -> Option<Func> {
    let open = stmt.iter().position(|t| t == "(")?;
    let name = stmt[open - 1].clone();
    if !is_api_name(&name) || stmt.last().map(String::as_str) != Some(";") {
        return None;
    }
    let close = stmt.len() - 2;
    if stmt[close] != ")" {
        die(&format!("cannot parse the declaration of {}", name));
    }
    let inner = &stmt[open + 1..close];
    let mut params = Vec::new();
    if !(inner.is_empty() || inner.len() == 1 && inner[0] == "void") {
        for p in split_commas(inner) {
            if p.iter().any(|t| t == "...") {
                die(&format!(
                    "{} is variadic; the generator does not bind variadic functions",
                    name
                ));
            }
            // Rust names parameters in snake case (NVSHMEM's `PE_root` becomes `pe_root`).
            let (param, ty) = split_declarator(&p);
            params.push((param.to_lowercase(), ty));
        }
    }
    Some(Func {
        name,
        ret: stmt[..open - 1].join(" "),
        params,
    })
}

/// The C-linkage `__device__` functions named `nvshmem_*`/`nvshmemx_*` of a device-pass preprocessed
/// text (declarations and inline definitions; the first of each name). Unnamed parameters are `argN`.
fn parse_device(text: &str) -> Vec<Func> {
    let mut funcs: BTreeMap<String, Func> = BTreeMap::new();
    for (stmt, c_linkage) in statements(&tokenize(text)) {
        let device = stmt.windows(4).any(|w| w[0] == "__attribute__" && w[3] == "device");
        if !c_linkage || !device || stmt.first().map_or(true, |t| t == "template") {
            continue;
        }
        let stmt: Vec<String> = strip_attributes(&stmt)
            .into_iter()
            .filter(|t| !matches!(t.as_str(), "\"C\"" | "inline" | "__forceinline__" | "static"))
            .collect();
        let open = match stmt.iter().position(|t| t == "(") {
            Some(o) if o > 0 && is_api_name(&stmt[o - 1]) => o,
            _ => continue,
        };
        let mut depth = 0;
        let close = open
            + stmt[open..]
                .iter()
                .position(|t| {
                    depth += match t.as_str() {
                        "(" => 1,
                        ")" => -1,
                        _ => 0,
                    };
                    depth == 0
                })
                .unwrap_or_else(|| die(&format!("unbalanced declaration of {}", stmt[open - 1])));
        let inner = &stmt[open + 1..close];
        let mut params = Vec::new();
        if !(inner.is_empty() || inner.len() == 1 && inner[0] == "void") {
            for (i, p) in split_commas(inner).iter().enumerate() {
                let last = p.last().map(String::as_str).unwrap_or("");
                let unnamed = p.len() == 1
                    || last == "*"
                    || matches!(
                        last,
                        "int" | "char" | "short" | "long" | "float" | "double" | "unsigned" | "signed"
                    )
                    || last.ends_with("_t");
                if unnamed {
                    params.push((format!("arg{}", i), p.join(" ")));
                } else {
                    let (param, ty) = split_declarator(p);
                    params.push((param.to_lowercase(), ty));
                }
            }
        }
        let name = stmt[open - 1].clone();
        funcs.entry(name.clone()).or_insert(Func {
            name,
            ret: stmt[..open - 1].join(" "),
            params,
        });
    }
    funcs.into_values().collect()
}

fn parse_typedef(stmt: &[String], api: &mut Api) {
    let name = stmt[stmt.len() - 2].clone();
    // nvshmemx_collective_launch_attr_t wraps CUDA's cudaLaunchConfig_t for the inline (not exported)
    // nvshmemx_collective_launch_attr, which the crate does not bind either.
    if !name.starts_with("nvshmem") || name == "nvshmemx_collective_launch_attr_t" {
        return;
    }
    if stmt[1] == "struct" && stmt.contains(&"{".to_string()) {
        let open = stmt.iter().position(|t| t == "{").unwrap();
        let close = stmt.iter().rposition(|t| t == "}").unwrap();
        let mut fields = Vec::new();
        for decl in stmt[open + 1..close].split(|t| t == ";").filter(|d| !d.is_empty()) {
            let (decl, array) = match decl.iter().position(|t| t == "[") {
                Some(b) => (&decl[..b], Some(decl[b + 1..decl.len() - 1].join(" "))),
                None => (decl, None),
            };
            let (fname, ty) = split_declarator(decl);
            fields.push(Field { name: fname, ty, array });
        }
        api.structs.push((name, fields));
    } else if stmt[1] == "enum" && stmt.contains(&"{".to_string()) {
        parse_enum(&stmt[1..], api);
        api.aliases.push((name, "int".to_string()));
    } else if stmt[1] == "enum" {
        api.aliases.push((name, "int".to_string()));
    } else {
        api.aliases.push((name, stmt[1..stmt.len() - 2].join(" ")));
    }
}

fn parse_enum(stmt: &[String], api: &mut Api) {
    let (open, close) = match (stmt.iter().position(|t| t == "{"), stmt.iter().rposition(|t| t == "}")) {
        (Some(o), Some(c)) => (o, c),
        _ => return,
    };
    for e in split_commas(&stmt[open + 1..close]) {
        if let Some(n) = e.first().filter(|n| n.starts_with("NVSHMEM")) {
            api.enumerators.push(n.clone());
        }
    }
}

/// The Rust spelling of a C type (tokens joined by spaces, `*` separate).
fn rust_type(c: &str, known: &BTreeSet<String>) -> String {
    try_rust_type(c, known).unwrap_or_else(|| die(&format!("no Rust mapping for the C type '{}'", c)))
}

/// The Rust spelling of a C type, or None for a type without a mapping.
fn try_rust_type(c: &str, known: &BTreeSet<String>) -> Option<String> {
    let toks: Vec<&str> = c.split(' ').filter(|t| !t.is_empty()).collect();
    if let Some(star) = toks.iter().rposition(|t| *t == "*") {
        let pointee = toks[..star].join(" ");
        let konst = toks[..star].contains(&"const");
        let inner = try_rust_type(&pointee, known)?;
        let inner = if inner == "()" { "c_void".to_string() } else { inner };
        return Some(format!("{} {}", if konst { "*const" } else { "*mut" }, inner));
    }
    let base: Vec<&str> = toks.into_iter().filter(|t| *t != "const").collect();
    let base = base.join(" ");
    let mapped = match base.as_str() {
        "void" => "()",
        "char" => "c_char",
        "signed char" => "c_schar",
        "unsigned char" => "c_uchar",
        "short" | "short int" => "c_short",
        "unsigned short" | "unsigned short int" => "c_ushort",
        "int" | "signed" | "signed int" => "c_int",
        "unsigned" | "unsigned int" => "c_uint",
        "long" | "long int" => "c_long",
        "unsigned long" | "unsigned long int" => "c_ulong",
        "long long" | "long long int" => "c_longlong",
        "unsigned long long" | "unsigned long long int" => "c_ulonglong",
        "float" => "f32",
        "double" => "f64",
        "int8_t" => "i8",
        "int16_t" => "i16",
        "int32_t" => "i32",
        "int64_t" => "i64",
        "uint8_t" => "u8",
        "uint16_t" => "u16",
        "uint32_t" => "u32",
        "uint64_t" => "u64",
        "size_t" => "usize",
        "ptrdiff_t" => "isize",
        "half" => "Half",
        "__nv_bfloat16" => "Bfloat16",
        "cudaStream_t" => "cudaStream_t",
        "CUmodule" => "CUmodule",
        "CUlibrary" => "CUlibrary",
        other if known.contains(other) => other,
        _ => return None,
    };
    Some(mapped.to_string())
}

/// Compiles and runs a C program that prints `sizeof` of every struct and the value of every
/// constant (enumerators and object-like integer macros of the headers).
fn probe(
    cxx: &str,
    includes: &[&str],
    work_dir: &Path,
    structs: &[String],
    consts: &[String],
) -> BTreeMap<String, String> {
    let mut src = String::from("#include <stdio.h>\n#include <host/nvshmemx_coll_api.h>\nint main() {\n");
    for s in structs {
        writeln!(src, "  printf(\"sizeof {} %zu\\n\", sizeof({}));", s, s).unwrap();
    }
    for c in consts {
        writeln!(src, "  printf(\"const {} %lld\\n\", (long long)({}));", c, c).unwrap();
    }
    src.push_str("  return 0;\n}\n");
    let c_file = work_dir.join("nvshmem4rust_probe.cpp");
    let exe = work_dir.join("nvshmem4rust_probe");
    fs::write(&c_file, src).unwrap_or_else(|e| die(&format!("writing {}: {}", c_file.display(), e)));
    let mut cmd = Command::new(cxx);
    cmd.arg("-DNVSHM_NO_VERSION_REGISTRATION");
    for i in includes {
        cmd.arg(format!("-I{}", i));
    }
    cmd.arg(&c_file).arg("-o").arg(&exe);
    run(&mut cmd, "compiling the size/constant probe");
    let mut values = BTreeMap::new();
    for line in run(&mut Command::new(&exe), "running the probe").lines() {
        let mut parts = line.splitn(3, ' ');
        let (kind, name, value) = (parts.next(), parts.next(), parts.next());
        if let (Some(kind), Some(name), Some(value)) = (kind, name, value) {
            values.insert(format!("{} {}", kind, name), value.to_string());
        }
    }
    values
}

/// Object-like macros named NVSHMEM*/NVSHMEMX* (and NVSHM_RELEASE_*, our release: the SONAME and the
/// header check) with an integer value (not include guards, initialisers or strings).
fn integer_macros(cxx: &str, includes: &[&str], wrapper: &Path) -> Vec<String> {
    let mut cmd = Command::new(cxx);
    cmd.args(["-dM", "-E", "-DNVSHM_NO_VERSION_REGISTRATION"]);
    for i in includes {
        cmd.arg(format!("-I{}", i));
    }
    cmd.arg(wrapper);
    let mut names = Vec::new();
    for line in run(&mut cmd, "listing the macros").lines() {
        let mut parts = line.splitn(3, ' ');
        let (_, name, value) = (
            parts.next(),
            parts.next().unwrap_or(""),
            parts.next().unwrap_or("").trim(),
        );
        let public =
            name.starts_with("NVSHMEM_") || name.starts_with("NVSHMEMX_") || name.starts_with("NVSHM_RELEASE_");
        if public && !name.contains('(') && !value.is_empty() && !value.contains(['{', '"']) {
            names.push(name.to_string());
        }
    }
    names
}

/// The types and constants both binding files share: CUDA's handle types and the `half`/`bfloat16`
/// newtypes, the `nvshmem*` typedefs and structs (each with a compile-time size check against the C
/// `sizeof` of the probe), and the `NVSHMEM*` constants. The file brings the `c_*` names into scope.
fn type_items(api: &Api, values: &BTreeMap<String, String>, consts: &[String], known: &BTreeSet<String>) -> String {
    let mut out = String::new();
    out.push_str("/// A CUDA stream (`cudaStream_t`); null is the legacy default stream.\npub type cudaStream_t = *mut c_void;\n");
    out.push_str("/// A CUDA driver-API module (`CUmodule`).\npub type CUmodule = *mut c_void;\n");
    out.push_str("/// A CUDA driver-API library (`CUlibrary`).\npub type CUlibrary = *mut c_void;\n");
    out.push_str("/// CUDA's `half` (IEEE binary16), as its bits.\n#[repr(transparent)]\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]\npub struct Half(pub u16);\n");
    out.push_str("/// CUDA's `__nv_bfloat16`, as its bits.\n#[repr(transparent)]\n#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]\npub struct Bfloat16(pub u16);\n\n");
    for (name, target) in &api.aliases {
        writeln!(out, "pub type {} = {};", name, rust_type(target, known)).unwrap();
    }
    out.push('\n');
    for (name, fields) in &api.structs {
        writeln!(out, "#[repr(C)]\n#[derive(Clone, Copy)]\npub struct {} {{", name).unwrap();
        for f in fields {
            let ty = rust_type(&f.ty, known);
            match &f.array {
                Some(n) => writeln!(out, "    pub {}: [{}; {}],", f.name, ty, n).unwrap(),
                None => writeln!(out, "    pub {}: {},", f.name, ty).unwrap(),
            }
        }
        let size = values
            .get(&format!("sizeof {}", name))
            .unwrap_or_else(|| die(&format!("no sizeof for {}", name)));
        writeln!(
            out,
            "}}\nconst _: () = assert!(core::mem::size_of::<{}>() == {}, \"{} differs from the C layout\");\n",
            name, size, name
        )
        .unwrap();
    }
    for c in consts {
        let v: i64 = values[&format!("const {}", c)]
            .parse()
            .unwrap_or_else(|_| die(&format!("value of {}", c)));
        let ty = if i32::try_from(v).is_ok() { "c_int" } else { "i64" };
        writeln!(out, "pub const {}: {} = {};", c, ty, v).unwrap();
    }
    out
}

/// `extern "C"` declarations of `funcs` (whose types all map: see try_rust_type).
fn extern_block(funcs: &[Func], known: &BTreeSet<String>, what: &str) -> String {
    let mut out = String::from("\nextern \"C\" {\n");
    for f in funcs {
        let params: Vec<String> = f
            .params
            .iter()
            .map(|(n, t)| format!("{}: {}", n, rust_type(t, known)))
            .collect();
        let ret = rust_type(&f.ret, known);
        let ret = if ret == "()" {
            String::new()
        } else {
            format!(" -> {}", ret)
        };
        writeln!(
            out,
            "    /// `{n}` of the {w} (see its declaration in the NVSHMEM headers).\n    pub fn {n}({p}){r};",
            n = f.name,
            w = what,
            p = params.join(", "),
            r = ret
        )
        .unwrap();
    }
    out.push_str("}\n");
    out
}

/// True when every type of `f` has a Rust mapping.
fn mappable(f: &Func, known: &BTreeSet<String>) -> bool {
    try_rust_type(&f.ret, known).is_some() && f.params.iter().all(|(_, t)| try_rust_type(t, known).is_some())
}

/// How many files the device definitions are spread over, so that a parallel build compiles them at once
/// (all of them together cost about 9 minutes of one core: every function of the device API, instantiated).
const DEVICE_DEFS_FILES: usize = 16;

/// `nvshmem_device_defs_NN.cu`: linkable definitions of every C-linkage device function of the pass, in
/// DEVICE_DEFS_FILES files, by name. The headers define them inline; a kernel that only declares them (a
/// CUDA-Oxide kernel) needs a definition at the device link, and taking each function's address in a
/// `-rdc` object makes nvcc emit one (a weak symbol, so a program that also inlines them links too).
fn device_defs(bound: &[Func], unbound: &[Func], include_dir: &str, arch: &str, out_dir: &Path) {
    let mut names: Vec<&str> = bound.iter().chain(unbound).map(|f| f.name.as_str()).collect();
    names.sort_unstable();
    let per_file = (names.len() + DEVICE_DEFS_FILES - 1) / DEVICE_DEFS_FILES;
    for i in 0..DEVICE_DEFS_FILES {
        let mut out = format!(
            "// Generated by nvshmem4rust-bindgen from {}/nvshmem.h and nvshmemx.h (nvcc -arch={}): do not edit.\n\
             // Part {} of {} of libnvshmem_device_defs.a (compiled with -rdc=true): definitions of the device\n\
             // functions for kernels that only declare them (nvshmem_device_cuda_oxide.rs).\n\
             #include <nvshmem.h>\n#include <nvshmemx.h>\n\n__device__ void *nvshmem4rust_device_defs_{:02}[] = {{\n",
            include_dir,
            arch,
            i + 1,
            DEVICE_DEFS_FILES,
            i
        );
        for name in names.iter().skip(i * per_file).take(per_file) {
            writeln!(out, "    (void *)&{},", name).unwrap();
        }
        out.push_str("    nullptr};\n");
        write_file(&out_dir.join(format!("nvshmem_device_defs_{:02}.cu", i)), &out);
    }
}

/// `nvshmem_device_cuda_oxide.rs`: the device functions of the CUDA kernel interface (`nvshmem.h` and
/// `nvshmemx.h` preprocessed by `nvcc` for `arch`) as `extern "C"` declarations for CUDA-Oxide kernels,
/// with the shared types; `no_std` (the `c_*` names are declared here, LP64 as CUDA's device ABI).
#[allow(clippy::too_many_arguments)]
fn generate_device(
    nvcc: &str,
    arch: &str,
    includes: &[&str],
    api: &Api,
    values: &BTreeMap<String, String>,
    consts: &[String],
    out_dir: &Path,
    work_dir: &Path,
) {
    let unit = work_dir.join("nvshmem4rust_device.cu");
    fs::write(&unit, "#include <nvshmem.h>\n#include <nvshmemx.h>\n")
        .unwrap_or_else(|e| die(&format!("writing {}: {}", unit.display(), e)));
    let mut cmd = Command::new(nvcc);
    cmd.args(["-E", "-x", "cu", "-std=c++17", "-rdc=true"])
        .arg(format!("-arch={}", arch));
    for i in includes {
        cmd.arg(format!("-I{}", i));
    }
    cmd.arg(&unit);
    // Without the preprocessor's line markers (`# 12 "file"`) and pragmas.
    let text: String = run(&mut cmd, "preprocessing nvshmem.h for the device")
        .lines()
        .filter(|l| !l.trim_start().starts_with('#'))
        .flat_map(|l| [l, "\n"])
        .collect();
    let mut device_api = parse(&text);
    let mut known: BTreeSet<String> = api.structs.iter().map(|(n, _)| n.clone()).collect();
    known.extend(api.aliases.iter().map(|(n, _)| n.clone()));
    // The device interface's own typedefs (queue-pair and region handles, ...) join the host's.
    let mut shared = Api {
        aliases: api.aliases.clone(),
        ..Api::default()
    };
    for (name, target) in std::mem::take(&mut device_api.aliases) {
        if !known.contains(&name) && try_rust_type(&target, &known).is_some() {
            known.insert(name.clone());
            shared.aliases.push((name, target));
        }
    }
    shared.structs = api.structs.clone();
    let (bound, unbound): (Vec<Func>, Vec<Func>) = parse_device(&text).into_iter().partition(|f| mappable(f, &known));
    if bound.is_empty() {
        die("no nvshmem_*/nvshmemx_* device functions found in the device pass");
    }
    let mut out = format!(
        "// Generated by nvshmem4rust-bindgen from {}/nvshmem.h and nvshmemx.h (nvcc -arch={}): do not edit.\n\
         // The device functions of NVSHMEM's CUDA kernel interface for CUDA-Oxide kernels: include!() this\n\
         // file in device code (no_std) and link the kernels with the device library. Types as in\n\
         // nvshmem_host.rs; the C integer names are declared here (LP64, CUDA's device ABI).\n\n",
        includes[0], arch
    );
    for (c, r) in [
        ("c_char", "i8"),
        ("c_schar", "i8"),
        ("c_uchar", "u8"),
        ("c_short", "i16"),
        ("c_ushort", "u16"),
        ("c_int", "i32"),
        ("c_uint", "u32"),
        ("c_long", "i64"),
        ("c_ulong", "u64"),
        ("c_longlong", "i64"),
        ("c_ulonglong", "u64"),
    ] {
        writeln!(out, "#[allow(non_camel_case_types)]\npub type {} = {};", c, r).unwrap();
    }
    out.push_str(
        "/// C's `void`, behind pointers.\n#[repr(u8)]\npub enum c_void {\n    #[doc(hidden)]\n    Variant,\n}\n\n",
    );
    out.push_str(&type_items(&shared, values, consts, &known));
    out.push_str(&extern_block(&bound, &known, "CUDA kernel interface"));
    if !unbound.is_empty() {
        let names: Vec<&str> = unbound.iter().map(|f| f.name.as_str()).collect();
        writeln!(
            out,
            "\n// Not bound (a parameter or result type without a Rust mapping): {}",
            names.join(", ")
        )
        .unwrap();
    }
    write_file(&out_dir.join("nvshmem_device_cuda_oxide.rs"), &out);
    device_defs(&bound, &unbound, includes[0], arch, out_dir);
    println!(
        "nvshmem4rust-bindgen: {} device functions ({} not bound) into {}",
        bound.len(),
        unbound.len(),
        out_dir.display()
    );
}

fn generate(
    cxx: &str,
    include: &str,
    cuda_include: &str,
    out_dir: &Path,
    work_dir: &Path,
    device: Option<(&str, &str)>,
) {
    let includes = [include, cuda_include];
    let wrapper = work_dir.join("nvshmem4rust_wrapper.cpp");
    fs::write(&wrapper, "#include <host/nvshmemx_coll_api.h>\n")
        .unwrap_or_else(|e| die(&format!("writing the wrapper: {}", e)));
    let mut cmd = Command::new(cxx);
    cmd.args(["-E", "-P", "-DNVSHM_NO_VERSION_REGISTRATION"]);
    for i in &includes {
        cmd.arg(format!("-I{}", i));
    }
    cmd.arg(&wrapper);
    let api = parse(&run(&mut cmd, "preprocessing host/nvshmemx_coll_api.h"));
    if api.funcs.is_empty() {
        die("no nvshmem_*/nvshmemx_* host functions found: is the include directory right?");
    }

    let mut consts = api.enumerators.clone();
    consts.extend(integer_macros(cxx, &includes, &wrapper));
    consts.sort();
    consts.dedup();
    let struct_names: Vec<String> = api.structs.iter().map(|(n, _)| n.clone()).collect();
    let values = probe(cxx, &includes, work_dir, &struct_names, &consts);

    let mut known: BTreeSet<String> = struct_names.iter().cloned().collect();
    known.extend(api.aliases.iter().map(|(n, _)| n.clone()));

    let mut host = String::new();
    host.push_str(&format!(
        "// Generated by nvshmem4rust-bindgen from {}/host/nvshmemx_coll_api.h: do not edit.\n\
         // The host API of libnvshmem_host.so with its exact C names, linked (the crate's build.rs links\n\
         // the library from NVSHMEM_HOST_LIB_DIR).\n\n",
        include
    ));
    host.push_str("use std::os::raw::{c_char, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulong, c_ulonglong, c_ushort, c_void};\n\n");
    host.push_str(&type_items(&api, &values, &consts, &known));
    host.push_str(&extern_block(&api.funcs, &known, "C API"));

    let mut stripped = String::from(
        "// Generated by nvshmem4rust-bindgen: do not edit.\n\
         // The host functions without their nvshmem_/nvshmemx_ prefix (nvshmem_int_p is int_p), and\n\
         // the safe wrappers of the typed families (crate::safe). A function with a safe form (here or\n\
         // by hand in the crate) keeps its raw alias as raw_<name> (raw_int_put_on_stream).\n\n\
         use std::os::raw::*;\n\n\
         use crate::safe::{self, Shape};\n\
         use crate::sys::{self, *};\n\
         use crate::{Result, Stream, SymmetricBuffer};\n\n",
    );
    let mut seen = BTreeMap::new();
    let mut wrapped = 0;
    for f in &api.funcs {
        let short = f
            .name
            .trim_start_matches("nvshmemx_")
            .trim_start_matches("nvshmem_")
            .to_string();
        if let Some(other) = seen.insert(short.clone(), f.name.clone()) {
            die(&format!("{} and {} both strip to {}", other, f.name, short));
        }
        let wrapper = safe_wrapper(f, &short, &known);
        let raw = if wrapper.is_some() || HAND_WRAPPED.contains(&f.name.as_str()) {
            format!("raw_{}", short)
        } else {
            short.clone()
        };
        writeln!(stripped, "pub use crate::sys::{} as {};", f.name, raw).unwrap();
        if let Some(w) = wrapper {
            stripped.push_str(&w);
            wrapped += 1;
        }
    }

    write_file(&out_dir.join("nvshmem_host.rs"), &host);
    if let Some((nvcc, arch)) = device {
        generate_device(nvcc, arch, &includes, &api, &values, &consts, out_dir, work_dir);
    }
    write_file(&out_dir.join("nvshmem_host_api.rs"), &stripped);
    let _ = fs::remove_file(&wrapper);
    println!(
        "nvshmem4rust-bindgen: {} functions ({} with a generated safe wrapper), {} structs, {} constants into {}",
        api.funcs.len(),
        wrapped,
        api.structs.len(),
        consts.len(),
        out_dir.display()
    );
}

fn write_file(path: &Path, text: &str) {
    fs::write(path, text).unwrap_or_else(|e| die(&format!("writing {}: {}", path.display(), e)));
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 6 && args.len() != 8 {
        die("usage: nvshmem4rust-bindgen CXX NVSHMEM_INCLUDE_DIR CUDA_INCLUDE_DIR OUT_DIR WORK_DIR [NVCC ARCH]");
    }
    let device = (args.len() == 8).then(|| (args[6].as_str(), args[7].as_str()));
    let (out_dir, work_dir) = (PathBuf::from(&args[4]), PathBuf::from(&args[5]));
    for dir in [&out_dir, &work_dir] {
        fs::create_dir_all(dir).unwrap_or_else(|e| die(&format!("creating {}: {}", dir.display(), e)));
    }
    generate(&args[1], &args[2], &args[3], &out_dir, &work_dir, device);
}

#[cfg(test)]
mod tests {
    use super::tokenize;

    #[test]
    fn digit_separators_stay_in_their_number() {
        let tokens = tokenize("x = 0x0001'0000'0000'0000 << 64; char c = 'a'; int f(int n);");
        assert_eq!(
            tokens,
            [
                "x", "=", "0x0001'0000'0000'0000", "<", "<", "64", ";", "char", "c", "=", "'a'", ";", "int", "f",
                "(", "int", "n", ")", ";"
            ]
        );
    }
}
