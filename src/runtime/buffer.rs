//! The device buffers a generated launcher hands to a kernel.

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DevicePtr, DevicePtrMut};

mod sealed {
    pub trait Sealed {}
}

/// A cudarc buffer a kernel reads: `CudaSlice<T>`, `CudaView<T>` or `CudaViewMut<T>`.
///
/// Sealed, because a launcher trusts what the buffer says: it checks the length against the
/// kernel's declared need and passes the address on. cudarc's own buffers report both
/// truthfully; cudarc's `DevicePtr` is a safe trait that any type could implement with a
/// made-up length.
///
/// ```no_run
/// fn takes<B: ferrocute::runtime::DeviceIn<f32>>(_: &B) {}
/// let stream = ferrocute::runtime::open(0)?;
/// let buf = stream.alloc_zeros::<f32>(8)?;
/// takes(&buf);
/// takes(&buf.slice(2..));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait DeviceIn<T>: DevicePtr<T> + sealed::Sealed {}

/// A cudarc buffer a kernel writes: `CudaSlice<T>` or `CudaViewMut<T>` (sealed, as
/// [`DeviceIn`]).
///
/// ```no_run
/// fn fills<B: ferrocute::runtime::DeviceOut<f32>>(_: &mut B) {}
/// let stream = ferrocute::runtime::open(0)?;
/// let mut buf = stream.alloc_zeros::<f32>(8)?;
/// fills(&mut buf);
/// fills(&mut buf.slice_mut(2..));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait DeviceOut<T>: DevicePtrMut<T> + sealed::Sealed {}

impl<T> sealed::Sealed for CudaSlice<T> {}
impl<T> sealed::Sealed for CudaView<'_, T> {}
impl<T> sealed::Sealed for CudaViewMut<'_, T> {}
impl<T> DeviceIn<T> for CudaSlice<T> {}
impl<T> DeviceIn<T> for CudaView<'_, T> {}
impl<T> DeviceIn<T> for CudaViewMut<'_, T> {}
impl<T> DeviceOut<T> for CudaSlice<T> {}
impl<T> DeviceOut<T> for CudaViewMut<'_, T> {}
