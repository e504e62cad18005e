//! The fused epilogue's validation and mapping, without a GPU: every bad input is its typed
//! error, and the vectors' and the gate's axes follow the plan as it runs (swapped for a
//! row-major C, transposed again on the small-M kernels).

use ferrocute::gemm::dispatch::{dispatch_plan, Overrides};
use ferrocute::gemm::Order;
use ferrocute::gemm::{
    check_epilogue, plan, plan_gated, registry, Activation, Along, EpilogueDesc, EpilogueVector,
    Error, GemmDesc, ScaleAt, VectorDesc,
};

mod common;
use common::*;

fn vector(along: Along, len: usize, ptr: u64, elem_bytes: usize) -> VectorDesc {
    VectorDesc {
        along,
        len,
        ptr,
        elem_bytes,
        code: if elem_bytes == 4 { 0 } else { 1 },
    }
}

/// `y (m x n_out) = x (m x k) W^T` row-major, as a linear layer stores it.
fn linear(m: usize, n_b: usize, n_out: usize, k: usize) -> GemmDesc {
    GemmDesc {
        a: od(m, k, Order::RowMajor, 1 << 32),
        b: od(k, n_b, Order::ColMajor, 2 << 32),
        c: od(m, n_out, Order::RowMajor, 3 << 32),
        in_bytes: 2,
        out_bytes: 2,
    }
}

#[test]
fn vector_lengths_follow_their_axis() {
    let c = (3u64 << 32, 64 * 96 * 2);
    let check = |along, len| {
        let epi = EpilogueDesc {
            bias: Some(vector(along, len, 0x1000, 4)),
            ..Default::default()
        };
        check_epilogue(&epi, 64, 96, 0.0, c.0, c.1)
    };
    assert_eq!(check(Along::Rows, 64), Ok(()));
    assert_eq!(check(Along::Cols, 96), Ok(()));
    assert_eq!(check(Along::Cols, 200), Ok(()), "a longer buffer is fine");
    assert_eq!(
        check(Along::Cols, 64),
        Err(Error::EpilogueLength {
            vector: EpilogueVector::Bias,
            len: 64,
            needed: 96
        })
    );
    assert_eq!(
        check(Along::Rows, 63),
        Err(Error::EpilogueLength {
            vector: EpilogueVector::Bias,
            len: 63,
            needed: 64
        })
    );
    let scale = |s| EpilogueDesc {
        scale: Some((s, ScaleAt::Output)),
        ..Default::default()
    };
    assert_eq!(
        check_epilogue(
            &scale(vector(Along::Rows, 10, 0x1000, 2)),
            64,
            96,
            0.0,
            c.0,
            c.1
        ),
        Err(Error::EpilogueLength {
            vector: EpilogueVector::Scale,
            len: 10,
            needed: 64
        })
    );
    assert_eq!(
        check_epilogue(
            &scale(vector(Along::Rows, 64, 0x1001, 2)),
            64,
            96,
            0.0,
            c.0,
            c.1
        ),
        Err(Error::EpilogueMisaligned {
            vector: EpilogueVector::Scale,
            ptr: 0x1001,
            align: 2
        })
    );
}

#[test]
fn vectors_must_not_overlap_c() {
    let (c_ptr, c_bytes) = (0x10_0000u64, 64 * 96 * 2);
    let at = |ptr| {
        let epi = EpilogueDesc {
            bias: Some(vector(Along::Cols, 96, ptr, 4)),
            ..Default::default()
        };
        check_epilogue(&epi, 64, 96, 0.0, c_ptr, c_bytes)
    };
    assert_eq!(
        at(c_ptr + 128),
        Err(Error::EpilogueOverlap {
            vector: EpilogueVector::Bias
        })
    );
    assert_eq!(
        at(c_ptr - 4),
        Err(Error::EpilogueOverlap {
            vector: EpilogueVector::Bias
        })
    );
    assert_eq!(at(c_ptr - 96 * 4), Ok(()), "ends where C starts");
    assert_eq!(at(c_ptr + c_bytes as u64), Ok(()), "starts where C ends");
}

#[test]
fn swiglu_rules() {
    // C must have half of B's columns.
    assert!(matches!(
        plan_gated(&linear(8, 256, 127, 64)),
        Err(Error::Gated { .. })
    ));
    assert!(matches!(
        plan_gated(&linear(8, 256, 256, 64)),
        Err(Error::Gated { .. })
    ));
    let p = plan_gated(&linear(8, 256, 128, 64)).unwrap();
    assert!(p.gated && (p.m, p.n) == (256, 8));
    // The plain plan rejects the same shapes as a mismatch.
    assert!(matches!(
        plan(&linear(8, 256, 128, 64)),
        Err(Error::ShapeMismatch { .. })
    ));
    let swiglu = |scale| EpilogueDesc {
        activation: Activation::SwiGlu,
        scale,
        ..Default::default()
    };
    let c = (3u64 << 32, 8 * 128 * 2);
    assert!(matches!(
        check_epilogue(&swiglu(None), 8, 256, 1.0, c.0, c.1),
        Err(Error::Gated { .. })
    ));
    let s = vector(Along::Cols, 256, 0x1000, 2);
    assert!(matches!(
        check_epilogue(&swiglu(Some((s, ScaleAt::Output))), 8, 256, 0.0, c.0, c.1),
        Err(Error::Gated { .. })
    ));
    assert_eq!(
        check_epilogue(&swiglu(Some((s, ScaleAt::Product))), 8, 256, 0.0, c.0, c.1),
        Ok(())
    );
    // Its vectors run along B's columns: 256, not C's 128.
    let short = vector(Along::Cols, 128, 0x1000, 2);
    assert_eq!(
        check_epilogue(
            &swiglu(Some((short, ScaleAt::Product))),
            8,
            256,
            0.0,
            c.0,
            c.1
        ),
        Err(Error::EpilogueLength {
            vector: EpilogueVector::Scale,
            len: 128,
            needed: 256
        })
    );
}

/// A vector along C's columns is the kernel's N where C is column-major, its M where a
/// row-major C is computed as C^T, and N again where the small-M kernels run the transpose.
#[test]
fn axes_follow_the_plan_that_runs() {
    let bias = vector(Along::Cols, 1 << 20, 0x1000, 4);
    let rows = vector(Along::Rows, 1 << 20, 0x2000, 2);
    let epi = EpilogueDesc {
        activation: Activation::Silu,
        bias: Some(bias),
        scale: Some((rows, ScaleAt::Product)),
    };
    let on = |d: GemmDesc, gated: bool| {
        let p = if gated { plan_gated(&d) } else { plan(&d) }.unwrap();
        dispatch_plan(p, "bf16", "bf16", (9, 0), 132, &Overrides::default()).unwrap()
    };
    // Column-major C: columns are N.
    let col = GemmDesc {
        c: od(512, 1024, Order::ColMajor, 3 << 32),
        ..linear(512, 1024, 1024, 256)
    };
    let k = epi.kernel(&on(col, false).plan);
    assert_eq!(
        (k.act, k.bias_axis, k.scale_axis, k.bias_type, k.scale_type),
        (4, 2, 1, 0, 1)
    );
    // Row-major C at prefill: the swapped plan, columns are M.
    let ds = on(linear(512, 1024, 1024, 256), false);
    assert!(ds.plan.swapped && !ds.plan.d_n_major);
    let k = epi.kernel(&ds.plan);
    assert_eq!((k.bias_axis, k.scale_axis), (1, 2));
    // Row-major C at decode: transposed back onto the small-M kernels, columns are N.
    let ds = on(linear(8, 1024, 1024, 4096), false);
    assert!(ds.plan.d_n_major && !ds.plan.swapped, "{}", ds.kernel);
    let k = epi.kernel(&ds.plan);
    assert_eq!((k.bias_axis, k.scale_axis), (2, 1));
    // SwiGLU pairs along C's columns: M at prefill, N at decode.
    let swiglu = EpilogueDesc {
        activation: Activation::SwiGlu,
        bias: Some(bias),
        scale: None,
    };
    let ds = on(linear(512, 2048, 1024, 256), true);
    assert_eq!(
        (swiglu.kernel(&ds.plan).gated, swiglu.kernel(&ds.plan).act),
        (2, 0)
    );
    let ds = on(linear(4, 2048, 1024, 4096), true);
    assert!(
        ds.plan.d_n_major && ds.kernel.contains("skinny16_w8_epi"),
        "{}",
        ds.kernel
    );
    assert_eq!(swiglu.kernel(&ds.plan).gated, 1);
    // No epilogue: every field zero.
    let k = EpilogueDesc::default().kernel(&ds.plan);
    assert_eq!(
        (k.act, k.bias, k.bias_axis, k.scale_axis, k.gated),
        (0, 0, 0, 0, 0)
    );
}

#[test]
fn epilogue_errors_say_what_is_wrong() {
    let e = Error::EpilogueLength {
        vector: EpilogueVector::Scale,
        len: 3,
        needed: 8,
    };
    assert_eq!(
        e.to_string(),
        "scale has 3 elements, the dimension of C it runs along needs 8"
    );
    let e = Error::Gated {
        reason: "beta must be 0 (C is only written)",
    };
    assert!(e.to_string().starts_with("SwiGLU epilogue: beta"));
}

/// An epilogue never changes the dispatch: a fused decode plan runs the register-streaming
/// kernel as the plain one does, through its `_epi` entry points, and a fused prefill plan
/// the same persistent tile under the same entry point.
#[test]
fn fused_dispatch_is_the_plain_dispatch() {
    for (m, n, k) in [
        (1, 4096, 4096),
        (16, 14336, 4096),
        (8, 28672, 4096),
        (4096, 4096, 4096),
        (512, 28672, 4096),
    ] {
        let mut p = plan(&linear(m, n, n, k)).unwrap();
        let plain = dispatch_plan(p, "bf16", "bf16", (9, 0), 132, &Overrides::default()).unwrap();
        p.fused = true;
        let fused = dispatch_plan(p, "bf16", "bf16", (9, 0), 132, &Overrides::default()).unwrap();
        assert_eq!(fused.config, plain.config, "{m}x{n}x{k}");
        assert_eq!(fused.grid, plain.grid, "{m}x{n}x{k}");
        // The register-streaming kernel and the persistent tiles launch their `_epi` entry
        // points (the linear layer's K-major operands, bf16 D), the split-K tiles their
        // plain one.
        let cfg = plain.config.unwrap();
        let at = plain.kernel.find("_kk_").unwrap();
        if m <= 16 || cfg.grid == registry::GridKind::Persistent {
            let mut epi = plain.kernel.clone();
            epi.insert_str(at, "_epi");
            assert_eq!(fused.kernel, epi, "{m}x{n}x{k}");
        } else {
            assert_eq!(fused.kernel, plain.kernel, "{m}x{n}x{k}");
        }
    }
}

/// Each activation reaches the kernels as the code `EpiAct` gives it in
/// `src/kernels/epilogue_ops.cuh` (a gated one as its SiLU's code, with the gating), so the
/// fast forms cannot silently run as the accurate ones.
#[test]
fn activation_codes_are_the_kernels() {
    let header = include_str!("../src/kernels/epilogue_ops.cuh");
    let enum_body = header
        .split("enum EpiAct : int32_t {")
        .nth(1)
        .and_then(|rest| rest.split('}').next())
        .expect("EpiAct in epilogue_ops.cuh");
    let code_of = |name: &str| -> i32 {
        enum_body
            .split(',')
            .find_map(|item| {
                let (n, v) = item.split_once('=')?;
                (n.trim() == name).then(|| v.trim().parse().unwrap())
            })
            .unwrap_or_else(|| panic!("{name} not in EpiAct"))
    };
    let p = plan_gated(&linear(16, 256, 128, 64)).unwrap();
    let ungated = plan(&linear(16, 128, 128, 64)).unwrap();
    for (act, name, gated) in [
        (Activation::Identity, "kActIdentity", false),
        (Activation::Relu, "kActRelu", false),
        (Activation::GeluTanh, "kActGeluTanh", false),
        (Activation::GeluErf, "kActGeluErf", false),
        (Activation::Silu, "kActSilu", false),
        (Activation::GeluTanhFast, "kActGeluTanhFast", false),
        (Activation::SiluFast, "kActSiluFast", false),
        (Activation::SwiGlu, "kActIdentity", true),
        (Activation::SwiGluFast, "kActSiluFast", true),
    ] {
        let desc = EpilogueDesc {
            activation: act,
            bias: None,
            scale: None,
        };
        let k = desc.kernel(if gated { &p } else { &ungated });
        assert_eq!(k.act, code_of(name), "{act:?}");
        assert_eq!(k.gated != 0, gated, "{act:?}");
    }
}
