//! The in-browser model's SIMD128 kernels give exactly what the plain Rust ones give (in wasm:
//! the same roundings), on blocks of every kind of value. Built with SIMD128 and run in Node by
//! wasm-bindgen-test (`scripts/test.sh`); empty elsewhere.
#![cfg(all(target_arch = "wasm32", target_feature = "simd128"))]

use half::f16;
use satori::core::llm::kquant;
use satori::core::llm::quant::{self, reference, Q4_1_BYTES, Q8, Q8_0_BYTES, QK};
use wasm_bindgen_test::*;

/// A small deterministic generator.
struct Gen(u64);

impl Gen {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn f(&mut self, scale: f32) -> f32 {
        ((self.next() % 20_001) as f32 / 10_000.0 - 1.0) * scale
    }
}

fn half_bytes(v: f32) -> [u8; 2] {
    f16::from_f32(v).to_bits().to_le_bytes()
}

#[wasm_bindgen_test]
fn simd_dot_products_equal_the_plain_ones() {
    let mut g = Gen(0x5EED);
    for case in 0..200 {
        let blocks = 1 + case % 48;
        let n = blocks * QK;
        // Activations: mostly small, some zero blocks, some extreme values.
        let x: Vec<f32> = (0..n)
            .map(|i| match (case + i) % 97 {
                0 => 0.0,
                1 => 1e4,
                _ if case % 7 == 0 && i < QK => 0.0,
                _ => g.f(3.0),
            })
            .collect();
        let mut xq = Q8::default();
        xq.quantize(&x);
        let mut q4 = Vec::with_capacity(blocks * Q4_1_BYTES);
        let mut q8 = Vec::with_capacity(blocks * Q8_0_BYTES);
        for _ in 0..blocks {
            q4.extend(half_bytes(g.f(0.05)));
            q4.extend(half_bytes(g.f(0.5)));
            q4.extend((0..16).map(|_| g.next() as u8));
            q8.extend(half_bytes(g.f(0.05)));
            q8.extend((0..32).map(|_| g.next() as u8));
        }
        // Four vectors at once: each as alone.
        let mut others = [Q8::default(), Q8::default(), Q8::default()];
        for (k, o) in others.iter_mut().enumerate() {
            let y: Vec<f32> = x.iter().map(|v| v * (k as f32 + 0.5) - g.f(0.1)).collect();
            o.quantize(&y);
        }
        let four = [&xq, &others[0], &others[1], &others[2]];
        let alone = four.map(|x| quant::dot_q4_1(&q4, x).to_bits());
        assert_eq!(
            quant::dot4_q4_1(&q4, four).map(f32::to_bits),
            alone,
            "Q4_1 by four, case {case}"
        );
        let alone = four.map(|x| quant::dot_q8_0(&q8, x).to_bits());
        assert_eq!(
            quant::dot4_q8_0(&q8, four).map(f32::to_bits),
            alone,
            "Q8_0 by four, case {case}"
        );
        // Several rows against one vector: each as alone (the other rows fresh random blocks).
        let (mut q4b, mut q4c, mut q8b, mut q8c) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        for _ in 0..blocks {
            for q in [&mut q4b, &mut q4c] {
                q.extend(half_bytes(g.f(0.05)));
                q.extend(half_bytes(g.f(0.5)));
                q.extend((0..16).map(|_| g.next() as u8));
            }
            for q in [&mut q8b, &mut q8c] {
                q.extend(half_bytes(g.f(0.05)));
                q.extend((0..32).map(|_| g.next() as u8));
            }
        }
        let alone = [&q4, &q4b, &q4c].map(|r| quant::dot_q4_1(r, &xq).to_bits());
        assert_eq!(
            quant::dotr_q4_1([&q4[..], &q4b, &q4c], &xq).map(f32::to_bits),
            alone,
            "Q4_1 by three rows, case {case}"
        );
        assert_eq!(
            quant::dotr_q4_1([&q4[..], &q4b], &xq).map(f32::to_bits),
            alone[..2],
            "Q4_1 by two rows, case {case}"
        );
        let alone = [&q8, &q8b, &q8c].map(|r| quant::dot_q8_0(r, &xq).to_bits());
        assert_eq!(
            quant::dotr_q8_0([&q8[..], &q8b, &q8c], &xq).map(f32::to_bits),
            alone,
            "Q8_0 by three rows, case {case}"
        );
        assert_eq!(
            quant::dotr_q8_0([&q8[..], &q8b], &xq).map(f32::to_bits),
            alone[..2],
            "Q8_0 by two rows, case {case}"
        );
        let (a, b) = (quant::dot_q4_1(&q4, &xq), reference::dot_q4_1(&q4, &xq));
        assert_eq!(a.to_bits(), b.to_bits(), "Q4_1, case {case}: {a} vs {b}");
        let (a, b) = (quant::dot_q8_0(&q8, &xq), reference::dot_q8_0(&q8, &xq));
        assert_eq!(a.to_bits(), b.to_bits(), "Q8_0, case {case}: {a} vs {b}");
        // Q5_0: scale, 32 fifth bits, 16 bytes of nibbles.
        let mut q5 = Vec::with_capacity(blocks * kquant::Q5_0_BYTES);
        for _ in 0..blocks {
            q5.extend(half_bytes(g.f(0.05)));
            q5.extend((0..20).map(|_| g.next() as u8));
        }
        let (a, b) = (kquant::dot_q5_0(&q5, &xq), kquant::dot_q5_0_plain(&q5, &xq));
        assert_eq!(a.to_bits(), b.to_bits(), "Q5_0, case {case}: {a} vs {b}");
        // Q4_0: scale, 16 bytes of nibbles. Q5_1: scale, minimum, fifth bits, nibbles.
        let (mut q40, mut q51) = (Vec::new(), Vec::new());
        for _ in 0..blocks {
            q40.extend(half_bytes(g.f(0.05)));
            q40.extend((0..16).map(|_| g.next() as u8));
            q51.extend(half_bytes(g.f(0.05)));
            q51.extend(half_bytes(g.f(0.5)));
            q51.extend((0..20).map(|_| g.next() as u8));
        }
        let (a, b) = (
            kquant::dot_q4_0(&q40, &xq),
            kquant::dot_q4_0_plain(&q40, &xq),
        );
        assert_eq!(a.to_bits(), b.to_bits(), "Q4_0, case {case}: {a} vs {b}");
        let (a, b) = (
            kquant::dot_q5_1(&q51, &xq),
            kquant::dot_q5_1_plain(&q51, &xq),
        );
        assert_eq!(a.to_bits(), b.to_bits(), "Q5_1, case {case}: {a} vs {b}");
        // The K formats, on the first 256-value multiple of the activations.
        let k_blocks = n / 256;
        if k_blocks > 0 {
            let mut xk = Q8::default();
            xk.quantize_both(&x[..k_blocks * 256], true);
            let mut q4k = Vec::new();
            let mut q6k = Vec::new();
            for _ in 0..k_blocks {
                q4k.extend(half_bytes(g.f(0.01)));
                q4k.extend(half_bytes(g.f(0.05)));
                q4k.extend((0..140).map(|_| g.next() as u8));
                q6k.extend((0..208).map(|_| g.next() as u8));
                q6k.extend(half_bytes(g.f(0.01)));
            }
            let (a, b) = (
                kquant::dot_q4_k(&q4k, &xk.k),
                kquant::dot_q4_k_plain(&q4k, &xk.k),
            );
            assert_eq!(a.to_bits(), b.to_bits(), "Q4_K, case {case}: {a} vs {b}");
            let (a, b) = (
                kquant::dot_q6_k(&q6k, &xk.k),
                kquant::dot_q6_k_plain(&q6k, &xk.k),
            );
            assert_eq!(a.to_bits(), b.to_bits(), "Q6_K, case {case}: {a} vs {b}");
            let mut q5k = Vec::new();
            for _ in 0..k_blocks {
                q5k.extend(half_bytes(g.f(0.01)));
                q5k.extend(half_bytes(g.f(0.05)));
                q5k.extend((0..172).map(|_| g.next() as u8));
            }
            let (a, b) = (
                kquant::dot_q5_k(&q5k, &xk.k),
                kquant::dot_q5_k_plain(&q5k, &xk.k),
            );
            assert_eq!(a.to_bits(), b.to_bits(), "Q5_K, case {case}: {a} vs {b}");
        }
    }
}
