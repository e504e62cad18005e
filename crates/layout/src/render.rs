//! Rendering layouts as the CuTe C++ types that denote them.

use crate::tup::Tup;
use crate::value::{Value, ValueKind};

/// The C++ spelling of an integer tuple with static leaves: `cute::C<4>` or
/// `cute::tuple<cute::C<4>,cute::tuple<...>>`.
pub fn cpp_tuple(t: &Tup) -> String {
    if t.is_leaf() {
        return format!("cute::C<{}>", t.value());
    }
    let parts: Vec<String> = (0..t.rank()).map(|i| cpp_tuple(&t.get(i))).collect();
    format!("cute::tuple<{}>", parts.join(","))
}

/// The CuTe C++ type of a static layout value: `cute::Layout<Shape,Stride>`, or
/// `cute::ComposedLayout<cute::Swizzle<B,M,S>,cute::C<off>,cute::Layout<...>>`.
///
/// ```
/// use ferrocute_layout::{layout, LayoutLike};
/// assert_eq!(layout!((4,3):(1,4)).cpp_type(),
///     "cute::Layout<cute::tuple<cute::C<4>,cute::C<3>>,cute::tuple<cute::C<1>,cute::C<4>>>");
/// ```
pub fn cpp_type(v: &Value) -> String {
    if let ValueKind::Tuple = v.kind {
        return cpp_tuple(&v.shape);
    }
    let plain = format!(
        "cute::Layout<{},{}>",
        cpp_tuple(&v.shape),
        cpp_tuple(&v.stride)
    );
    if v.composed {
        format!(
            "cute::ComposedLayout<cute::Swizzle<{},{},{}>,cute::C<{}>,{}>",
            v.swizzle.b, v.swizzle.m, v.swizzle.s, v.offset, plain
        )
    } else {
        plain
    }
}
