//! Declares the transpose kernel module: its shared-memory and thread layouts are
//! ferrocute layout types, rendered into the header the CuTe source includes; its launcher
//! is generated from the same declaration. The committed artifacts in `artifacts/`
//! are used while `kernels/` and this declaration are unchanged, so no nvcc is needed.

use ferrocute_kernels::build::{build_crate, dim, Elem, Folders, Header, Kernel, Module};
use ferrocute_kernels::Target;
use ferrocute_layout::{Composition, Layout, LayoutLike, Swizzle};

/// Rows and columns of a tile.
const TILE: u32 = 32;
/// The tile, row-major: element (r, c) at r * 32 + c.
type TileRowMajor = Layout!((32,32):(32,1));
/// The shared-memory tile: row-major, its column bits XORed with its row bits
/// (`Swizzle<5,0,5>`), so that a warp reading a row or a column hits 32 different banks.
type SmemLayout = Composition<Swizzle<5, 0, 5>, TileRowMajor>;
/// The same storage seen transposed: `SmemLayoutT(i, j) == SmemLayout(j, i)`, computed by
/// the layout algebra (a layout's 1-D index is column-major, so composing with the
/// row-major tile swaps the coordinates).
type SmemLayoutT = Composition<SmemLayout, TileRowMajor>;
/// 256 threads as 8 rows of 32: a warp covers 32 consecutive columns (coalesced rows).
type ThrLayout = Layout!((8,32):(32,1));

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    let (smem, smem_t) = (SmemLayout::default(), SmemLayoutT::default());
    for i in 0..TILE as usize {
        for j in 0..TILE as usize {
            assert_eq!(
                smem_t.at((i, j)),
                smem.at((j, i)),
                "SmemLayoutT is no transpose"
            );
        }
    }
    let threads = <ThrLayout as LayoutLike>::SIZE as u32;
    let header = Header::new()
        .constant("TILE", TILE)
        .constant("THREADS", threads)
        .constant("SMEM_ELEMS", <SmemLayout as LayoutLike>::COSIZE as u32)
        .layout::<SmemLayout>("SmemLayout")
        .layout::<SmemLayoutT>("SmemLayoutT")
        .layout::<ThrLayout>("ThrLayout");
    // dst = transpose(src): src is m x n and dst n x m, both row-major and dense.
    let transpose = Kernel::new("transpose_f32")
        .input("src", Elem::F32, dim("m") * dim("n"))
        .output("dst", Elem::F32, dim("m") * dim("n"))
        .dim("m", Elem::I32)
        .dim("n", Elem::I32)
        .block([threads, 1, 1])
        .grid([
            dim("n").div_ceil(TILE.into()),
            dim("m").div_ceil(TILE.into()),
            1.into(),
        ]);
    let module = Module::new("transpose", "transpose.cu")
        .header(header)
        .kernel(transpose);
    build_crate(
        &[module, echo()],
        &Folders::for_crate("kernels", "artifacts"),
    );
}

/// A one-thread kernel that writes its arguments back: every kind of parameter, shipped as
/// PTX only, so that a GPU run also checks the JIT path and the argument passing.
fn echo() -> Module {
    let echo = Kernel::new("echo_args")
        .input("x", Elem::Bf16, dim("a"))
        .output("out", Elem::U64, 7.into())
        .dim("a", Elem::I32)
        .dim("b", Elem::U32)
        .dim("c", Elem::I64)
        .dim("d", Elem::U64)
        .scalar("e", Elem::F32)
        .scalar("f", Elem::F64);
    Module::new("echo", "echo.cu")
        .kernel(echo)
        .targets("80", &[Target::Ptx("80")])
}
