//! Copy atoms: one copy instruction and CuTe's `Copy_Traits` for it (layouts in bits), and
//! [`CopyAtom`], the instruction seen on elements of a type `T` (CuTe's `Copy_Atom`).

use super::element::Element;
use super::notation::layout;
use crate::algebra::{err, upcast};
use crate::error::Condition;
use crate::tup::Tup;
use crate::value::Value;
use core::marker::PhantomData;

/// A copy instruction with CuTe's `Copy_Traits`: the threads taking part and the maps from
/// `(thread, value)` to a bit of the source, of the destination and of the reference
/// partition.
///
/// ```
/// use ferrocute_layout::atom::{CopyOp, SM75_U32x4_LDSM_N};
/// assert_eq!(SM75_U32x4_LDSM_N::SRC_LAYOUT.to_string(), "(32,128):(128,1)");
/// assert_eq!(SM75_U32x4_LDSM_N::DST_LAYOUT.to_string(), "(32,(32,4)):(32,(1,1024))");
/// ```
pub trait CopyOp: Copy + Default + 'static {
    /// Logical thread id to thread index (CuTe's `ThrID`).
    const THR_ID: Value;
    /// `(thread, value) -> bit` of the source (CuTe's `SrcLayout`).
    const SRC_LAYOUT: Value;
    /// `(thread, value) -> bit` of the destination (CuTe's `DstLayout`).
    const DST_LAYOUT: Value;
    /// `(thread, value) -> bit` of the reference partition (CuTe's `RefLayout`).
    const REF_LAYOUT: Value;
    /// The C++ operation, as `Copy_Atom`'s first parameter: `cute::SM75_U32x4_LDSM_N`.
    fn cpp_op() -> String;
}

/// CuTe's `Copy_Atom<Op, T>`: the instruction `Op` moving elements of type `T`; its layouts
/// are the traits' bit layouts recast to elements.
///
/// @pre each recast layout has one row per thread of `THR_ID` (a compile error otherwise:
///      the instruction cannot move `T`).
///
/// ```
/// use ferrocute_layout::atom::{Bf16, CopyAtom, SM75_U32x4_LDSM_N};
/// type A = CopyAtom<SM75_U32x4_LDSM_N, Bf16>;
/// assert_eq!(A::VAL_LAYOUT_SRC.to_string(), "(32,8):(8,1)");
/// assert_eq!(A::VAL_LAYOUT_DST.to_string(), "(32,(2,4)):(2,(1,64))");
/// assert_eq!(A::NUM_VAL_SRC, 8);
/// assert_eq!(A::cpp_type(), "cute::Copy_Atom<cute::SM75_U32x4_LDSM_N,cute::bfloat16_t>");
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CopyAtom<Op, T>(PhantomData<(Op, T)>);

impl<Op: CopyOp, T: Element> CopyAtom<Op, T> {
    /// Logical thread id to thread index.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::THR_ID.to_string(), "32:1");
    /// ```
    pub const THR_ID: Value = Op::THR_ID;
    /// `(thread, value) -> element` of the source (CuTe's `ValLayoutSrc`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::VAL_LAYOUT_SRC.to_string(), "((16,2),8):((8,0),1)");
    /// ```
    pub const VAL_LAYOUT_SRC: Value = recast(&Op::SRC_LAYOUT, &Op::THR_ID, T::BITS);
    /// `(thread, value) -> element` of the destination (CuTe's `ValLayoutDst`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::VAL_LAYOUT_DST.to_string(), "(32,(2,2)):(2,(1,64))");
    /// ```
    pub const VAL_LAYOUT_DST: Value = recast(&Op::DST_LAYOUT, &Op::THR_ID, T::BITS);
    /// `(thread, value) -> element` of the reference (CuTe's `ValLayoutRef`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::VAL_LAYOUT_REF, A::VAL_LAYOUT_DST);
    /// ```
    pub const VAL_LAYOUT_REF: Value = recast(&Op::REF_LAYOUT, &Op::THR_ID, T::BITS);
    /// Values per thread in the source (CuTe's `NumValSrc`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::NUM_VAL_SRC, 8);
    /// ```
    pub const NUM_VAL_SRC: usize = Self::VAL_LAYOUT_SRC.mode(1).size();
    /// Values per thread in the destination (CuTe's `NumValDst`).
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// type A = CopyAtom<SM75_U32x2_LDSM_N, F16>;
    /// assert_eq!(A::NUM_VAL_DST, 4);
    /// ```
    pub const NUM_VAL_DST: usize = Self::VAL_LAYOUT_DST.mode(1).size();

    /// The atom for elements of type `T`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// const ATOM: CopyAtom<UniversalCopy<U128>, Bf16> = CopyAtom::new();
    /// assert_eq!(core::mem::size_of_val(&ATOM), 0);
    /// ```
    pub const fn new() -> Self {
        CopyAtom(PhantomData)
    }

    /// The C++ type: `cute::Copy_Atom<op,T>`.
    ///
    /// ```
    /// use ferrocute_layout::atom::*;
    /// assert_eq!(CopyAtom::<UniversalCopy<U32>, F32>::cpp_type(), "cute::Copy_Atom<cute::UniversalCopy<uint32_t>,float>");
    /// ```
    pub fn cpp_type() -> String {
        format!("cute::Copy_Atom<{},{}>", Op::cpp_op(), T::CPP)
    }
}

/// A bit layout recast to elements of `bits` bits, checked against the thread count.
const fn recast(l: &Value, thr: &Value, bits: usize) -> Value {
    let v = match upcast(l, bits) {
        Ok(v) => v,
        Err(e) => e.raise(),
    };
    if v.mode(0).size() != thr.size() {
        err(
            "Copy_Atom",
            Condition::AtomDoesNotDivide,
            v.mode(0).size(),
            thr.size(),
        )
        .raise()
    }
    v
}

/// One thread's copy of `(1, bits)` (CuTe's `Layout<Shape<_1,Int<bits>>>`).
const fn one_thread(bits: usize) -> Value {
    Value::layout(Tup::flat(&[1, bits]), Tup::flat(&[0, 1]))
}

macro_rules! copy_op {
    ($(#[$m:meta])* $name:ident<$($g:ident: $b:path),*> => $cpp:expr,
     thr $thr:expr, src $src:expr, dst $dst:expr, ref $rf:expr) => {
        $(#[$m])*
        #[allow(non_camel_case_types)]
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name<$($g),*>($(PhantomData<$g>)*);
        impl<$($g: $b),*> CopyOp for $name<$($g),*> {
            const THR_ID: Value = $thr;
            const SRC_LAYOUT: Value = $src;
            const DST_LAYOUT: Value = $dst;
            const REF_LAYOUT: Value = $rf;
            fn cpp_op() -> String {
                $cpp
            }
        }
    };
}

copy_op! {
    /// One thread copies one `S` (CuTe's `UniversalCopy<S>`).
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, UniversalCopy, U128};
    /// assert_eq!(UniversalCopy::<U128>::SRC_LAYOUT.to_string(), "(1,128):(0,1)");
    /// ```
    UniversalCopy<S: Element> => format!("cute::UniversalCopy<{}>", S::CPP),
    thr layout("1:0"), src one_thread(S::BITS), dst one_thread(S::BITS), ref one_thread(S::BITS)
}

copy_op! {
    /// `cp.async.ca` of one `S` from global to shared memory
    /// (CuTe's `SM80_CP_ASYNC_CACHEALWAYS<S>`).
    ///
    /// ```
    /// use ferrocute_layout::atom::{CopyOp, SM80_CP_ASYNC_CACHEALWAYS, U128};
    /// assert_eq!(SM80_CP_ASYNC_CACHEALWAYS::<U128>::cpp_op(), "cute::SM80_CP_ASYNC_CACHEALWAYS<cute::uint128_t>");
    /// ```
    SM80_CP_ASYNC_CACHEALWAYS<S: Element> => format!("cute::SM80_CP_ASYNC_CACHEALWAYS<{}>", S::CPP),
    thr layout("1:0"), src one_thread(S::BITS), dst one_thread(S::BITS), ref one_thread(S::BITS)
}
