//! The committed `MANIFEST`: what each module's artifacts were built from.
//!
//! ```text
//! module sm90_gemm 25026ead81bb5429        hash of sources, header, flags, targets
//! artifact sm90_gemm.sm_90a.cubin 9f0c...  hash of the decompressed artifact
//! nvcc Cuda compilation tools, release 13.0, V13.0.88
//! ptxas Cuda compilation tools, release 12.9, V12.9.86
//! ```
//! The tool lines are informational: a different nvcc never makes a module stale.

use super::{Unit, NVCC_FLAGS};
use std::collections::BTreeMap;
use std::path::Path;

/// FNV-1a, 64-bit: stable across platforms and Rust versions (no `std` hasher is).
pub(crate) fn fnv1a(bytes: &[u8], mut h: u64) -> u64 {
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// Hex digest of `bytes`.
pub(crate) fn digest(bytes: &[u8]) -> String {
    format!("{:016x}", fnv1a(bytes, FNV_OFFSET))
}

/// Files under `dir/sub`, relative to `dir`, `/`-separated, sorted; hidden files (an
/// editor's swap files) are not sources.
pub(crate) fn files_under(dir: &Path, sub: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
        return out;
    };
    for e in entries.flatten() {
        let file = e.file_name().to_string_lossy().into_owned();
        if file.starts_with('.') {
            continue;
        }
        let name = format!("{sub}{file}");
        if e.path().is_dir() {
            out.extend(files_under(dir, &format!("{name}/")));
        } else {
            out.push(name);
        }
    }
    out.sort();
    out
}

/// Hash of everything a module's artifacts depend on, except the compiler.
pub(crate) fn module_hash(m: &Unit, kernel_dir: &Path) -> String {
    let mut h = FNV_OFFSET;
    for dep in &m.deps {
        let files = if dep.ends_with('/') {
            files_under(kernel_dir, dep)
        } else {
            vec![dep.to_string()]
        };
        assert!(
            !files.is_empty(),
            "kernel module {}: dep {dep} names no file",
            m.name
        );
        for f in files {
            let bytes = std::fs::read(kernel_dir.join(&f))
                .unwrap_or_else(|e| panic!("kernel module {}: dep {f}: {e}", m.name));
            h = fnv1a(f.as_bytes(), h);
            h = fnv1a(&bytes, h);
        }
    }
    h = fnv1a(m.header.as_bytes(), h);
    h = fnv1a(m.ptx_arch.as_bytes(), h);
    h = fnv1a(m.ptx_isa.unwrap_or("nvcc").as_bytes(), h);
    for t in m.targets {
        h = fnv1a(t.name().as_bytes(), h);
    }
    for f in NVCC_FLAGS {
        h = fnv1a(f.as_bytes(), h);
    }
    if m.force_include {
        h = fnv1a(b"--pre-include", h);
    }
    format!("{h:016x}")
}

/// The parsed `MANIFEST`.
#[derive(Default)]
pub(crate) struct Manifest {
    modules: BTreeMap<String, String>,
    artifacts: BTreeMap<String, String>,
    nvcc: String,
    ptxas: String,
}

impl Manifest {
    pub(crate) fn read(dir: &Path) -> Manifest {
        let mut m = Manifest::default();
        let text = std::fs::read_to_string(dir.join("MANIFEST")).unwrap_or_default();
        for line in text.lines() {
            let mut it = line.splitn(3, ' ');
            match (it.next(), it.next(), it.next()) {
                (Some("module"), Some(n), Some(h)) => {
                    m.modules.insert(n.into(), h.into());
                }
                (Some("artifact"), Some(n), Some(h)) => {
                    m.artifacts.insert(n.into(), h.into());
                }
                (Some("nvcc"), _, _) => m.nvcc = line["nvcc".len()..].trim().into(),
                (Some("ptxas"), _, _) => m.ptxas = line["ptxas".len()..].trim().into(),
                _ => {}
            }
        }
        m
    }

    pub(crate) fn module_hash(&self, name: &str) -> Option<&str> {
        self.modules.get(name).map(String::as_str)
    }

    pub(crate) fn set_module(&mut self, name: &str, hash: &str) {
        self.modules.insert(name.into(), hash.into());
    }

    pub(crate) fn set_artifact(&mut self, file: &str, digest: &str) {
        self.artifacts.insert(file.into(), digest.into());
    }

    pub(crate) fn set_tools(&mut self, nvcc: &str, ptxas: &str) {
        self.nvcc = nvcc.into();
        self.ptxas = ptxas.into();
    }

    pub(crate) fn write(&self, dir: &Path) {
        let mut s = String::new();
        for (n, h) in &self.modules {
            s += &format!("module {n} {h}\n");
        }
        for (n, h) in &self.artifacts {
            s += &format!("artifact {n} {h}\n");
        }
        s += &format!("nvcc {}\n", self.nvcc);
        if !self.ptxas.is_empty() {
            s += &format!("ptxas {}\n", self.ptxas);
        }
        std::fs::write(dir.join("MANIFEST"), s).expect("write MANIFEST");
    }
}
