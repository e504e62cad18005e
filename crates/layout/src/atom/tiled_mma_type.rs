//! [`TiledMma`]: CuTe's tiled MMA as a zero-sized type.

use super::mma::MmaAtom;
use super::tiled_mma_desc::{MmaTraits, TiledMmaDesc};
use super::typed::{partition, Desc, PartA, PartB, PartC, PartitionOut, Tiled, TvLayout};
use crate::algebra as a;
use crate::operand::kind::Static;
use crate::operand::Operand;
use crate::render::{cpp_tuple, cpp_type};
use crate::tup::Tup;
use crate::value::Value;
use core::marker::PhantomData;

/// CuTe's `TiledMMA`: the atom `Atom` repeated over the atom layout `L` (rank <= 3, over
/// M, N, K) with the permutations `P` (a tuple of up to three integers, layouts or `_`).
/// Zero-sized; its layouts are constants. Built by [`make_tiled_mma`].
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, LayoutLike, Operand};
/// type Mma = TiledMma<SM80_16x8x16_F32F16F16F32_TN, ferrocute_layout::Layout!((2,1,1):(1,0,0)), ()>;
/// assert_eq!(Mma::THR_LAYOUT_VMNK.to_string(), "(32,2,1,1):(1,32,0,0)");
/// assert_eq!(core::mem::size_of::<Mma>(), 0);
/// ```
pub struct TiledMma<Atom, L, P>(PhantomData<(Atom, L, P)>);
zst!(TiledMma<Atom, L, P>);

impl<Atom: MmaAtom, L: Operand<Kind = Static>, P: Operand<Kind = Static>> Tiled
    for TiledMma<Atom, L, P>
{
    const DESC: Desc = Desc::Mma(Self::MMA);
}

impl<Atom: MmaAtom, L: Operand<Kind = Static>, P: Operand<Kind = Static>> TiledMma<Atom, L, P> {
    /// The description, computed by rustc (an invalid tiling is a compile error).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// type Mma = TiledMma<SM80_16x8x16_F32BF16BF16F32_TN, ferrocute_layout::Layout!((1,1,1):(0,0,0)), ()>;
    /// assert_eq!(Mma::MMA.tile_size_mnk(2), 16);
    /// ```
    pub const MMA: TiledMmaDesc =
        match TiledMmaDesc::new(MmaTraits::of::<Atom>(), &L::VALUE, &P::VALUE) {
            Ok(d) => d,
            Err(e) => e.raise(),
        };
    /// `(ThrV,ThrM,ThrN,ThrK) -> thread index` (CuTe's `get_thr_layout_vmnk()`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// type Mma = TiledMma<SM90_64xNx16_F32BF16BF16_SS<64>, ferrocute_layout::Layout!((2,1,1):(1,0,0)), ()>;
    /// assert_eq!(Mma::THR_LAYOUT_VMNK.to_string(), "(128,2,1,1):(1,128,0,0)");
    /// ```
    pub const THR_LAYOUT_VMNK: Value = Self::MMA.thr_layout_vmnk;

    /// The description (for run-time use: partitions of dynamic layouts, pictures).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.desc().layout_tv(MmaOperand::C).unwrap(), mma.layout_c_tv().value());
    /// ```
    pub fn desc(&self) -> TiledMmaDesc {
        Self::MMA
    }

    /// CuTe's `tile_size_mnk`: `(M,N,K)` of the whole tiled MMA.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.tile_size_mnk().to_string(), "(32,16,16)");
    /// ```
    pub fn tile_size_mnk(&self) -> Tup {
        let m = &Self::MMA;
        Tup::flat(&[m.tile_size_mnk(0), m.tile_size_mnk(1), m.tile_size_mnk(2)])
    }

    /// CuTe's `get_layoutA_TV()`: `(thread index, value) -> (m,k)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.layout_a_tv().size(), 128 * 8);
    /// ```
    pub fn layout_a_tv(&self) -> TvLayout<Self, PartA> {
        TvLayout::default()
    }

    /// CuTe's `get_layoutB_TV()`: `(thread index, value) -> (n,k)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.layout_b_tv().to_string(), "((4,8,2,2),((2,2),(1,1))):((32,1,0,8),((16,128),(0,0)))");
    /// ```
    pub fn layout_b_tv(&self) -> TvLayout<Self, PartB> {
        TvLayout::default()
    }

    /// CuTe's `get_layoutC_TV()`: `(thread index, value) -> (m,n)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.layout_c_tv().to_string(), "((4,8,2,2),((2,2),(1,1))):((64,1,16,256),((32,8),(0,0)))");
    /// ```
    pub fn layout_c_tv(&self) -> TvLayout<Self, PartC> {
        TvLayout::default()
    }

    /// CuTe's `get_slice(thr_idx).partition_A(tensor)` on the layout `l` (`(M,K,...)`):
    /// thread `thr_idx`'s `(MMA,MMA_M,MMA_K,...)` layout and the offset of its first value.
    ///
    /// A swizzled `l` (`Sw ∘ off ∘ L`) keeps its swizzle and the offset goes inside it:
    /// value `i` is at `Sw(off + offset + L'(i))` (see [`TiledMmaDesc::partition`]).
    ///
    /// @pre `rank(l) >= 2`, `thr_idx < size(THR_LAYOUT_VMNK)`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let (frag, off) = mma.partition_a(layout!((64,32):(1,64)), 5);
    /// assert_eq!((frag.to_string(), off), ("((2,2,2),2,2):((64,8,512),32,1024)".to_string(), 129));
    /// let m = 64; // a run-time extent gives a checked run-time layout
    /// let (frag, _) = mma.partition_a(layout!(({m},32):(1,{m})), 5);
    /// assert_eq!(frag.unwrap().to_string(), "((2,2,2),2,2):((64,8,512),32,1024)");
    /// ```
    pub fn partition_a<T: Operand>(&self, l: T, thr_idx: usize) -> PartitionOut<Self, PartA, T> {
        partition::<Self, PartA, T>(l, thr_idx)
    }

    /// CuTe's `partition_B` on the layout `l` (`(N,K,...)`); see [`TiledMma::partition_a`].
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let (frag, off) = mma.partition_b(layout!((32,32):(32,1)), 37);
    /// assert_eq!((frag.to_string(), off), ("((2,2),2,2):((1,8),512,16)".to_string(), 34));
    /// ```
    pub fn partition_b<T: Operand>(&self, l: T, thr_idx: usize) -> PartitionOut<Self, PartB, T> {
        partition::<Self, PartB, T>(l, thr_idx)
    }

    /// CuTe's `partition_C` on the layout `l` (`(M,N,...)`); see [`TiledMma::partition_a`].
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// let (frag, off) = mma.partition_c(layout!((64,64):(64,1)), 127);
    /// assert_eq!((frag.to_string(), off), ("((2,2),2,4):((1,512),2048,16)".to_string(), 1486));
    /// ```
    pub fn partition_c<T: Operand>(&self, l: T, thr_idx: usize) -> PartitionOut<Self, PartC, T> {
        partition::<Self, PartC, T>(l, thr_idx)
    }

    /// The CuTe C++ type: `cute::TiledMMA<cute::MMA_Atom<op>,AtomLayoutMNK,PermutationMNK>`,
    /// as `make_tiled_mma` returns it.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// use ferrocute_layout::{layout, LayoutLike, Operand};
    /// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), ());
    /// assert_eq!(mma.cpp_type(), concat!(
    ///     "cute::TiledMMA<cute::MMA_Atom<cute::SM80_16x8x16_F32BF16BF16F32_TN>,",
    ///     "cute::Layout<cute::tuple<cute::C<2>,cute::C<2>,cute::C<1>>,cute::tuple<cute::C<1>,cute::C<2>,cute::C<0>>>,",
    ///     "cute::tuple<cute::Underscore,cute::Underscore,cute::Underscore>>"));
    /// ```
    pub fn cpp_type(&self) -> String {
        let d = &Self::MMA;
        let layout = cpp_type(&a::pad_rank(&L::VALUE, 3));
        let perm: Vec<String> = (0..3).map(|i| perm_cpp(&d.permutation, i)).collect();
        format!(
            "cute::TiledMMA<{},{},cute::tuple<{}>>",
            Atom::cpp_type(),
            layout,
            perm.join(",")
        )
    }
}

/// The C++ spelling of mode `i` of a permutation: `cute::Underscore`, `cute::C<n>` or a
/// layout type.
fn perm_cpp(p: &Value, i: usize) -> String {
    if p.shape.is_leaf() || i >= p.rank() {
        return "cute::Underscore".into();
    }
    let part = p.mode(i);
    if part.shape.is_free() {
        return "cute::Underscore".into();
    }
    match p.kind {
        crate::ValueKind::Tuple => cpp_tuple(&part.shape),
        crate::ValueKind::Layout if part.shape.is_leaf() && crate::algebra::is_int_tile(&part) => {
            format!("cute::C<{}>", part.shape.value())
        }
        crate::ValueKind::Layout => cpp_type(&part),
    }
}

/// CuTe's `make_tiled_mma(atom, atom_layout, permutations)`: pass `()` for no permutation
/// (CuTe's default `Tile<_,_,_>`).
///
/// @pre `rank(atom_layout) <= 3` and the permutation has at most three modes; both static.
/// @post the tile is `(M,N,K)` with `M = size(perm_M)` (or the atom's M times the atoms
///       along M when `perm_M` is `_`), and likewise for N and K.
///
/// ```
/// use ferrocute_layout::atom::*;
/// use ferrocute_layout::{layout, tuple, LayoutLike};
/// let mma = make_tiled_mma(SM80_16x8x16_F32BF16BF16F32_TN, layout!((2,2,1):(1,2,0)), tuple!((32,32,16)));
/// assert_eq!(mma.tile_size_mnk().to_string(), "(32,32,16)");
/// assert_eq!(mma.layout_a_tv().to_string(),
///     "((4,8,2,2),((2,2,2),(1,1))):((64,1,16,0),((32,8,256),(0,0)))");
/// assert!(mma.cpp_type().starts_with("cute::TiledMMA<cute::MMA_Atom<cute::SM80_16x8x16_F32BF16BF16F32_TN>,"));
/// ```
pub fn make_tiled_mma<Atom, L, P>(
    atom: Atom,
    atom_layout: L,
    permutation: P,
) -> TiledMma<Atom, L, P>
where
    Atom: MmaAtom,
    L: Operand<Kind = Static>,
    P: Operand<Kind = Static>,
{
    let _ = (atom, atom_layout, permutation, TiledMma::<Atom, L, P>::MMA);
    TiledMma::default()
}
