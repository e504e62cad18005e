//! [`Kernel`]: a downstream kernel's entry point as a build script declares it, from which
//! both its C++ prototype and its checked Rust launcher are generated.

use super::header::is_snake;
use super::size::SizeExpr;

/// An element or scalar type, as Rust and CuTe C++ spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Elem {
    /// `f32` / `float`.
    F32,
    /// `f64` / `double`.
    F64,
    /// `half::f16` / `cute::half_t` (buffers only).
    F16,
    /// `half::bf16` / `cute::bfloat16_t` (buffers only).
    Bf16,
    /// `i8` / `int8_t` (buffers only).
    I8,
    /// `u8` / `uint8_t` (buffers only).
    U8,
    /// `i32` / `int32_t`.
    I32,
    /// `u32` / `uint32_t`.
    U32,
    /// `i64` / `int64_t`.
    I64,
    /// `u64` / `uint64_t`.
    U64,
}

impl Elem {
    /// The Rust type, as the generated launcher names it.
    pub fn rust(self) -> &'static str {
        match self {
            Elem::F32 => "f32",
            Elem::F64 => "f64",
            Elem::F16 => "::ferrocute::half::f16",
            Elem::Bf16 => "::ferrocute::half::bf16",
            Elem::I8 => "i8",
            Elem::U8 => "u8",
            Elem::I32 => "i32",
            Elem::U32 => "u32",
            Elem::I64 => "i64",
            Elem::U64 => "u64",
        }
    }

    /// The C++ type (both have the same size and representation).
    pub fn cpp(self) -> &'static str {
        match self {
            Elem::F32 => "float",
            Elem::F64 => "double",
            Elem::F16 => "cute::half_t",
            Elem::Bf16 => "cute::bfloat16_t",
            Elem::I8 => "int8_t",
            Elem::U8 => "uint8_t",
            Elem::I32 => "int32_t",
            Elem::U32 => "uint32_t",
            Elem::I64 => "int64_t",
            Elem::U64 => "uint64_t",
        }
    }

    /// The `ferrocute::runtime::Arg` variant a scalar of this type is passed as, if any.
    fn arg_variant(self) -> Option<&'static str> {
        Some(match self {
            Elem::F32 => "F32",
            Elem::F64 => "F64",
            Elem::I32 => "I32",
            Elem::U32 => "U32",
            Elem::I64 => "I64",
            Elem::U64 => "U64",
            Elem::F16 | Elem::Bf16 | Elem::I8 | Elem::U8 => return None,
        })
    }
}

/// One parameter of a kernel, in the order of its C++ signature.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A buffer the kernel only reads: `const T*` in C++, `&impl DevicePtr<T>` in Rust,
    /// which must hold at least `len` elements.
    Input {
        /// Parameter name.
        name: String,
        /// Element type.
        elem: Elem,
        /// Elements the kernel may read, from the start of the buffer.
        len: SizeExpr,
    },
    /// A buffer the kernel writes (and may read): `T*` / `&mut impl DevicePtrMut<T>`.
    Output {
        /// Parameter name.
        name: String,
        /// Element type.
        elem: Elem,
        /// Elements the kernel may access, from the start of the buffer.
        len: SizeExpr,
    },
    /// A dimension: a `usize` in Rust, passed as the integer type `ty` (checked to fit),
    /// usable in [`SizeExpr`]s.
    Dim {
        /// Parameter name.
        name: String,
        /// Its C++ integer type.
        ty: Elem,
    },
    /// A scalar passed as it is (`f32`, `f64`, `i32`, `u32`, `i64`, `u64`).
    Scalar {
        /// Parameter name.
        name: String,
        /// Its type.
        ty: Elem,
    },
}

impl Param {
    /// The parameter's name.
    pub fn name(&self) -> &str {
        match self {
            Param::Input { name, .. }
            | Param::Output { name, .. }
            | Param::Dim { name, .. }
            | Param::Scalar { name, .. } => name,
        }
    }
}

/// A kernel entry point: `extern "C" __global__ void <name>(<params>)`, launched with a
/// fixed block shape and dynamic shared memory and a grid computed from its dimensions.
///
/// What the build script declares is the kernel author's promise, on which the generated
/// launcher's `unsafe` block rests: with the dimensions passed, the kernel accesses each
/// buffer only within its declared `len` elements, and no other global memory.
///
/// ```
/// use ferrocute_kernels::build::{dim, Elem, Kernel};
/// let k = Kernel::new("scale")
///     .input("x", Elem::F32, dim("n"))
///     .output("y", Elem::F32, dim("n"))
///     .dim("n", Elem::I32)
///     .scalar("alpha", Elem::F32)
///     .block([256, 1, 1])
///     .grid([dim("n").div_ceil(256), 1.into(), 1.into()]);
/// assert_eq!(
///     k.prototype(),
///     "extern \"C\" __global__ void scale(const float* x, float* y, int32_t n, float alpha);"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Kernel {
    pub(crate) name: String,
    pub(crate) params: Vec<Param>,
    pub(crate) block: [u32; 3],
    pub(crate) grid: [SizeExpr; 3],
    pub(crate) smem_bytes: u32,
}

/// Names the generated launcher uses itself, and Rust keywords that are `snake_case`.
/// Names a parameter or kernel may not take: the generated Rust's own names, Rust's
/// keywords and C++'s (they appear in both the launcher and the header's prototype).
pub(crate) const RESERVED: &[&str] = &[
    "args",
    "dims",
    "stream",
    "module",
    "new",
    "as",
    "async",
    "await",
    "break",
    "const",
    "continue",
    "crate",
    "dyn",
    "else",
    "enum",
    "extern",
    "false",
    "fn",
    "for",
    "if",
    "impl",
    "in",
    "let",
    "loop",
    "match",
    "mod",
    "move",
    "mut",
    "pub",
    "ref",
    "return",
    "self",
    "static",
    "struct",
    "super",
    "trait",
    "true",
    "type",
    "unsafe",
    "use",
    "where",
    "while",
    "abstract",
    "become",
    "box",
    "do",
    "final",
    "gen",
    "macro",
    "override",
    "priv",
    "try",
    "typeof",
    "unsized",
    "virtual",
    "yield",
    "auto",
    "bool",
    "case",
    "char",
    "class",
    "default",
    "delete",
    "double",
    "float",
    "friend",
    "goto",
    "inline",
    "int",
    "long",
    "namespace",
    "operator",
    "private",
    "protected",
    "public",
    "register",
    "short",
    "signed",
    "sizeof",
    "switch",
    "template",
    "this",
    "throw",
    "typedef",
    "typename",
    "union",
    "unsigned",
    "void",
    "volatile",
];

impl Kernel {
    /// A kernel without parameters, one thread, one block. Names are `snake_case`.
    ///
    /// # Panics
    /// If `name` is not `snake_case`.
    pub fn new(name: &str) -> Kernel {
        assert!(
            is_snake(name) && !RESERVED.contains(&name),
            "Kernel::new: {name:?} is not a snake_case name the launcher can use"
        );
        Kernel {
            name: name.to_string(),
            params: Vec::new(),
            block: [1, 1, 1],
            grid: [1.into(), 1.into(), 1.into()],
            smem_bytes: 0,
        }
    }

    /// Adds a buffer the kernel reads, of at least `len` elements.
    pub fn input(self, name: &str, elem: Elem, len: SizeExpr) -> Kernel {
        self.param(Param::Input {
            name: name.into(),
            elem,
            len,
        })
    }

    /// Adds a buffer the kernel writes, of at least `len` elements.
    pub fn output(self, name: &str, elem: Elem, len: SizeExpr) -> Kernel {
        self.param(Param::Output {
            name: name.into(),
            elem,
            len,
        })
    }

    /// Adds a dimension passed as the integer type `ty` (`I32`, `U32`, `I64`, `U64`).
    pub fn dim(self, name: &str, ty: Elem) -> Kernel {
        assert!(
            matches!(ty, Elem::I32 | Elem::U32 | Elem::I64 | Elem::U64),
            "Kernel::dim {name}: {ty:?} is not an integer type"
        );
        self.param(Param::Dim {
            name: name.into(),
            ty,
        })
    }

    /// Adds a scalar (`F32`, `F64`, `I32`, `U32`, `I64`, `U64`).
    pub fn scalar(self, name: &str, ty: Elem) -> Kernel {
        assert!(
            ty.arg_variant().is_some(),
            "Kernel::scalar {name}: {ty:?} cannot be passed as a scalar"
        );
        self.param(Param::Scalar {
            name: name.into(),
            ty,
        })
    }

    /// The block shape (at most 1024 threads; `z` at most 64).
    pub fn block(mut self, block: [u32; 3]) -> Kernel {
        assert!(
            crate::block_shape_ok(block),
            "Kernel {}: block {block:?} is not a CUDA block shape",
            self.name
        );
        self.block = block;
        self
    }

    /// The grid, from the dimensions; a zero extent launches nothing.
    pub fn grid(mut self, grid: [SizeExpr; 3]) -> Kernel {
        self.grid = grid;
        self
    }

    /// Dynamic shared memory per block, bytes (at most 227 KiB).
    pub fn smem_bytes(mut self, bytes: u32) -> Kernel {
        assert!(
            bytes as usize <= crate::SMEM_LIMIT,
            "Kernel {}: {bytes} bytes of shared memory",
            self.name
        );
        self.smem_bytes = bytes;
        self
    }

    /// The kernel's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Its parameters, in order.
    pub fn params(&self) -> &[Param] {
        &self.params
    }

    /// The C++ prototype the generated header declares.
    pub fn prototype(&self) -> String {
        let params: Vec<String> = self
            .params
            .iter()
            .map(|p| match p {
                Param::Input { name, elem, .. } => format!("const {}* {name}", elem.cpp()),
                Param::Output { name, elem, .. } => format!("{}* {name}", elem.cpp()),
                Param::Dim { name, ty } | Param::Scalar { name, ty } => {
                    format!("{} {name}", ty.cpp())
                }
            })
            .collect();
        format!(
            "extern \"C\" __global__ void {}({});",
            self.name,
            params.join(", ")
        )
    }

    /// Panics unless every size names declared dimensions only.
    pub(crate) fn check_sizes(&self) {
        let dims: Vec<&str> = self
            .params
            .iter()
            .filter_map(|p| match p {
                Param::Dim { name, .. } => Some(name.as_str()),
                _ => None,
            })
            .collect();
        let lens = self.params.iter().filter_map(|p| match p {
            Param::Input { len, .. } | Param::Output { len, .. } => Some(len),
            _ => None,
        });
        for e in lens.chain(&self.grid) {
            for d in e.dims() {
                assert!(
                    dims.contains(&d),
                    "Kernel {}: size {e} names {d}, which is no dimension of it",
                    self.name
                );
            }
        }
    }

    fn param(mut self, p: Param) -> Kernel {
        let name = p.name();
        assert!(
            is_snake(name) && !RESERVED.contains(&name),
            "Kernel {}: parameter {name:?} is not a snake_case name of its own",
            self.name
        );
        // `<name>_len` is what the check function calls a buffer's length.
        let clash = self.params.iter().any(|q| {
            let q = q.name();
            q == name
                || q.strip_suffix("_len") == Some(name)
                || name.strip_suffix("_len") == Some(q)
        });
        assert!(
            !clash,
            "Kernel {}: parameter {name} clashes with another",
            self.name
        );
        self.params.push(p);
        self
    }

    /// The `Arg` variant of a dimension or scalar.
    pub(crate) fn arg_variant(ty: Elem) -> &'static str {
        ty.arg_variant().expect("checked when declared")
    }
}
