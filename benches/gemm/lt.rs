//! cuBLASLt with a fused epilogue (bias, ReLU + bias, GELU + bias), prepared once per shape:
//! descriptors, layouts and the heuristic's algorithm are made before timing, so each timed
//! call is one `cublasLtMatmul`, as an engine that caches its plans would issue it (cudarc's
//! safe wrapper rebuilds them and asks the heuristic on every call).
//!
//! The problem is the row-major linear layer `y (m x n) = x (m x k) · Wᵀ + b`, to cuBLAS the
//! column-major `yᵀ (n x m) = W xᵀ` with the bias along its rows (n).

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cublaslt::{result, sys};
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut};
use half::bf16;

use crate::Res;

/// cuBLASLt's fused epilogues the bench races.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LtEpilogue {
    Bias,
    ReluBias,
    GeluBias,
}

/// One prepared product.
pub struct LtPlan {
    handle: sys::cublasLtHandle_t,
    desc: sys::cublasLtMatmulDesc_t,
    layouts: [sys::cublasLtMatrixLayout_t; 3],
    algo: sys::cublasLtMatmulAlgo_t,
    workspace: CudaSlice<u8>,
    stream: Arc<CudaStream>,
}

const WORKSPACE_BYTES: usize = 32 << 20;

fn lt(e: result::CublasError) -> Box<dyn std::error::Error> {
    format!("cuBLASLt: {e:?}").into()
}

impl LtPlan {
    /// `y = x Wᵀ + b` with `epi`, bf16 in and out, f32 accumulation, a bf16 bias of n.
    pub fn new(
        stream: &Arc<CudaStream>,
        (m, n, k): (usize, usize, usize),
        epi: LtEpilogue,
        bias: &CudaSlice<bf16>,
    ) -> Res<LtPlan> {
        let handle = result::create_handle().map_err(lt)?;
        let desc = result::create_matmul_desc(
            sys::cublasComputeType_t::CUBLAS_COMPUTE_32F,
            sys::cudaDataType_t::CUDA_R_32F,
        )
        .map_err(lt)?;
        let bf = sys::cudaDataType_t::CUDA_R_16BF;
        let layouts = [
            result::create_matrix_layout(bf, k as u64, n as u64, k as i64).map_err(lt)?, // W, transposed
            result::create_matrix_layout(bf, k as u64, m as u64, k as i64).map_err(lt)?, // xᵀ
            result::create_matrix_layout(bf, n as u64, m as u64, n as i64).map_err(lt)?, // yᵀ
        ];
        let epilogue = match epi {
            LtEpilogue::Bias => sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_BIAS,
            LtEpilogue::ReluBias => sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_RELU_BIAS,
            LtEpilogue::GeluBias => sys::cublasLtEpilogue_t::CUBLASLT_EPILOGUE_GELU_BIAS,
        };
        let (bias_ptr, _guard) = bias.device_ptr(stream);
        let workspace = stream.alloc_zeros::<u8>(WORKSPACE_BYTES)?;
        let ws_bytes = WORKSPACE_BYTES as u64;
        let pref = result::create_matmul_pref().map_err(lt)?;
        use sys::cublasLtMatmulDescAttributes_t as A;
        let op_t = cudarc::cublas::sys::cublasOperation_t::CUBLAS_OP_T;
        // SAFETY: every descriptor was created above and is alive; each attribute gets a
        // pointer to a value of its documented type and that value's size.
        let algo = unsafe {
            let set = |attr, p: *const c_void, size| {
                result::set_matmul_desc_attribute(desc, attr, p, size).map_err(lt)
            };
            set(
                A::CUBLASLT_MATMUL_DESC_TRANSA,
                &op_t as *const _ as *const c_void,
                4,
            )?;
            set(
                A::CUBLASLT_MATMUL_DESC_EPILOGUE,
                &epilogue as *const _ as *const c_void,
                4,
            )?;
            set(
                A::CUBLASLT_MATMUL_DESC_BIAS_POINTER,
                &bias_ptr as *const _ as *const c_void,
                8,
            )?;
            result::set_matmul_pref_attribute(
                pref,
                sys::cublasLtMatmulPreferenceAttributes_t::CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                &ws_bytes as *const _ as *const c_void,
                8,
            )
            .map_err(lt)?;
            let h = result::get_matmul_algo_heuristic(
                handle, desc, layouts[0], layouts[1], layouts[2], layouts[2], pref,
            )
            .map_err(lt)?;
            result::destroy_matmul_pref(pref).map_err(lt)?;
            h.algo
        };
        Ok(LtPlan {
            handle,
            desc,
            layouts,
            algo,
            workspace,
            stream: stream.clone(),
        })
    }

    /// One call: `y = x Wᵀ + b` (the bias the plan was made with).
    pub fn run(
        &mut self,
        x: &CudaSlice<bf16>,
        w: &CudaSlice<bf16>,
        y: &mut CudaSlice<bf16>,
    ) -> Res<()> {
        let s = &self.stream;
        let (pw, _gw) = w.device_ptr(s);
        let (px, _gx) = x.device_ptr(s);
        let (py, _gy) = y.device_ptr_mut(s);
        let (pws, _gws) = self.workspace.device_ptr_mut(s);
        let (alpha, beta) = (1.0f32, 0.0f32);
        // SAFETY: the plan's descriptors are alive; W, x and y hold the n x k, m x k and
        // m x n elements its layouts describe; the workspace holds WORKSPACE_BYTES.
        unsafe {
            result::matmul(
                self.handle,
                self.desc,
                &alpha as *const f32 as *const c_void,
                &beta as *const f32 as *const c_void,
                pw as *const c_void,
                self.layouts[0],
                px as *const c_void,
                self.layouts[1],
                py as *const c_void,
                self.layouts[2],
                py as *mut c_void,
                self.layouts[2],
                &self.algo,
                pws as *mut c_void,
                WORKSPACE_BYTES,
                s.cu_stream() as sys::cudaStream_t,
            )
            .map_err(lt)
        }
    }
}

impl Drop for LtPlan {
    fn drop(&mut self) {
        // SAFETY: created in `new`, destroyed once here.
        unsafe {
            for l in self.layouts {
                let _ = result::destroy_matrix_layout(l);
            }
            let _ = result::destroy_matmul_desc(self.desc);
            let _ = result::destroy_handle(self.handle);
        }
    }
}
