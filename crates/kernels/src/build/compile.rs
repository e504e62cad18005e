//! nvcc to PTX, ptxas to cubins, zstd to the committed files.

use super::manifest::digest;
use super::{Folders, Toolchain, Unit, NVCC_FLAGS};
use crate::artifact::{decompress, Target};
use std::path::Path;
use std::process::{Command, Stdio};

/// Compiles one module; returns its artifacts `(file name before compression, bytes)`.
pub(crate) fn module(m: &Unit, dirs: &Folders, tc: &Toolchain) -> Vec<(String, Vec<u8>)> {
    let ptx_path = dirs.out_dir.join(Target::Ptx(m.ptx_arch).file_name(m.name));
    run(
        Command::new(&tc.nvcc)
            .args(NVCC_FLAGS)
            .arg(format!(
                "-gencode=arch=compute_{0},code=compute_{0}",
                m.ptx_arch
            ))
            .arg(format!("-I{}", tc.cutlass.join("include").display()))
            .arg(format!("-I{}", dirs.kernel_dir.display()))
            .arg(format!("-I{}", dirs.out_dir.display()))
            .arg(format!("-D{}=\"{}_configs.h\"", m.header_macro, m.name))
            .args(
                m.force_include
                    .then(|| format!("--pre-include={}_configs.h", m.name)),
            )
            .arg(dirs.kernel_dir.join(m.source))
            .arg("-o")
            .arg(&ptx_path),
        m.source,
    );
    let mut ptx = normalize_ptx(&std::fs::read_to_string(&ptx_path).expect("read PTX"));
    if let Some(isa) = m.ptx_isa {
        ptx = declare_isa(&ptx, isa).unwrap_or_else(|| panic!("{}: no .version line", m.name));
    }
    std::fs::write(&ptx_path, &ptx).expect("write PTX");
    m.targets
        .iter()
        .map(|t| {
            let file = t.file_name(m.name);
            let bytes = match t {
                Target::Ptx(_) => ptx.clone().into_bytes(),
                Target::Cubin(_) => {
                    let out = dirs.out_dir.join(&file);
                    run(
                        Command::new(&tc.ptxas)
                            .args(["-O3", &format!("-arch={}", t.name())])
                            .arg(&ptx_path)
                            .arg("-o")
                            .arg(&out),
                        &file,
                    );
                    std::fs::read(&out).expect("read cubin")
                }
            };
            (file, bytes)
        })
        .collect()
}

/// Writes `<dir>/<file>.zst` unless the committed one decompresses to `bytes` already;
/// returns the digest of `bytes`.
pub(crate) fn store(dir: &Path, file: &str, bytes: &[u8], zstd: &Path) -> String {
    let path = dir.join(format!("{file}.zst"));
    let same = std::fs::read(&path)
        .ok()
        .and_then(|z| decompress(&z).ok())
        .is_some_and(|old| old == bytes);
    if !same {
        let mut child = Command::new(zstd)
            .args(["-19", "-q", "-c", "-"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("spawn zstd");
        let mut stdin = child.stdin.take().expect("zstd stdin");
        let input = bytes.to_vec();
        let writer = std::thread::spawn(move || std::io::Write::write_all(&mut stdin, &input));
        let out = child.wait_with_output().expect("zstd");
        writer.join().expect("zstd writer").expect("write to zstd");
        assert!(out.status.success(), "zstd failed on {file}");
        std::fs::write(&path, out.stdout).expect("write artifact");
    }
    digest(bytes)
}

fn run(cmd: &mut Command, what: &str) {
    match cmd.status() {
        Ok(s) if s.success() => {}
        other => panic!("compiling {what} failed: {other:?} ({cmd:?})"),
    }
}

/// `ptx` with its `.version` directive (the PTX ISA it is written in) set to `isa`.
fn declare_isa(ptx: &str, isa: &str) -> Option<String> {
    let start = ptx.find("\n.version ")? + 1;
    let end = start + ptx[start..].find('\n')?;
    Some(format!("{}.version {isa}{}", &ptx[..start], &ptx[end..]))
}

/// nvcc names internal-linkage symbols `_INTERNAL_<8 hex>_...` and anonymous namespaces
/// `_GLOBAL__N__<8 hex>_...` with a hash of where the source file lives; zeroing it makes the
/// PTX (and the cubins) the same on every checkout, so CI can compare them byte for byte.
/// The names stay unique within the module.
fn normalize_ptx(text: &str) -> String {
    let mut text = text.to_string();
    for key in ["_INTERNAL_", "_GLOBAL__N__"] {
        let mut out = String::with_capacity(text.len());
        let mut rest = text.as_str();
        while let Some(i) = rest.find(key) {
            let (head, tail) = rest.split_at(i + key.len());
            out.push_str(head);
            let hex = tail.len() > 8 && tail.as_bytes()[..8].iter().all(u8::is_ascii_hexdigit);
            if hex && tail.as_bytes()[8] == b'_' {
                out.push_str("00000000");
                rest = &tail[8..];
            } else {
                rest = tail;
            }
        }
        out.push_str(rest);
        text = out;
    }
    text
}
