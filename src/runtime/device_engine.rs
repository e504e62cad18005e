//! Device memory as a tensor engine: a layout over a cudarc buffer, checked on the host.

use core::marker::PhantomData;

use cudarc::driver::DeviceSlice;
use ferrocute_layout::tensor::engine::Engine;

/// A borrowed cudarc buffer (`CudaSlice`, `CudaView` or `CudaViewMut`) as the engine of a [`Tensor`](ferrocute_layout::Tensor).
///
/// Its elements live on the device, so the tensor cannot be indexed on the host; what it
/// gives is CuTe's description of a kernel argument, checked: [`make_tensor`] refuses a
/// layout that reaches past the buffer, and the tensor's tiles and partitions
/// (`local_tile`, `local_partition`, `slice`) tell a launcher the offset and layout each
/// block or thread works on.
///
/// [`make_tensor`]: ferrocute_layout::make_tensor
///
/// ```no_run
/// use ferrocute::runtime::Device;
/// use ferrocute::{layout, make_tensor, tuple, Condition, LayoutLike};
/// let stream = ferrocute::runtime::open(0)?;
/// let buf = stream.alloc_zeros::<f32>(64 * 48)?;
/// let a = make_tensor(Device::new(&buf), layout!((64,48):(1,64)))?;            // fits
/// let tile = a.local_tile(tuple!((16,16)), (3usize, 2usize))?;
/// assert_eq!((tile.offset(), tile.layout().to_string()), (48 + 32 * 64, "(16,16):(1,64)".into()));
/// let e = make_tensor(Device::new(&buf), layout!((64,64):(1,64))).unwrap_err();  // 4096 > 3072
/// assert_eq!(e.condition, Condition::EngineTooShort);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct Device<'a, T, S> {
    buf: &'a S,
    elem: PhantomData<T>,
}

impl<T, S> Clone for Device<'_, T, S> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T, S> Copy for Device<'_, T, S> {}

impl<'a, T, S: DeviceSlice<T>> Device<'a, T, S> {
    /// The engine over `buf`.
    pub fn new(buf: &'a S) -> Self {
        Device {
            buf,
            elem: PhantomData,
        }
    }

    /// The buffer.
    pub fn buffer(&self) -> &'a S {
        self.buf
    }
}

impl<T, S: DeviceSlice<T>> Engine for Device<'_, T, S> {
    type Elem = T;
    fn len(&self) -> usize {
        self.buf.len()
    }
}
