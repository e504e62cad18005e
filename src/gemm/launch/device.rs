//! Probing the driver and opening devices, without panicking where there is none.

use std::sync::Arc;

use cudarc::driver::{result, CudaContext, CudaStream};

use crate::gemm::error::Error;
use crate::runtime::load::{self, driver_present, OpenFailure};

/// Opens device `ordinal` (primary context) and a new non-default stream.
pub(crate) fn open_stream(ordinal: usize) -> Result<Arc<CudaStream>, Error> {
    load::open_stream(ordinal).map_err(|f| match f {
        OpenFailure::NoDriver => Error::NoDevice {
            reason: "CUDA driver library (libcuda) not found".into(),
        },
        OpenFailure::Device(e) => Error::NoDevice {
            reason: format!("device {ordinal}: {e}"),
        },
        OpenFailure::Stream(e) => Error::driver("stream creation", e),
    })
}

/// Number of CUDA devices; `Error::NoDevice` without a driver.
pub(crate) fn device_count() -> Result<usize, Error> {
    if !driver_present() {
        return Err(Error::NoDevice {
            reason: "CUDA driver library (libcuda) not found".into(),
        });
    }
    result::init().map_err(|e| Error::NoDevice {
        reason: e.to_string(),
    })?;
    let n = CudaContext::device_count().map_err(|e| Error::NoDevice {
        reason: e.to_string(),
    })?;
    Ok(n.max(0) as usize)
}
