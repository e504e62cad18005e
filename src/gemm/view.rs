//! Strided (optionally batched) matrix views over device memory.

use cudarc::driver::{CudaSlice, CudaView, CudaViewMut, DeviceRepr};

mod sealed {
    pub trait Sealed {}
    impl Sealed for half::bf16 {}
    impl Sealed for half::f16 {}
    impl Sealed for f32 {}
}

/// Element types a GEMM can read (A and B): `half::bf16` and `half::f16`.
///
/// ```
/// use ferrocute::gemm::InputElem;
/// assert_eq!(<half::bf16 as InputElem>::NAME, "bf16");
/// ```
pub trait InputElem: DeviceRepr + sealed::Sealed + Copy + 'static {
    /// Type tag used in kernel names (`bf16` or `f16`).
    const NAME: &'static str;
    /// Element type of the TMA tensor maps over this type.
    #[doc(hidden)]
    const TMA_DTYPE: cudarc::driver::sys::CUtensorMapDataType;
}

/// Element types a GEMM can write (C): `half::bf16`, `half::f16` and `f32`.
///
/// ```
/// use ferrocute::gemm::OutputElem;
/// assert_eq!(<f32 as OutputElem>::NAME, "f32");
/// ```
pub trait OutputElem: DeviceRepr + sealed::Sealed + Copy + 'static {
    /// Type tag used in kernel names (`bf16`, `f16` or `f32`).
    const NAME: &'static str;
    /// Element type of the TMA tensor map over D, for the types the TMA kernels store
    /// by TMA (16-bit ones).
    #[doc(hidden)]
    const TMA_DTYPE: Option<cudarc::driver::sys::CUtensorMapDataType>;
}

impl InputElem for half::bf16 {
    const NAME: &'static str = "bf16";
    const TMA_DTYPE: cudarc::driver::sys::CUtensorMapDataType =
        cudarc::driver::sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16;
}
impl InputElem for half::f16 {
    const NAME: &'static str = "f16";
    const TMA_DTYPE: cudarc::driver::sys::CUtensorMapDataType =
        cudarc::driver::sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16;
}
impl OutputElem for half::bf16 {
    const NAME: &'static str = "bf16";
    const TMA_DTYPE: Option<cudarc::driver::sys::CUtensorMapDataType> =
        Some(cudarc::driver::sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
}
impl OutputElem for half::f16 {
    const NAME: &'static str = "f16";
    const TMA_DTYPE: Option<cudarc::driver::sys::CUtensorMapDataType> =
        Some(cudarc::driver::sys::CUtensorMapDataType::CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
}
impl OutputElem for f32 {
    const NAME: &'static str = "f32";
    const TMA_DTYPE: Option<cudarc::driver::sys::CUtensorMapDataType> = None;
}

/// Storage order of a matrix view.
///
/// ```
/// use ferrocute::gemm::Order;
/// assert_eq!(Order::RowMajor.transposed(), Order::ColMajor);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Order {
    /// Element `(r, c)` is at `r * ld + c`.
    RowMajor,
    /// Element `(r, c)` is at `r + c * ld` (BLAS convention).
    ColMajor,
}

impl Order {
    /// The layout of the transposed view of the same memory.
    pub fn transposed(self) -> Order {
        match self {
            Order::RowMajor => Order::ColMajor,
            Order::ColMajor => Order::RowMajor,
        }
    }
}

/// Shape and strides of a (batched) matrix view, independent of its memory.
///
/// `batch` matrices, matrix `l` starting `l * batch_stride` elements after
/// the view's start.
///
/// ```
/// use ferrocute::gemm::{Order, MatShape};
/// let s = MatShape::packed(3, 4, Order::RowMajor);
/// assert_eq!((s.ld, s.t().rows, s.t().layout), (4, 4, Order::ColMajor));
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MatShape {
    /// Logical rows.
    pub rows: usize,
    /// Logical columns.
    pub cols: usize,
    /// Leading dimension in elements (distance between consecutive rows for
    /// row-major, columns for column-major).
    pub ld: usize,
    /// Storage order.
    pub layout: Order,
    /// Number of matrices (1 for a plain GEMM).
    pub batch: usize,
    /// Elements between consecutive matrices of the batch.
    pub batch_stride: usize,
}

impl MatShape {
    /// A densely packed single matrix (`ld` = contiguous extent, batch 1).
    pub fn packed(rows: usize, cols: usize, layout: Order) -> MatShape {
        let ld = match layout {
            Order::RowMajor => cols,
            Order::ColMajor => rows,
        };
        MatShape {
            rows,
            cols,
            ld: ld.max(1),
            layout,
            batch: 1,
            batch_stride: 0,
        }
    }

    /// The transposed view: rows and cols swap, the layout flips, memory is unchanged.
    pub fn t(self) -> MatShape {
        MatShape {
            rows: self.cols,
            cols: self.rows,
            layout: self.layout.transposed(),
            ..self
        }
    }

    /// Number of elements along the contiguous (unit-stride) dimension.
    pub fn contiguous_extent(&self) -> usize {
        match self.layout {
            Order::RowMajor => self.cols,
            Order::ColMajor => self.rows,
        }
    }

    /// Number of elements along the strided (`ld`) dimension.
    pub fn outer_extent(&self) -> usize {
        match self.layout {
            Order::RowMajor => self.rows,
            Order::ColMajor => self.cols,
        }
    }
}

/// A read-only (batched) matrix view over device memory, used for A and B.
///
/// Constructing a view never fails; all checks happen in [`crate::gemm::Gemm::gemm`].
///
/// ```no_run
/// use ferrocute::gemm::{Order, MatRef};
/// # fn f(a: &cudarc::driver::CudaSlice<half::bf16>) {
/// // A 128 x 64 row-major matrix; `.t()` gives the 64 x 128 transpose for free.
/// let a = MatRef::new(a, 128, 64, Order::RowMajor);
/// let at = a.clone().t();
/// assert_eq!((at.shape().rows, at.shape().cols), (64, 128));
/// # }
/// ```
#[derive(Debug)]
pub struct MatRef<'a, T> {
    pub(crate) data: CudaView<'a, T>,
    pub(crate) shape: MatShape,
}

impl<T> Clone for MatRef<'_, T> {
    fn clone(&self) -> Self {
        MatRef {
            data: self.data.slice(..),
            shape: self.shape,
        }
    }
}

impl<'a, T> MatRef<'a, T> {
    /// A packed `rows x cols` view over the start of `slice`.
    pub fn new(slice: &'a CudaSlice<T>, rows: usize, cols: usize, layout: Order) -> Self {
        Self::from_view(slice.as_view(), rows, cols, layout)
    }

    /// A packed `rows x cols` view over a [`CudaView`] (e.g. `slice.slice(off..)`).
    pub fn from_view(view: CudaView<'a, T>, rows: usize, cols: usize, layout: Order) -> Self {
        MatRef {
            data: view,
            shape: MatShape::packed(rows, cols, layout),
        }
    }

    /// Sets the leading dimension (elements).
    pub fn ld(mut self, ld: usize) -> Self {
        self.shape.ld = ld;
        self
    }

    /// Makes this a batch of `count` matrices, `stride` elements apart.
    /// A batch count of 1 on an input broadcasts it over C's batch.
    pub fn batched(mut self, count: usize, stride: usize) -> Self {
        self.shape.batch = count;
        self.shape.batch_stride = stride;
        self
    }

    /// The transposed view of the same memory.
    pub fn t(mut self) -> Self {
        self.shape = self.shape.t();
        self
    }

    /// Shape and strides.
    pub fn shape(&self) -> MatShape {
        self.shape
    }
}

/// A mutable (batched) matrix view over device memory, used for C.
///
/// ```no_run
/// use ferrocute::gemm::{Order, MatMut};
/// # fn f(c: &mut cudarc::driver::CudaSlice<f32>) {
/// let c = MatMut::new(c, 128, 256, Order::ColMajor).ld(136);
/// assert_eq!(c.shape().ld, 136);
/// # }
/// ```
#[derive(Debug)]
pub struct MatMut<'a, T> {
    pub(crate) data: CudaViewMut<'a, T>,
    pub(crate) shape: MatShape,
}

impl<'a, T> MatMut<'a, T> {
    /// A packed `rows x cols` view over the start of `slice`.
    pub fn new(slice: &'a mut CudaSlice<T>, rows: usize, cols: usize, layout: Order) -> Self {
        Self::from_view(slice.as_view_mut(), rows, cols, layout)
    }

    /// A packed `rows x cols` view over a [`CudaViewMut`] (e.g. `slice.slice_mut(off..)`).
    pub fn from_view(view: CudaViewMut<'a, T>, rows: usize, cols: usize, layout: Order) -> Self {
        MatMut {
            data: view,
            shape: MatShape::packed(rows, cols, layout),
        }
    }

    /// Sets the leading dimension (elements).
    pub fn ld(mut self, ld: usize) -> Self {
        self.shape.ld = ld;
        self
    }

    /// Makes this a batch of `count` matrices, `stride` elements apart.
    pub fn batched(mut self, count: usize, stride: usize) -> Self {
        self.shape.batch = count;
        self.shape.batch_stride = stride;
        self
    }

    /// The transposed view of the same memory.
    pub fn t(mut self) -> Self {
        self.shape = self.shape.t();
        self
    }

    /// Shape and strides.
    pub fn shape(&self) -> MatShape {
        self.shape
    }
}
