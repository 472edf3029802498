//! The quantized number formats of GGML that the in-browser model uses, and their dot products,
//! computed the way llama.cpp's CPU backend computes them (ggml-quants.c, the reference
//! functions), so the same weights give the same greedy answer.
//!
//! Blocks hold 32 values:
//! - `Q4_1` (20 bytes): scale `d` (f16), minimum `m` (f16), 16 bytes of 4-bit values; value
//!   `j < 16` is the low nibble of byte `j`, value `16 + j` its high nibble; x = d·q + m.
//! - `Q8_0` (34 bytes): scale `d` (f16), 32 signed bytes; x = d·q.
//! - `Q8_1` (36 bytes, activations only): scale `d` (f16), `s` = d·Σq (f16), 32 signed bytes.
//!
//! A matrix–vector product quantizes the vector once, like llama.cpp: to `Q8_1` for `Q4_1`
//! weights, to `Q8_0` for `Q8_0` weights.

use half::f16;

/// Values per block.
pub const QK: usize = 32;
/// Values per super-block of the K formats (`super::kquant`).
pub const QK_K: usize = 256;
/// Bytes of a `Q4_1` block.
pub const Q4_1_BYTES: usize = 20;
/// Bytes of a `Q8_0` block.
pub const Q8_0_BYTES: usize = 34;

pub(super) fn h(b: &[u8], at: usize) -> f32 {
    f16::from_bits(u16::from_le_bytes([b[at], b[at + 1]])).to_f32()
}

/// A vector quantized to 8 bits, in blocks of 32 (`Q8_0` or `Q8_1`: `s` is only read for `Q8_1`).
#[derive(Debug, Clone, Default)]
pub struct Q8 {
    /// Per block: the scale, rounded through f16.
    pub d: Vec<f32>,
    /// Per block: scale times the sum of the values, rounded through f16 (`Q8_1`).
    pub s: Vec<f32>,
    /// The values.
    pub q: Vec<i8>,
    /// The values as i16, each half block in the order [`PERM`] gives (the SIMD kernels read
    /// these: widened once per vector, not once per row).
    pub w: Vec<i16>,
    /// The same vector as `Q8_K`, for weights in a K format ([`Q8::quantize_both`]).
    pub k: Q8K,
}

/// The order the SIMD kernels take the 16 values of a half block in: `i32x4.dot_i16x8` of the
/// first eight with the first eight of the activations, plus that of the second eight, gives
/// lane `k` = Σ over values `4k..4k+4` — the lanes of llama.cpp's AVX2 kernel. (Integer sums
/// are exact, so only which values share a lane matters, not their order.)
pub const PERM: [usize; 16] = [0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15];

impl Q8 {
    /// Quantizes `x` (its length a multiple of 32) into `self`, reusing its buffers, as
    /// llama.cpp's x86 (AVX2) build does: scale `max/127`, values rounded half to even.
    pub fn quantize(&mut self, x: &[f32]) {
        self.d.clear();
        self.s.clear();
        self.q.clear();
        self.w.clear();
        self.q.reserve(x.len());
        self.w.reserve(x.len());
        for b in x.chunks_exact(QK) {
            let amax = b.iter().fold(0f32, |m, v| m.max(v.abs()));
            let d = amax / 127.0;
            let id = if amax != 0.0 { 127.0 / amax } else { 0.0 };
            let mut sum = 0i32;
            for v in b {
                let q = (v * id).round_ties_even() as i8;
                sum += i32::from(q);
                self.q.push(q);
            }
            self.d.push(f16::from_f32(d).to_f32());
            self.s.push(f16::from_f32(d * sum as f32).to_f32());
            let block = &self.q[self.q.len() - QK..];
            for half in block.chunks_exact(16) {
                self.w.extend(PERM.iter().map(|&j| i16::from(half[j])));
            }
        }
    }
}

impl Q8 {
    /// Quantizes `x` as [`Q8::quantize`] does and, for `k` (and a length that is a multiple of
    /// 256), as `Q8_K` too.
    pub fn quantize_both(&mut self, x: &[f32], k: bool) {
        self.quantize(x);
        if k && x.len().is_multiple_of(QK_K) {
            self.k.quantize(x);
        }
    }
}

/// A vector quantized to `Q8_K`.
#[derive(Debug, Clone, Default)]
pub struct Q8K {
    /// Per super-block: the scale.
    pub d: Vec<f32>,
    /// The values.
    pub q: Vec<i8>,
    /// Per 16 values: their sum.
    pub bsums: Vec<i16>,
    /// The values as i16, each 16 in the order [`PERM`] gives (for the SIMD kernels).
    pub w: Vec<i16>,
}

impl Q8K {
    /// Quantizes `x` (its length a multiple of 256) into `self`, reusing its buffers, as
    /// llama.cpp's `quantize_row_q8_K_ref`: the value of largest magnitude maps to −127, the
    /// others rounded half to even.
    pub fn quantize(&mut self, x: &[f32]) {
        self.d.clear();
        self.q.clear();
        self.bsums.clear();
        self.w.clear();
        for b in x.chunks_exact(QK_K) {
            let (mut max, mut amax) = (0f32, 0f32);
            for &v in b {
                if v.abs() > amax {
                    amax = v.abs();
                    max = v;
                }
            }
            if amax == 0.0 {
                self.d.push(0.0);
                self.q.extend([0i8; QK_K]);
                self.bsums.extend([0i16; QK_K / 16]);
                self.w.extend([0i16; QK_K]);
                continue;
            }
            let iscale = -127.0 / max;
            let start = self.q.len();
            self.q.extend(
                b.iter()
                    .map(|&v| ((iscale * v).round_ties_even() as i32).min(127) as i8),
            );
            let q = &self.q[start..];
            self.bsums.extend(
                q.chunks_exact(16)
                    .map(|c| c.iter().map(|&v| i16::from(v)).sum::<i16>()),
            );
            for c in q.chunks_exact(16) {
                self.w.extend(PERM.iter().map(|&j| i16::from(c[j])));
            }
            self.d.push(1.0 / iscale);
        }
    }
}

/// Every f16 value as f32, by its bits: a table read instead of a conversion in software (wasm
/// has no f16 instructions). Made once, 256 KB.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn f16_table() -> &'static [f32] {
    static TABLE: std::sync::OnceLock<Vec<f32>> = std::sync::OnceLock::new();
    TABLE.get_or_init(|| (0..=u16::MAX).map(|b| f16::from_bits(b).to_f32()).collect())
}

/// The dot products in plain Rust: what runs natively (and checks the SIMD kernels in wasm).
pub mod reference {
    use super::{h, Q4_1_BYTES, Q8, Q8_0_BYTES, QK};

    /// The sum of eight float lanes the way ggml's `hsum_float_8` adds them.
    pub(in crate::llm) fn hsum8(a: [f32; 8]) -> f32 {
        let t = [a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]];
        (t[0] + t[2]) + (t[1] + t[3])
    }

    /// Dot product of one `Q4_1` row (`row`, whole blocks) with a `Q8_1` vector: per block eight
    /// lanes of four products each, scaled and added into eight accumulators, the minimums' part
    /// apart — the order of llama.cpp's AVX2 kernel. Natively the additions are fused, as there, so
    /// the sums round the same; in wasm (no fused multiply-add) they round twice.
    pub fn dot_q4_1(row: &[u8], x: &Q8) -> f32 {
        let mut acc = [0f32; 8];
        let mut summs = 0f32;
        for (i, blk) in row.chunks_exact(Q4_1_BYTES).enumerate() {
            let (d, m) = (h(blk, 0), h(blk, 2));
            let lanes = lanes_q4_1(&blk[4..20], &x.q[i * QK..i * QK + QK]);
            summs = madd(m, x.s[i], summs);
            let dd = d * x.d[i];
            for (a, l) in acc.iter_mut().zip(lanes) {
                *a = madd(dd, l as f32, *a);
            }
        }
        hsum8(acc) + summs
    }

    /// Dot product of one `Q8_0` row (`row`, whole blocks) with a `Q8_0` vector, in the order of
    /// llama.cpp's AVX2 kernel (see [`dot_q4_1`]).
    pub fn dot_q8_0(row: &[u8], x: &Q8) -> f32 {
        let mut acc = [0f32; 8];
        for (i, blk) in row.chunks_exact(Q8_0_BYTES).enumerate() {
            let dd = h(blk, 0) * x.d[i];
            let lanes = lanes_q8_0(&blk[2..34], &x.q[i * QK..i * QK + QK]);
            for (a, l) in acc.iter_mut().zip(lanes) {
                *a = madd(dd, l as f32, *a);
            }
        }
        hsum8(acc)
    }

    /// `a·b + c`, fused (as llama.cpp's FMA) where that is fast; in wasm, two roundings.
    #[inline(always)]
    pub(in crate::llm) fn madd(a: f32, b: f32, c: f32) -> f32 {
        #[cfg(target_arch = "wasm32")]
        {
            a * b + c
        }
        #[cfg(not(target_arch = "wasm32"))]
        {
            a.mul_add(b, c)
        }
    }

    /// The eight lane sums of a `Q4_1` block (16 bytes of nibbles) against 32 quantized values:
    /// lane `k` is Σ q[j]·y[j] over `j` in `4k..4k+4`, the low nibbles being values 0..16.
    fn lanes_q4_1(qs: &[u8], y: &[i8]) -> [i32; 8] {
        let mut out = [0i32; 8];
        for (k, o) in out.iter_mut().enumerate() {
            for j in 4 * k..4 * k + 4 {
                let q = if j < 16 {
                    qs[j] & 0x0F
                } else {
                    qs[j - 16] >> 4
                };
                *o += i32::from(q) * i32::from(y[j]);
            }
        }
        out
    }

    /// The eight lane sums of a `Q8_0` block against 32 quantized values (see [`lanes_q4_1`]).
    fn lanes_q8_0(w: &[u8], y: &[i8]) -> [i32; 8] {
        let mut out = [0i32; 8];
        for (k, o) in out.iter_mut().enumerate() {
            for j in 4 * k..4 * k + 4 {
                *o += i32::from(w[j] as i8) * i32::from(y[j]);
            }
        }
        out
    }

    /// [`dot_q4_1`] of one row with four vectors.
    pub fn dot4_q4_1(row: &[u8], x: [&Q8; 4]) -> [f32; 4] {
        x.map(|x| dot_q4_1(row, x))
    }

    /// [`dot_q4_1`] of `R` rows with one vector.
    pub fn dotr_q4_1<const R: usize>(rows: [&[u8]; R], x: &Q8) -> [f32; R] {
        rows.map(|row| dot_q4_1(row, x))
    }

    /// [`dot_q8_0`] of `R` rows with one vector.
    pub fn dotr_q8_0<const R: usize>(rows: [&[u8]; R], x: &Q8) -> [f32; R] {
        rows.map(|row| dot_q8_0(row, x))
    }

    /// [`dot_q8_0`] of one row with four vectors.
    pub fn dot4_q8_0(row: &[u8], x: [&Q8; 4]) -> [f32; 4] {
        x.map(|x| dot_q8_0(row, x))
    }
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use reference::{dot4_q4_1, dot4_q8_0, dot_q4_1, dot_q8_0, dotr_q4_1, dotr_q8_0};

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::{f16_table, Q4_1_BYTES, Q8, Q8_0_BYTES, QK};
    use core::arch::wasm32::*;

    /// [`super::PERM`] as a swizzle.
    const PERM: v128 = u8x16(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);

    #[inline(always)]
    fn h(t: &[f32], b: &[u8], at: usize) -> f32 {
        t[usize::from(u16::from_le_bytes([b[at], b[at + 1]]))]
    }

    /// The four lane sums of 16 values (as i16, in [`PERM`] order: `a` the first eight, `b` the
    /// second) against 16 activations `y` (i16, same order).
    #[inline(always)]
    unsafe fn lanes(a: v128, b: v128, y: *const i16) -> v128 {
        i32x4_add(
            i32x4_dot_i16x8(a, v128_load(y as *const v128)),
            i32x4_dot_i16x8(b, v128_load(y.add(8) as *const v128)),
        )
    }

    /// [`super::dot_q4_1`] with the eight lanes in two vectors (no fused multiply-add in wasm).
    pub fn dot_q4_1(row: &[u8], x: &Q8) -> f32 {
        let t = f16_table();
        let blocks = row.len() / Q4_1_BYTES;
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks && x.s.len() >= blocks);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut summs = 0f32;
        for (i, blk) in row.chunks_exact(Q4_1_BYTES).enumerate() {
            let (d, m) = (h(t, blk, 0), h(t, blk, 2));
            summs += m * x.s[i];
            let dd = f32x4_splat(d * x.d[i]);
            // SAFETY: a block has 16 bytes of nibbles after its 4 bytes of scales, and `x.w`
            // holds 32 values per block (checked above); unaligned loads are allowed.
            let (l0, l1) = unsafe {
                let q = i8x16_swizzle(v128_load(blk.as_ptr().add(4) as *const v128), PERM);
                let lo = v128_and(q, u8x16_splat(0x0F));
                let hi = u8x16_shr(q, 4);
                let y = x.w.as_ptr().add(i * QK);
                (
                    lanes(u16x8_extend_low_u8x16(lo), u16x8_extend_high_u8x16(lo), y),
                    lanes(
                        u16x8_extend_low_u8x16(hi),
                        u16x8_extend_high_u8x16(hi),
                        y.add(16),
                    ),
                )
            };
            a0 = f32x4_add(a0, f32x4_mul(dd, f32x4_convert_i32x4(l0)));
            a1 = f32x4_add(a1, f32x4_mul(dd, f32x4_convert_i32x4(l1)));
        }
        hsum(a0, a1) + summs
    }

    /// [`super::dot_q8_0`] with the eight lanes in two vectors.
    pub fn dot_q8_0(row: &[u8], x: &Q8) -> f32 {
        let t = f16_table();
        let blocks = row.len() / Q8_0_BYTES;
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for (i, blk) in row.chunks_exact(Q8_0_BYTES).enumerate() {
            let dd = f32x4_splat(h(t, blk, 0) * x.d[i]);
            // SAFETY: a block has 32 bytes after its scale, and `x.w` 32 values per block.
            let (l0, l1) = unsafe {
                let y = x.w.as_ptr().add(i * QK);
                let half = |k: usize| {
                    let v =
                        i8x16_swizzle(v128_load(blk.as_ptr().add(2 + 16 * k) as *const v128), PERM);
                    lanes(
                        i16x8_extend_low_i8x16(v),
                        i16x8_extend_high_i8x16(v),
                        y.add(16 * k),
                    )
                };
                (half(0), half(1))
            };
            a0 = f32x4_add(a0, f32x4_mul(dd, f32x4_convert_i32x4(l0)));
            a1 = f32x4_add(a1, f32x4_mul(dd, f32x4_convert_i32x4(l1)));
        }
        hsum(a0, a1)
    }

    /// [`dot_q4_1`] of one row with four vectors: each block's nibbles are decoded once, and
    /// each vector's sums are made exactly as [`dot_q4_1`] makes them.
    pub fn dot4_q4_1(row: &[u8], x: [&Q8; 4]) -> [f32; 4] {
        let t = f16_table();
        let blocks = row.len() / Q4_1_BYTES;
        for x in x {
            assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks && x.s.len() >= blocks);
        }
        let mut a0 = [f32x4_splat(0.0); 4];
        let mut a1 = [f32x4_splat(0.0); 4];
        let mut summs = [0f32; 4];
        for (i, blk) in row.chunks_exact(Q4_1_BYTES).enumerate() {
            let (d, m) = (h(t, blk, 0), h(t, blk, 2));
            // SAFETY: as in `dot_q4_1`, for each of the four vectors (checked above).
            unsafe {
                let q = i8x16_swizzle(v128_load(blk.as_ptr().add(4) as *const v128), PERM);
                let lo = v128_and(q, u8x16_splat(0x0F));
                let hi = u8x16_shr(q, 4);
                let (la, lb) = (u16x8_extend_low_u8x16(lo), u16x8_extend_high_u8x16(lo));
                let (ha, hb) = (u16x8_extend_low_u8x16(hi), u16x8_extend_high_u8x16(hi));
                for b in 0..4 {
                    summs[b] += m * x[b].s[i];
                    let dd = f32x4_splat(d * x[b].d[i]);
                    let y = x[b].w.as_ptr().add(i * QK);
                    let (l0, l1) = (lanes(la, lb, y), lanes(ha, hb, y.add(16)));
                    a0[b] = f32x4_add(a0[b], f32x4_mul(dd, f32x4_convert_i32x4(l0)));
                    a1[b] = f32x4_add(a1[b], f32x4_mul(dd, f32x4_convert_i32x4(l1)));
                }
            }
        }
        [0, 1, 2, 3].map(|b| hsum(a0[b], a1[b]) + summs[b])
    }

    /// [`dot_q8_0`] of one row with four vectors (see [`dot4_q4_1`]).
    pub fn dot4_q8_0(row: &[u8], x: [&Q8; 4]) -> [f32; 4] {
        let t = f16_table();
        let blocks = row.len() / Q8_0_BYTES;
        for x in x {
            assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks);
        }
        let mut a0 = [f32x4_splat(0.0); 4];
        let mut a1 = [f32x4_splat(0.0); 4];
        for (i, blk) in row.chunks_exact(Q8_0_BYTES).enumerate() {
            let d = h(t, blk, 0);
            // SAFETY: as in `dot_q8_0`, for each of the four vectors (checked above).
            unsafe {
                let v0 = i8x16_swizzle(v128_load(blk.as_ptr().add(2) as *const v128), PERM);
                let v1 = i8x16_swizzle(v128_load(blk.as_ptr().add(18) as *const v128), PERM);
                let (a, bb) = (i16x8_extend_low_i8x16(v0), i16x8_extend_high_i8x16(v0));
                let (c, e) = (i16x8_extend_low_i8x16(v1), i16x8_extend_high_i8x16(v1));
                for b in 0..4 {
                    let dd = f32x4_splat(d * x[b].d[i]);
                    let y = x[b].w.as_ptr().add(i * QK);
                    let (l0, l1) = (lanes(a, bb, y), lanes(c, e, y.add(16)));
                    a0[b] = f32x4_add(a0[b], f32x4_mul(dd, f32x4_convert_i32x4(l0)));
                    a1[b] = f32x4_add(a1[b], f32x4_mul(dd, f32x4_convert_i32x4(l1)));
                }
            }
        }
        [0, 1, 2, 3].map(|b| hsum(a0[b], a1[b]))
    }

    /// [`dot_q4_1`] of `R` rows with one vector (a reply's tokens, one at a time): the
    /// activations of each block are loaded once for all rows, and each row's sums are made
    /// exactly as [`dot_q4_1`] makes them.
    pub fn dotr_q4_1<const R: usize>(rows: [&[u8]; R], x: &Q8) -> [f32; R] {
        let t = f16_table();
        let blocks = rows[0].len() / Q4_1_BYTES;
        const { assert!(R > 0) };
        assert!(rows.iter().all(|r| r.len() == rows[0].len()));
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks && x.s.len() >= blocks);
        let mut a0 = [f32x4_splat(0.0); R];
        let mut a1 = [f32x4_splat(0.0); R];
        let mut summs = [0f32; R];
        for i in 0..blocks {
            // SAFETY: `x.w` holds 32 values per block (checked above); unaligned loads are
            // allowed.
            let y = unsafe {
                let p = x.w.as_ptr().add(i * QK);
                [0, 8, 16, 24].map(|k| v128_load(p.add(k) as *const v128))
            };
            for (r, row) in rows.iter().enumerate() {
                let blk = &row[i * Q4_1_BYTES..(i + 1) * Q4_1_BYTES];
                let (d, m) = (h(t, blk, 0), h(t, blk, 2));
                summs[r] += m * x.s[i];
                let dd = f32x4_splat(d * x.d[i]);
                // SAFETY: a block has 16 bytes of nibbles after its 4 bytes of scales.
                let q = unsafe { v128_load(blk.as_ptr().add(4) as *const v128) };
                let q = i8x16_swizzle(q, PERM);
                let lo = v128_and(q, u8x16_splat(0x0F));
                let hi = u8x16_shr(q, 4);
                let l0 = i32x4_add(
                    i32x4_dot_i16x8(u16x8_extend_low_u8x16(lo), y[0]),
                    i32x4_dot_i16x8(u16x8_extend_high_u8x16(lo), y[1]),
                );
                let l1 = i32x4_add(
                    i32x4_dot_i16x8(u16x8_extend_low_u8x16(hi), y[2]),
                    i32x4_dot_i16x8(u16x8_extend_high_u8x16(hi), y[3]),
                );
                a0[r] = f32x4_add(a0[r], f32x4_mul(dd, f32x4_convert_i32x4(l0)));
                a1[r] = f32x4_add(a1[r], f32x4_mul(dd, f32x4_convert_i32x4(l1)));
            }
        }
        core::array::from_fn(|r| hsum(a0[r], a1[r]) + summs[r])
    }

    /// [`dot_q8_0`] of `R` rows with one vector (see [`dotr_q4_1`]).
    pub fn dotr_q8_0<const R: usize>(rows: [&[u8]; R], x: &Q8) -> [f32; R] {
        let t = f16_table();
        let blocks = rows[0].len() / Q8_0_BYTES;
        const { assert!(R > 0) };
        assert!(rows.iter().all(|r| r.len() == rows[0].len()));
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks);
        let mut a0 = [f32x4_splat(0.0); R];
        let mut a1 = [f32x4_splat(0.0); R];
        for i in 0..blocks {
            // SAFETY: as in `dotr_q4_1`.
            let y = unsafe {
                let p = x.w.as_ptr().add(i * QK);
                [0, 8, 16, 24].map(|k| v128_load(p.add(k) as *const v128))
            };
            for (r, row) in rows.iter().enumerate() {
                let blk = &row[i * Q8_0_BYTES..(i + 1) * Q8_0_BYTES];
                let dd = f32x4_splat(h(t, blk, 0) * x.d[i]);
                // SAFETY: a block has 32 bytes after its scale.
                let (v0, v1) = unsafe {
                    (
                        v128_load(blk.as_ptr().add(2) as *const v128),
                        v128_load(blk.as_ptr().add(18) as *const v128),
                    )
                };
                let (v0, v1) = (i8x16_swizzle(v0, PERM), i8x16_swizzle(v1, PERM));
                let l0 = i32x4_add(
                    i32x4_dot_i16x8(i16x8_extend_low_i8x16(v0), y[0]),
                    i32x4_dot_i16x8(i16x8_extend_high_i8x16(v0), y[1]),
                );
                let l1 = i32x4_add(
                    i32x4_dot_i16x8(i16x8_extend_low_i8x16(v1), y[2]),
                    i32x4_dot_i16x8(i16x8_extend_high_i8x16(v1), y[3]),
                );
                a0[r] = f32x4_add(a0[r], f32x4_mul(dd, f32x4_convert_i32x4(l0)));
                a1[r] = f32x4_add(a1[r], f32x4_mul(dd, f32x4_convert_i32x4(l1)));
            }
        }
        core::array::from_fn(|r| hsum(a0[r], a1[r]))
    }

    /// ggml's `hsum_float_8` over lanes `a0` (0..4) and `a1` (4..8).
    fn hsum(a0: v128, a1: v128) -> f32 {
        let t = f32x4_add(a0, a1);
        (f32x4_extract_lane::<0>(t) + f32x4_extract_lane::<2>(t))
            + (f32x4_extract_lane::<1>(t) + f32x4_extract_lane::<3>(t))
    }
}
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd::{dot4_q4_1, dot4_q8_0, dot_q4_1, dot_q8_0, dotr_q4_1, dotr_q8_0};

/// Row `i` of a `Q8_0` matrix with rows of `cols` values, as floats (an embedding).
pub fn row_q8_0(data: &[u8], cols: usize, i: usize, out: &mut [f32]) {
    let bytes = cols / QK * Q8_0_BYTES;
    let row = &data[i * bytes..(i + 1) * bytes];
    for (blk, o) in row.chunks_exact(Q8_0_BYTES).zip(out.chunks_exact_mut(QK)) {
        let d = h(blk, 0);
        for (v, &q) in o.iter_mut().zip(&blk[2..34]) {
            *v = d * f32::from(q as i8);
        }
    }
}

/// A `Q4_1` row (whole blocks) as floats (`dequantize_row_q4_1`).
pub fn row_q4_1(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q4_1_BYTES).zip(out.chunks_exact_mut(QK)) {
        let (d, m) = (h(blk, 0), h(blk, 2));
        for (j, b) in blk[4..20].iter().enumerate() {
            o[j] = f32::from(b & 0x0F) * d + m;
            o[j + 16] = f32::from(b >> 4) * d + m;
        }
    }
}

/// f32 values stored little-endian, read.
pub fn f32s(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
