//! Uses both halves of ferrocute through glob imports (no name may clash) and its
//! re-exported cudarc and half, whose types must be the application's own.
use ferrocute::gemm::*;
use ferrocute::*;

fn gemm_on(stream: std::sync::Arc<cudarc::driver::CudaStream>) -> Result<(), Error> {
    let gemm = Gemm::new(stream)?;
    let s = gemm.stream().clone();
    let a = s
        .clone_htod(&[ferrocute::half::bf16::ONE; 4])
        .map_err(|e| Error::driver("copy", e))?;
    let mut c = s
        .alloc_zeros::<f32>(4)
        .map_err(|e| Error::driver("alloc", e))?;
    gemm.gemm(
        1.0,
        &MatRef::new(&a, 2, 2, Order::RowMajor),
        &MatRef::new(&a, 2, 2, Order::ColMajor),
        0.0,
        &mut MatMut::new(&mut c, 2, 2, Order::ColMajor),
    )?;
    Ok(())
}

fn main() {
    let tiled: Layout<_, _> = layout!((4, 2):(1, 4));
    println!("{tiled}, {:?}", Matrix::A);
    if let Ok(stream) = open_stream(0) {
        gemm_on(stream).unwrap();
    }
}
