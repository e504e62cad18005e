//! TMA descriptors (`CUtensorMap`) for the Hopper kernels' operands.

use std::ffi::c_void;

use cudarc::driver::sys;

use crate::gemm::error::Error;

/// A tensor map that no kernel reads (passed where a kernel does not store D by TMA).
pub(crate) fn zeroed_tensor_map() -> sys::CUtensorMap {
    // # Safety
    // - `CUtensorMap` is an array of integers, for which all-zero bytes are a valid value.
    unsafe { std::mem::zeroed() }
}

/// One operand's TMA view, as `sm90_gemm.cuh` expects it: dims `{contiguous, outer, L}`,
/// byte strides `{ld, batch}`, a box of `{box_contiguous, box_outer, 1}` elements swizzled
/// by its contiguous bytes: 64 elements (A, B, D) in 128-byte swizzle, 32 (a gated D's
/// boxes along M) in 64-byte swizzle.
pub(crate) struct TmaOperand {
    pub dtype: sys::CUtensorMapDataType,
    pub ptr: u64,
    pub contiguous: u64,
    pub outer: u64,
    pub batch: u64,
    pub ld: u64,
    pub batch_stride: u64,
    pub box_contiguous: u32,
    pub box_outer: u32,
}

/// Encodes the rank-3 tensor map of one operand (see [`TmaOperand`]).
pub(crate) fn tensor_map(op: &TmaOperand) -> Result<sys::CUtensorMap, Error> {
    let err = |reason: String| Error::Driver {
        during: "cuTensorMapEncodeTiled",
        reason,
        code: None,
    };
    // The TMA kernels take 16-bit elements only (`InputElem` is bf16 or f16).
    const ELEM: u64 = 2;
    if op.batch > 1 && op.batch_stride == 0 {
        return Err(err("several batches need a non-zero batch stride".into()));
    }
    // A single batch still needs a legal, 16-byte multiple stride.
    let batch_stride = if op.batch <= 1 {
        op.ld * op.outer
    } else {
        op.batch_stride
    };
    if !op.ptr.is_multiple_of(16)
        || !(op.ld * ELEM).is_multiple_of(16)
        || !(batch_stride * ELEM).is_multiple_of(16)
    {
        return Err(err("TMA needs 16-byte aligned bases and strides".into()));
    }
    let dims = [op.contiguous, op.outer, op.batch.max(1)];
    let strides = [op.ld * ELEM, batch_stride * ELEM];
    let boxes = [op.box_contiguous, op.box_outer, 1];
    let swizzle = match op.box_contiguous {
        64 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_128B,
        32 => sys::CUtensorMapSwizzle::CU_TENSOR_MAP_SWIZZLE_64B,
        other => return Err(err(format!("no swizzle for boxes {other} elements wide"))),
    };
    let elem_strides = [1u32; 3];
    let mut map = std::mem::MaybeUninit::<sys::CUtensorMap>::zeroed();
    // # Safety
    // - The arrays have `rank` (3) or `rank - 1` entries, as the API requires, and outlive
    //   the call; `map` is writable storage for one CUtensorMap.
    // - The driver only encodes a descriptor here; it does not dereference `ptr`.
    let r = unsafe {
        sys::cuTensorMapEncodeTiled(
            map.as_mut_ptr(),
            op.dtype,
            3,
            op.ptr as *mut c_void,
            dims.as_ptr(),
            strides.as_ptr(),
            boxes.as_ptr(),
            elem_strides.as_ptr(),
            sys::CUtensorMapInterleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
            swizzle,
            sys::CUtensorMapL2promotion::CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
            sys::CUtensorMapFloatOOBfill::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
        )
    };
    r.result()
        .map_err(|e| Error::driver("cuTensorMapEncodeTiled", e))?;
    // # Safety
    // - `cuTensorMapEncodeTiled` succeeded, so it initialised `map` (zeroed before anyway).
    Ok(unsafe { map.assume_init() })
}
