//! Compiled kernel modules as the crate embeds them: one zstd-compressed cubin per GPU
//! family a module has machine code for, and PTX where later GPUs may JIT-compile it.

use std::io::Read as _;

/// What a compiled form of a module runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Target {
    /// Machine code from ptxas for `sm_<arch>` (`"80"`, `"90"`, `"90a"`).
    Cubin(&'static str),
    /// PTX for `compute_<arch>`, which the driver JIT-compiles on its first load.
    Ptx(&'static str),
}

impl Target {
    /// The `sm_XY` / `compute_XY` name, as nvcc and the artifact files spell it.
    pub fn name(self) -> String {
        match self {
            Target::Cubin(a) => format!("sm_{a}"),
            Target::Ptx(a) => format!("compute_{a}"),
        }
    }

    /// The artifact file name of `module` in this form, before compression.
    pub fn file_name(self, module: &str) -> String {
        match self {
            Target::Cubin(_) => format!("{module}.{}.cubin", self.name()),
            Target::Ptx(_) => format!("{module}.{}.ptx", self.name()),
        }
    }

    /// Whether a GPU of compute capability `cc` runs this form.
    ///
    /// A cubin runs on its own major version at its minor version or later (`sm_80` on
    /// A100, A10, L4 and RTX 30/40); an arch-specific one (`sm_90a`) runs only on exactly
    /// that GPU. PTX runs on its version and every later one, through the driver's JIT,
    /// except arch-specific PTX, which is not shipped.
    ///
    /// ```
    /// use ferrocute_kernels::Target;
    /// assert!(Target::Cubin("80").runs_on((8, 9)));
    /// assert!(!Target::Cubin("80").runs_on((9, 0)));
    /// assert!(Target::Cubin("90a").runs_on((9, 0)) && !Target::Cubin("90a").runs_on((10, 0)));
    /// assert!(Target::Ptx("80").runs_on((12, 0)) && !Target::Ptx("80").runs_on((7, 5)));
    /// ```
    pub fn runs_on(self, cc: (i32, i32)) -> bool {
        let (major, minor, specific) = self.version();
        match self {
            _ if specific => cc == (major, minor),
            Target::Cubin(_) => cc.0 == major && cc.1 >= minor,
            Target::Ptx(_) => cc >= (major, minor),
        }
    }
}

impl Target {
    /// `(major, minor, arch-specific)` of the architecture, e.g. `(9, 0, true)` for `90a`
    /// (an unparsable name sorts last and runs nowhere).
    fn version(self) -> (i32, i32, bool) {
        let (Target::Cubin(a) | Target::Ptx(a)) = self;
        let n: i32 = a.trim_end_matches('a').parse().unwrap_or(i32::MAX);
        (n / 10, n % 10, a.ends_with('a'))
    }
}

/// One embedded, compressed compiled form of a kernel module.
#[derive(Clone, Copy, Debug)]
pub struct Artifact {
    /// What it runs on.
    pub target: Target,
    /// The zstd frame.
    pub zst: &'static [u8],
}

/// A kernel module's embedded forms, cubins first.
#[derive(Clone, Copy, Debug)]
pub struct ModuleArtifacts {
    /// The module name (`sm90_gemm`).
    pub module: &'static str,
    /// Its compiled forms.
    pub artifacts: &'static [Artifact],
}

impl ModuleArtifacts {
    /// The form a GPU of compute capability `cc` loads: a cubin that runs on it, else PTX
    /// it can JIT-compile, else `None` (the module has nothing for this GPU).
    pub fn for_device(&self, cc: (i32, i32)) -> Option<&Artifact> {
        let runs = |a: &&Artifact| a.target.runs_on(cc);
        let cubin = self
            .artifacts
            .iter()
            .filter(|a| matches!(a.target, Target::Cubin(_)))
            .filter(runs)
            .max_by_key(|a| a.target.version());
        cubin.or_else(|| {
            self.artifacts
                .iter()
                .filter(|a| matches!(a.target, Target::Ptx(_)))
                .filter(runs)
                .max_by_key(|a| a.target.version())
        })
    }
}

/// Decompresses a zstd frame (the embedded artifacts; done once per module load).
pub fn decompress(zst: &[u8]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    ruzstd::decoding::StreamingDecoder::new(zst)
        .map_err(|e| format!("zstd frame: {e}"))?
        .read_to_end(&mut out)
        .map_err(|e| format!("zstd data: {e}"))?;
    Ok(out)
}
