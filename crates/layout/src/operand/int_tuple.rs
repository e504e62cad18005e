//! Tuples of operands: shapes, strides and coordinates as nested Rust tuples, and by-mode
//! tilers when they hold layouts.

use crate::error::LayoutError;
use crate::operand::eval::DYNAMIC;
use crate::operand::kind::{Join, Kind, Static};
use crate::operand::Operand;
use crate::tup::Tup;
use crate::value::{Value, ValueKind};

/// A shape, stride or coordinate: an [`crate::Int`] or a tuple of `IntTuple`s.
pub trait IntTuple: Operand {
    /// The C++ type: `cute::Shape<cute::C<4>,int>` style (spelled `cute::tuple<...>`).
    fn cpp() -> String;
    /// The tree structure with every leaf 0 (known at compile time even for dynamic leaves).
    const PROFILE: Tup;
    /// The tree structure with CuTe's `_` kept and every integer 0: what slicing by this
    /// coordinate keeps, known at compile time even for dynamic integers.
    const SLICE: Tup;
    /// Writes the integers in preorder into `out` from position `*k` (at most 8 are kept).
    fn write_leaves(&self, out: &mut [usize; 8], k: &mut usize);
}

impl<T: crate::Int> IntTuple for T {
    fn cpp() -> String {
        <T as crate::Int>::cpp()
    }
    const PROFILE: Tup = Tup::leaf(0);
    const SLICE: Tup = if T::VALUE.shape.is_free() {
        Tup::free()
    } else {
        Tup::leaf(0)
    };
    #[inline(always)]
    fn write_leaves(&self, out: &mut [usize; 8], k: &mut usize) {
        if *k < 8 {
            out[*k] = self.get();
        }
        *k += 1;
    }
}

/// The value of a tuple of operands: an integer tuple if every part is one, otherwise a
/// by-mode tiler (integers in it are tiles `n:1`).
pub const fn tuple_operand(parts: &[Value]) -> Value {
    let mut all_tuples = true;
    let mut i = 0;
    while i < parts.len() {
        if let ValueKind::Layout = parts[i].kind {
            all_tuples = false;
        }
        i += 1;
    }
    if all_tuples {
        let mut t = Tup::EMPTY;
        let mut i = 0;
        while i < parts.len() {
            t.push(&parts[i].shape);
            i += 1;
        }
        return Value::tuple(t);
    }
    let mut tiles = [DYNAMIC; 8];
    let mut i = 0;
    while i < parts.len() {
        tiles[i] = crate::operand::eval::as_tiler(&parts[i]);
        i += 1;
    }
    Value::tiler(tiles.split_at(parts.len()).0)
}

macro_rules! tuple_impls {
    ($($T:ident $i:tt),+) => {
        impl<$($T: Operand),+> Operand for ($($T,)+)
        where
            $($T::Kind: Kind,)+
        {
            type Kind = tuple_impls!(@join $($T),+);
            const VALUE: Value = if <Self::Kind as Kind>::STATIC {
                tuple_operand(&[$($T::VALUE),+])
            } else {
                DYNAMIC
            };
            fn try_value(&self) -> Result<Value, LayoutError> {
                Ok(tuple_operand(&[$(self.$i.try_value()?),+]))
            }
        }

        impl<$($T: IntTuple),+> IntTuple for ($($T,)+) {
            fn cpp() -> String {
                let parts: Vec<String> = vec![$(<$T as IntTuple>::cpp()),+];
                format!("cute::tuple<{}>", parts.join(","))
            }
            const PROFILE: Tup = Tup::tuple(&[$($T::PROFILE),+]);
            const SLICE: Tup = Tup::tuple(&[$($T::SLICE),+]);
            #[inline(always)]
            fn write_leaves(&self, out: &mut [usize; 8], k: &mut usize) {
                $(self.$i.write_leaves(out, k);)+
            }
        }
    };
    (@join $A:ident) => { $A::Kind };
    (@join $A:ident, $($T:ident),+) => { Join<$A::Kind, tuple_impls!(@join $($T),+)> };
}

tuple_impls!(A 0);
tuple_impls!(A 0, B 1);
tuple_impls!(A 0, B 1, D 2);
tuple_impls!(A 0, B 1, D 2, E 3);
tuple_impls!(A 0, B 1, D 2, E 3, F 4);
tuple_impls!(A 0, B 1, D 2, E 3, F 4, G 5);
tuple_impls!(A 0, B 1, D 2, E 3, F 4, G 5, H 6);
tuple_impls!(A 0, B 1, D 2, E 3, F 4, G 5, H 6, I 7);

impl Operand for () {
    type Kind = Static;
    const VALUE: Value = Value::tuple(Tup::EMPTY);
    fn try_value(&self) -> Result<Value, LayoutError> {
        Ok(Self::VALUE)
    }
}

impl IntTuple for () {
    fn cpp() -> String {
        "cute::tuple<>".into()
    }
    const PROFILE: Tup = Tup::EMPTY;
    const SLICE: Tup = Tup::EMPTY;
    fn write_leaves(&self, _: &mut [usize; 8], _: &mut usize) {}
}
