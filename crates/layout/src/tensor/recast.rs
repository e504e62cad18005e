//! `recast`: a host tensor's memory seen as another element type.

use super::engine::HostEngine;
use super::Tensor;
use crate::algebra;
use crate::error::{Condition, LayoutError};
use crate::operand::dyn_layout::DynLayout;
use crate::operand::layout_like::LayoutLike;
use bytemuck::Pod;
use core::mem::size_of;

impl<E: HostEngine, L: LayoutLike> Tensor<E, L>
where
    E::Elem: Pod,
{
    /// CuTe's `recast<U>(tensor)`: the same bytes as elements of `U`, through
    /// `recast_layout` (see [`algebra::upcast`] and [`algebra::downcast`]).
    ///
    /// @pre one element size divides the other; the offset and the engine's start are
    /// aligned for `U`; the layout's modes divide as `upcast` needs; the recast layout stays
    /// inside the whole `U`s of the engine (else `EngineTooShort`).
    ///
    /// ```
    /// use ferrocute_layout::{layout, make_tensor, LayoutLike};
    /// let words: Vec<u32> = vec![0x0302_0100, 0x0706_0504];
    /// let t = make_tensor(&words[..], layout!(2:1)).unwrap();
    /// let bytes = t.recast::<u8>().unwrap();
    /// assert_eq!(bytes.layout().to_string(), "8:1");
    /// assert_eq!(bytes[5], if cfg!(target_endian = "little") { 5 } else { 6 });
    /// let back = bytes.recast::<u32>().unwrap();
    /// assert_eq!(back[1], 0x0706_0504);
    /// ```
    pub fn recast<U: Pod>(&self) -> Result<Tensor<&[U], DynLayout>, LayoutError> {
        let (from, to) = (size_of::<E::Elem>(), size_of::<U>());
        let layout = algebra::recast_layout(&self.layout.try_value()?, from * 8, to * 8)?;
        let bytes: &[u8] = bytemuck::cast_slice(self.engine.as_slice());
        let usable = bytes.len() - bytes.len() % to.max(1);
        let engine: &[U] = bytemuck::try_cast_slice(&bytes[..usable])
            .map_err(|_| LayoutError::new("recast", Condition::Misaligned, to, 0))?;
        let start = self.offset * from;
        if !start.is_multiple_of(to.max(1)) {
            return Err(LayoutError::new("recast", Condition::Misaligned, to, start));
        }
        let offset = start / to.max(1);
        if offset + layout.cosize() > engine.len() {
            return Err(LayoutError::new(
                "recast",
                Condition::EngineTooShort,
                offset + layout.cosize(),
                engine.len(),
            ));
        }
        Ok(Tensor::from_parts(
            engine,
            DynLayout::from_value(layout),
            offset,
        ))
    }
}
