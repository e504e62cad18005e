//! The operations of the algebra: the [`OpCode`] values that `const fn`s evaluate, and
//! their type-level names (the `O` of [`crate::Expr<O, A>`]), both from one list.

use crate::operand::expr::Operation;

macro_rules! ops {
    ($($(#[$m:meta])* $name:ident),+ $(,)?) => {
        /// An operation of the layout algebra, with its integer parameters.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub enum OpCode {
            $($(#[$m])* $name,)+
            /// `layout<I>(layout)`.
            Get(usize),
            /// `take<B,E>(layout)`.
            Take(usize, usize),
            /// `group<B,E>(layout)`.
            GroupModes(usize, usize),
            /// `select<I0,I1,...>(layout)`, up to 8 modes (`usize::MAX` ends the list).
            Select([usize; 8]),
            /// `replace<I>(layout, x)`.
            Replace(usize),
            /// `recast_layout` from elements of the first bit width to the second.
            Recast(usize, usize),
        }
        $(
            $(#[$m])*
            #[derive(Clone, Copy, Debug, Default)]
            pub struct $name;
            impl Operation for $name {
                const CODE: OpCode = OpCode::$name;
            }
        )+
    };
}

ops!(
    /// `make_layout(shape)`.
    MakeLayout,
    /// `make_layout(shape, LayoutRight{})`.
    MakeLayoutRight,
    /// `coalesce(layout)`.
    Coalesce,
    /// `coalesce(layout, profile)`.
    CoalesceProfile,
    /// `filter(layout)`.
    Filter,
    /// `composition(a, b)`.
    Composition,
    /// `complement(layout, cotarget)`.
    Complement,
    /// `complement(layout)`.
    ComplementCosize,
    /// `right_inverse(layout)`.
    RightInverse,
    /// `left_inverse(layout)`.
    LeftInverse,
    /// `max_common_layout(a, b)`.
    MaxCommonLayout,
    /// `logical_divide(layout, tiler)`.
    LogicalDivide,
    /// `zipped_divide(layout, tiler)`.
    ZippedDivide,
    /// `tiled_divide(layout, tiler)`.
    TiledDivide,
    /// `flat_divide(layout, tiler)`.
    FlatDivide,
    /// `logical_product(block, tiler)`.
    LogicalProduct,
    /// `zipped_product(block, tiler)`.
    ZippedProduct,
    /// `tiled_product(block, tiler)`.
    TiledProduct,
    /// `flat_product(block, tiler)`.
    FlatProduct,
    /// `blocked_product(block, tiler)`.
    BlockedProduct,
    /// `raked_product(block, tiler)`.
    RakedProduct,
    /// `tile_to_shape(block, shape)`.
    TileToShape,
    /// The layout of `make_layout_tv(thr, val)`.
    MakeLayoutTv,
    /// `slice(coord, layout)`.
    Slice,
    /// `append(layout, x)`.
    Append,
    /// `prepend(layout, x)`.
    Prepend,
    /// `flatten(layout)`.
    Flatten,
    /// `product_each(shape(layout))`: the size of every top-level mode, as a tuple.
    ProductEach,
);

/// `layout<I>(l)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Get<const I: usize>;
impl<const I: usize> Operation for Get<I> {
    const CODE: OpCode = OpCode::Get(I);
}

/// `take<B,E>(l)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Take<const B: usize, const E: usize>;
impl<const B: usize, const E: usize> Operation for Take<B, E> {
    const CODE: OpCode = OpCode::Take(B, E);
}

/// `group<B,E>(l)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GroupModes<const B: usize, const E: usize>;
impl<const B: usize, const E: usize> Operation for GroupModes<B, E> {
    const CODE: OpCode = OpCode::GroupModes(B, E);
}

/// `replace<I>(l, x)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct Replace<const I: usize>;
impl<const I: usize> Operation for Replace<I> {
    const CODE: OpCode = OpCode::Replace(I);
}

/// `select<I0,I1,...>(l)`: up to four modes (`usize::MAX` for unused slots).
#[derive(Clone, Copy, Debug, Default)]
pub struct Select<
    const I0: usize,
    const I1: usize = { usize::MAX },
    const I2: usize = { usize::MAX },
    const I3: usize = { usize::MAX },
>;
impl<const I0: usize, const I1: usize, const I2: usize, const I3: usize> Operation
    for Select<I0, I1, I2, I3>
{
    const CODE: OpCode = OpCode::Select([
        I0,
        I1,
        I2,
        I3,
        usize::MAX,
        usize::MAX,
        usize::MAX,
        usize::MAX,
    ]);
}

/// `recast_layout` from elements of `FROM` bits to elements of `TO` bits.
#[derive(Clone, Copy, Debug, Default)]
pub struct Recast<const FROM: usize, const TO: usize>;
impl<const FROM: usize, const TO: usize> Operation for Recast<FROM, TO> {
    const CODE: OpCode = OpCode::Recast(FROM, TO);
}
