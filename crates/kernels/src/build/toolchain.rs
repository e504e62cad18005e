//! Finding nvcc, ptxas, the CuTe headers and zstd.

use std::path::{Path, PathBuf};
use std::process::Command;

/// What a kernel rebuild needs.
#[derive(Clone, Debug)]
pub struct Toolchain {
    /// nvcc.
    pub nvcc: PathBuf,
    /// ptxas: `$PTXAS`, else the one beside nvcc.
    pub ptxas: PathBuf,
    /// ptxas's release line.
    pub ptxas_version: String,
    /// The folder holding `include/cute`.
    pub cutlass: PathBuf,
    /// The `zstd` command, which compresses the artifacts.
    pub zstd: PathBuf,
    /// nvcc's release line, e.g. `Cuda compilation tools, release 13.0, V13.0.88`.
    pub version: String,
}

impl Toolchain {
    /// nvcc: `$NVCC`, else `$CUDA_HOME/bin/nvcc`, else `nvcc` on `PATH`; ptxas: `$PTXAS`,
    /// else beside nvcc. CuTe: `$CUTLASS_DIR`
    /// (for the PyPI `nvidia-cutlass` wheel, `.../cutlass_library/source`). `zstd` on `PATH`.
    pub fn find() -> Result<Toolchain, String> {
        let nvcc = std::env::var_os("NVCC")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("CUDA_HOME")
                    .map(|h| PathBuf::from(h).join("bin/nvcc"))
                    .filter(|p| p.exists())
            })
            .or_else(|| on_path("nvcc"))
            .ok_or("nvcc not found (NVCC, CUDA_HOME, PATH)")?;
        let cutlass = std::env::var_os("CUTLASS_DIR")
            .map(PathBuf::from)
            .filter(|p| p.join("include/cute").exists())
            .ok_or("CuTe headers not found (CUTLASS_DIR/include/cute)")?;
        let zstd = on_path("zstd").ok_or("the zstd command was not found on PATH")?;
        let version =
            version_of(&nvcc).ok_or_else(|| format!("{} --version failed", nvcc.display()))?;
        let ptxas = std::env::var_os(super::PTXAS_ENV)
            .map(PathBuf::from)
            .unwrap_or_else(|| nvcc.with_file_name("ptxas"));
        let ptxas_version =
            version_of(&ptxas).ok_or_else(|| format!("{} --version failed", ptxas.display()))?;
        Ok(Toolchain {
            ptxas,
            ptxas_version,
            nvcc,
            cutlass,
            zstd,
            version,
        })
    }
}

fn on_path(name: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn version_of(nvcc: &Path) -> Option<String> {
    let o = Command::new(nvcc).arg("--version").output().ok()?;
    String::from_utf8_lossy(&o.stdout)
        .lines()
        .find(|l| l.contains("release"))
        .map(str::to_string)
}
