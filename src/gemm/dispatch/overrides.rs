//! Tuning overrides of the dispatch ([`Overrides`]), read from the environment once per
//! handle or passed explicitly.

use crate::gemm::registry::{all_kernels, KernelConfig};

/// Tuning overrides of the dispatcher, passed explicitly: the default overrides nothing.
/// [`Overrides::from_env`] reads them from `FERROCUTE_KERNEL`, `FERROCUTE_SPLIT_K`,
/// `FERROCUTE_TAIL_SPLIT` and `FERROCUTE_STREAM_K`, as [`Gemm::open`](crate::gemm::Gemm::open)
/// does once per handle.
///
/// ```
/// use ferrocute::gemm::dispatch::Overrides;
/// let o = Overrides::parse(Some("sm90_128x128x64_s6_pp"), Some("2"), Some("0"), Some("1"));
/// assert_eq!(o.kernel.map(|c| c.name), Some("sm90_128x128x64_s6_pp"));
/// assert_eq!((o.split_k, o.tail_split, o.stream_k), (Some(2), Some(false), Some(true)));
/// assert_eq!(Overrides::parse(Some("nope"), Some("9"), Some("x"), Some("2")), Overrides::default());
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Overrides {
    /// Use this kernel wherever it is eligible.
    pub kernel: Option<&'static KernelConfig>,
    /// The K split (1, 2, 4 or 8) of split-K kernels, and the K parts of the
    /// register-streaming kernel.
    pub split_k: Option<u32>,
    /// Never split a persistent kernel's last round (`false`), or always into the most
    /// parts (`true`); stream-K, where it runs, takes the place of either.
    pub tail_split: Option<bool>,
    /// Never run a persistent kernel's last tiles stream-K (`false`), or wherever it applies
    /// ([`stream_k_blocks`](crate::gemm::geometry::stream_k_blocks); `true`), whatever
    /// `tail_split` says.
    pub stream_k: Option<bool>,
}

impl Overrides {
    /// The overrides the four variables name; values that name nothing are ignored, a
    /// kernel name with a warning on stderr (a tuning run that silently took the default
    /// dispatch would measure the wrong kernel).
    pub fn from_env() -> Overrides {
        let var = |k| std::env::var(k).ok();
        let kernel = var("FERROCUTE_KERNEL").filter(|k| !k.is_empty());
        let o = Overrides::parse(
            kernel.as_deref(),
            var("FERROCUTE_SPLIT_K").as_deref(),
            var("FERROCUTE_TAIL_SPLIT").as_deref(),
            var("FERROCUTE_STREAM_K").as_deref(),
        );
        if let (Some(name), None) = (kernel.as_deref(), o.kernel) {
            eprintln!(
                "ferrocute: FERROCUTE_KERNEL={name} names no kernel of \
                 gemm::registry::all_kernels() (e.g. sm90_128x128x64_s6_pp); ignored"
            );
        }
        o
    }

    /// Overrides from the variables' texts: a kernel name from the tables, a split of 1 to 8
    /// (the split-K clusters take 1, 2, 4 or 8 only), and `0` or `1` (twice).
    pub fn parse(
        kernel: Option<&str>,
        split_k: Option<&str>,
        tail_split: Option<&str>,
        stream_k: Option<&str>,
    ) -> Overrides {
        let switch = |v: Option<&str>| match v {
            Some("0") => Some(false),
            Some("1") => Some(true),
            _ => None,
        };
        Overrides {
            kernel: kernel.and_then(|name| all_kernels().find(|c| c.name == name)),
            split_k: split_k
                .and_then(|v| v.parse().ok())
                .filter(|s| (1..=8).contains(s)),
            tail_split: switch(tail_split),
            stream_k: switch(stream_k),
        }
    }
}
