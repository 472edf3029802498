//! The formats of the files people download for a browser — `Q4_K_M` is `Q4_K` with `Q6_K`
//! tensors, `Q5_K_M` `Q5_K` with `Q6_K`, and where a row is not a multiple of 256 values llama.cpp
//! falls back to `Q5_0`, `Q5_1` and `Q8_0`; `Q4_0` files too — with their dot products computed in the order of llama.cpp's AVX2 kernels
//! (ggml-cpu/arch/x86/quants.c) and their rows as floats as ggml-quants.c gives them.
//!
//! - `Q5_0` (22 bytes, 32 values): scale `d` (f16), 32 fifth bits (`u32`), 16 bytes of nibbles
//!   (value `j < 16` the low nibble of byte `j`, `16 + j` its high nibble); x = d·(q − 16).
//! - `Q4_K` (144 bytes, 256 values): `d`, `dmin` (f16), 12 bytes holding eight 6-bit scales and
//!   eight 6-bit minimums, 128 bytes of nibbles (per 64 values: 32 bytes, low nibbles the first
//!   32); x = d·sc·q − dmin·m per sub-block of 32.
//! - `Q6_K` (210 bytes, 256 values): 128 bytes of low 4 bits, 64 of high 2 bits, 16 signed
//!   scales (one per 16 values), `d` (f16); x = d·sc·(q − 32).
//! - `Q4_0` (18 bytes): `d`, 16 bytes of nibbles; x = d·(q − 8). `Q5_1` (24 bytes): `d`, minimum
//!   `m`, fifth bits, nibbles; x = d·q + m. `Q5_K` (176 bytes): as `Q4_K` with 32 bytes of fifth
//!   bits (bit `2j` of byte `l` for value `64j + l`, bit `2j + 1` for `64j + 32 + l`).
//! - `Q8_K` (activations only): per 256 values an f32 scale, the values, and the sum of each 16.
//!
//! The K formats' weights meet a `Q8_K` vector; `Q4_0` and `Q5_0` the `Q8_0` vector of
//! [`super::quant`], `Q5_1` its `Q8_1` sums.
//! Integer sums are exact, so only which values share one of the eight float lanes matters; the
//! lanes are scaled and added (fused natively, as there) in llama.cpp's order.

use super::quant::reference::{hsum8, madd};
use super::quant::{h, Q8, QK};
pub use super::quant::{Q8K, QK_K};

/// Bytes of a `Q5_0` block.
pub const Q5_0_BYTES: usize = 22;
/// Bytes of a `Q4_K` super-block.
pub const Q4_K_BYTES: usize = 144;
/// Bytes of a `Q6_K` super-block.
pub const Q6_K_BYTES: usize = 210;
/// Bytes of a `Q4_0` block.
pub const Q4_0_BYTES: usize = 18;
/// Bytes of a `Q5_1` block.
pub const Q5_1_BYTES: usize = 24;
/// Bytes of a `Q5_K` super-block.
pub const Q5_K_BYTES: usize = 176;

/// The 32 values of a `Q5_0` block (`blk`), each less 16.
fn values_q5_0(blk: &[u8]) -> [i8; 32] {
    let qh = u32::from_le_bytes([blk[2], blk[3], blk[4], blk[5]]);
    let qs = &blk[6..22];
    let mut out = [0i8; 32];
    for j in 0..16 {
        let hi0 = ((qh >> j) & 1) << 4;
        let hi1 = ((qh >> (j + 16)) & 1) << 4;
        out[j] = ((u32::from(qs[j] & 0x0F) | hi0) as i8) - 16;
        out[j + 16] = ((u32::from(qs[j] >> 4) | hi1) as i8) - 16;
    }
    out
}

/// The 32 values of a `Q4_0` block, each less 8.
fn values_q4_0(blk: &[u8]) -> [i8; 32] {
    let mut out = [0i8; 32];
    for (j, b) in blk[2..18].iter().enumerate() {
        out[j] = (b & 0x0F) as i8 - 8;
        out[j + 16] = (b >> 4) as i8 - 8;
    }
    out
}

/// The 32 values (0 to 31) of a `Q5_1` block.
fn values_q5_1(blk: &[u8]) -> [i8; 32] {
    let qh = u32::from_le_bytes([blk[4], blk[5], blk[6], blk[7]]);
    let mut out = [0i8; 32];
    for (j, b) in blk[8..24].iter().enumerate() {
        out[j] = ((b & 0x0F) | ((((qh >> j) & 1) as u8) << 4)) as i8;
        out[j + 16] = ((b >> 4) | ((((qh >> (j + 16)) & 1) as u8) << 4)) as i8;
    }
    out
}

/// The eight lanes of one block of 32 values against 32 quantized activations: lane `k` is
/// Σ q[j]·y[j] over `j` in `4k..4k+4`.
fn lanes32(q: &[i8; 32], y: &[i8]) -> [i32; 8] {
    std::array::from_fn(|k| {
        (4 * k..4 * k + 4)
            .map(|j| i32::from(q[j]) * i32::from(y[j]))
            .sum()
    })
}

/// Dot product of a row of 32-value blocks of `bytes` bytes (values by `values`, scale `d`
/// first) with a `Q8_0` vector: per block eight lanes of four products, scaled and added into
/// eight accumulators (llama.cpp's `ggml_vec_dot_q4_0_q8_0` and `…_q5_0_q8_0`, AVX2).
fn dot_32(row: &[u8], x: &Q8, bytes: usize, values: fn(&[u8]) -> [i8; 32]) -> f32 {
    let mut acc = [0f32; 8];
    for (i, blk) in row.chunks_exact(bytes).enumerate() {
        let dd = h(blk, 0) * x.d[i];
        let lanes = lanes32(&values(blk), &x.q[i * QK..i * QK + QK]);
        for (a, l) in acc.iter_mut().zip(lanes) {
            *a = madd(dd, l as f32, *a);
        }
    }
    hsum8(acc)
}

/// Dot product of one `Q5_0` row with a `Q8_0` vector, in plain Rust: what runs natively, and
/// what checks the SIMD128 kernel in wasm.
pub fn dot_q5_0_plain(row: &[u8], x: &Q8) -> f32 {
    dot_32(row, x, Q5_0_BYTES, values_q5_0)
}

#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
pub use self::{
    dot_q4_0_plain as dot_q4_0, dot_q4_k_plain as dot_q4_k, dot_q5_0_plain as dot_q5_0,
    dot_q5_1_plain as dot_q5_1, dot_q5_k_plain as dot_q5_k, dot_q6_k_plain as dot_q6_k,
};
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
pub use simd::{dot_q4_0, dot_q4_k, dot_q5_0, dot_q5_1, dot_q5_k, dot_q6_k};

#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
mod simd {
    use super::{
        h, scale_min_k4, Q4_0_BYTES, Q4_K_BYTES, Q5_0_BYTES, Q5_1_BYTES, Q5_K_BYTES, Q6_K_BYTES,
        Q8, Q8K, QK, QK_K,
    };
    use core::arch::wasm32::*;

    /// [`super::super::quant::PERM`] as a swizzle.
    const PERM: v128 = u8x16(0, 1, 4, 5, 8, 9, 12, 13, 2, 3, 6, 7, 10, 11, 14, 15);

    /// Byte `j` of the result: 0x10 where bit `j` of the two bytes of `qh` that `pick` selects
    /// (bytes 0–7 from the first, 8–15 from the second) is set.
    #[inline(always)]
    fn fifth_bits(qh: v128, pick: v128) -> v128 {
        let bit = u8x16(1, 2, 4, 8, 16, 32, 64, 128, 1, 2, 4, 8, 16, 32, 64, 128);
        let set = i8x16_ne(v128_and(i8x16_swizzle(qh, pick), bit), u8x16_splat(0));
        v128_and(set, u8x16_splat(0x10))
    }

    /// The four lane sums of 16 values (i8 in [`PERM`] order) against 16 activations `y` (i16,
    /// same order).
    #[inline(always)]
    unsafe fn lanes(v: v128, y: *const i16) -> v128 {
        i32x4_add(
            i32x4_dot_i16x8(i16x8_extend_low_i8x16(v), v128_load(y as *const v128)),
            i32x4_dot_i16x8(
                i16x8_extend_high_i8x16(v),
                v128_load(y.add(8) as *const v128),
            ),
        )
    }

    /// [`super::dot_q5_0_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q5_0(row: &[u8], x: &Q8) -> f32 {
        let blocks = row.len() / Q5_0_BYTES;
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let (pick_lo, pick_hi) = (
            u8x16(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
            u8x16(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3),
        );
        for (i, blk) in row.chunks_exact(Q5_0_BYTES).enumerate() {
            let dd = f32x4_splat(h(blk, 0) * x.d[i]);
            let qh = u32x4_splat(u32::from_le_bytes([blk[2], blk[3], blk[4], blk[5]]));
            // SAFETY: a block has 16 bytes of nibbles after its 6 bytes of scale and fifth bits,
            // and `x.w` holds 32 values per block (checked above); unaligned loads are allowed.
            let (l0, l1) = unsafe {
                let qs = v128_load(blk.as_ptr().add(6) as *const v128);
                let lo = v128_or(v128_and(qs, u8x16_splat(0x0F)), fifth_bits(qh, pick_lo));
                let hi = v128_or(u8x16_shr(qs, 4), fifth_bits(qh, pick_hi));
                let off = i8x16_splat(16);
                let lo = i8x16_sub(i8x16_swizzle(lo, PERM), off);
                let hi = i8x16_sub(i8x16_swizzle(hi, PERM), off);
                let y = x.w.as_ptr().add(i * QK);
                (lanes(lo, y), lanes(hi, y.add(16)))
            };
            a0 = f32x4_add(a0, f32x4_mul(dd, f32x4_convert_i32x4(l0)));
            a1 = f32x4_add(a1, f32x4_mul(dd, f32x4_convert_i32x4(l1)));
        }
        hsum(a0, a1)
    }

    /// [`super::dot_q4_0_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q4_0(row: &[u8], x: &Q8) -> f32 {
        let blocks = row.len() / Q4_0_BYTES;
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for (i, blk) in row.chunks_exact(Q4_0_BYTES).enumerate() {
            let dd = f32x4_splat(h(blk, 0) * x.d[i]);
            // SAFETY: a block has 16 bytes of nibbles after its scale, and `x.w` holds 32 values
            // per block (checked above).
            let (l0, l1) = unsafe {
                let qs = v128_load(blk.as_ptr().add(2) as *const v128);
                let off = i8x16_splat(8);
                let lo = i8x16_sub(i8x16_swizzle(v128_and(qs, u8x16_splat(0x0F)), PERM), off);
                let hi = i8x16_sub(i8x16_swizzle(u8x16_shr(qs, 4), PERM), off);
                let y = x.w.as_ptr().add(i * QK);
                (lanes(lo, y), lanes(hi, y.add(16)))
            };
            a0 = f32x4_add(a0, f32x4_mul(dd, f32x4_convert_i32x4(l0)));
            a1 = f32x4_add(a1, f32x4_mul(dd, f32x4_convert_i32x4(l1)));
        }
        hsum(a0, a1)
    }

    /// [`super::dot_q5_1_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q5_1(row: &[u8], x: &Q8) -> f32 {
        let blocks = row.len() / Q5_1_BYTES;
        assert!(x.w.len() >= blocks * QK && x.d.len() >= blocks && x.s.len() >= blocks);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut summs = 0f32;
        let (pick_lo, pick_hi) = (
            u8x16(0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1),
            u8x16(2, 2, 2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3),
        );
        for (i, blk) in row.chunks_exact(Q5_1_BYTES).enumerate() {
            summs += h(blk, 2) * x.s[i];
            let dd = f32x4_splat(h(blk, 0) * x.d[i]);
            let qh = u32x4_splat(u32::from_le_bytes([blk[4], blk[5], blk[6], blk[7]]));
            // SAFETY: a block has 16 bytes of nibbles after its 8 bytes of scale, minimum and
            // fifth bits, and `x.w` holds 32 values per block (checked above).
            let (l0, l1) = unsafe {
                let qs = v128_load(blk.as_ptr().add(8) as *const v128);
                let lo = v128_or(v128_and(qs, u8x16_splat(0x0F)), fifth_bits(qh, pick_lo));
                let hi = v128_or(u8x16_shr(qs, 4), fifth_bits(qh, pick_hi));
                let y = x.w.as_ptr().add(i * QK);
                (lanes_u(lo, y), lanes_u(hi, y.add(16)))
            };
            a0 = f32x4_add(a0, f32x4_mul(f32x4_convert_i32x4(l0), dd));
            a1 = f32x4_add(a1, f32x4_mul(f32x4_convert_i32x4(l1), dd));
        }
        hsum(a0, a1) + summs
    }

    /// [`super::dot_q5_k_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q5_k(row: &[u8], x: &Q8K) -> f32 {
        let blocks = row.len() / Q5_K_BYTES;
        assert!(x.w.len() >= blocks * QK_K && x.d.len() >= blocks && x.bsums.len() >= blocks * 16);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut summs = 0f32;
        for (i, blk) in row.chunks_exact(Q5_K_BYTES).enumerate() {
            let d = x.d[i] * h(blk, 0);
            let dmin = -x.d[i] * h(blk, 2);
            let bsums = &x.bsums[i * 16..(i + 1) * 16];
            let mut mins = 0i32;
            let mut sc = [0i32; 8];
            for (j, s) in sc.iter_mut().enumerate() {
                let (scale, m) = scale_min_k4(j, &blk[4..16]);
                *s = i32::from(scale);
                mins += i32::from(m) * (i32::from(bsums[2 * j]) + i32::from(bsums[2 * j + 1]));
            }
            summs += dmin * mins as f32;
            let (mut s0, mut s1) = (i32x4_splat(0), i32x4_splat(0));
            // SAFETY: a super-block has 32 bytes of fifth bits at 16 and 128 bytes of nibbles at
            // 48, and `x.w` holds 256 values per super-block (checked above).
            unsafe {
                let y = x.w.as_ptr().add(i * QK_K);
                let one = u8x16_splat(1);
                for j in 0..4 {
                    let (lo_s, hi_s) = (i32x4_splat(sc[2 * j]), i32x4_splat(sc[2 * j + 1]));
                    for (half, s) in [&mut s0, &mut s1].into_iter().enumerate() {
                        let q = v128_load(blk.as_ptr().add(48 + 32 * j + 16 * half) as *const v128);
                        let qh = v128_load(blk.as_ptr().add(16 + 16 * half) as *const v128);
                        let (b0, b1) = ((2 * j) as u32, (2 * j + 1) as u32);
                        let lo_bits = u8x16_shl(v128_and(u8x16_shr(qh, b0), one), 4);
                        let hi_bits = u8x16_shl(v128_and(u8x16_shr(qh, b1), one), 4);
                        let lo = v128_or(v128_and(q, u8x16_splat(0x0F)), lo_bits);
                        let hi = v128_or(u8x16_shr(q, 4), hi_bits);
                        let lo = lanes_u(lo, y.add(64 * j + 16 * half));
                        let hi = lanes_u(hi, y.add(64 * j + 32 + 16 * half));
                        *s = i32x4_add(*s, i32x4_add(i32x4_mul(lo_s, lo), i32x4_mul(hi_s, hi)));
                    }
                }
            }
            let d = f32x4_splat(d);
            a0 = f32x4_add(a0, f32x4_mul(d, f32x4_convert_i32x4(s0)));
            a1 = f32x4_add(a1, f32x4_mul(d, f32x4_convert_i32x4(s1)));
        }
        hsum(a0, a1) + summs
    }

    /// The eight lanes in two vectors, added as ggml's `hsum_float_8` adds them.
    #[inline(always)]
    fn hsum(a0: v128, a1: v128) -> f32 {
        let t = f32x4_add(a0, a1);
        (f32x4_extract_lane::<0>(t) + f32x4_extract_lane::<2>(t))
            + (f32x4_extract_lane::<1>(t) + f32x4_extract_lane::<3>(t))
    }

    /// [`lanes`] of 16 values from 0 to 63 (u8 in natural order).
    #[inline(always)]
    unsafe fn lanes_u(v: v128, y: *const i16) -> v128 {
        let v = i8x16_swizzle(v, PERM);
        i32x4_add(
            i32x4_dot_i16x8(u16x8_extend_low_u8x16(v), v128_load(y as *const v128)),
            i32x4_dot_i16x8(
                u16x8_extend_high_u8x16(v),
                v128_load(y.add(8) as *const v128),
            ),
        )
    }

    /// [`super::dot_q4_k_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q4_k(row: &[u8], x: &Q8K) -> f32 {
        let blocks = row.len() / Q4_K_BYTES;
        assert!(x.w.len() >= blocks * QK_K && x.d.len() >= blocks && x.bsums.len() >= blocks * 16);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        let mut acc_m = [0f32; 4];
        for (i, blk) in row.chunks_exact(Q4_K_BYTES).enumerate() {
            let d = x.d[i] * h(blk, 0);
            let dmin = -x.d[i] * h(blk, 2);
            let bsums = &x.bsums[i * 16..(i + 1) * 16];
            let (mut sc, mut m) = ([0i32; 8], [0i32; 8]);
            for j in 0..8 {
                let (s, mn) = scale_min_k4(j, &blk[4..16]);
                (sc[j], m[j]) = (i32::from(s), i32::from(mn));
            }
            for (u, a) in acc_m.iter_mut().enumerate() {
                let sub = |s: usize| i32::from(bsums[2 * s]) + i32::from(bsums[2 * s + 1]);
                let prod = m[2 * u] * sub(2 * u) + m[2 * u + 1] * sub(2 * u + 1);
                *a += dmin * prod as f32;
            }
            let (mut s0, mut s1) = (i32x4_splat(0), i32x4_splat(0));
            // SAFETY: a super-block has 128 bytes of nibbles after its 16 bytes of scales, and
            // `x.w` holds 256 values per super-block (checked above).
            unsafe {
                let y = x.w.as_ptr().add(i * QK_K);
                for j in 0..4 {
                    let (lo_s, hi_s) = (i32x4_splat(sc[2 * j]), i32x4_splat(sc[2 * j + 1]));
                    for (half, s) in [&mut s0, &mut s1].into_iter().enumerate() {
                        let q = v128_load(blk.as_ptr().add(16 + 32 * j + 16 * half) as *const v128);
                        let lo = lanes_u(v128_and(q, u8x16_splat(0x0F)), y.add(64 * j + 16 * half));
                        let hi = lanes_u(u8x16_shr(q, 4), y.add(64 * j + 32 + 16 * half));
                        *s = i32x4_add(*s, i32x4_add(i32x4_mul(lo_s, lo), i32x4_mul(hi_s, hi)));
                    }
                }
            }
            let d = f32x4_splat(d);
            a0 = f32x4_add(a0, f32x4_mul(d, f32x4_convert_i32x4(s0)));
            a1 = f32x4_add(a1, f32x4_mul(d, f32x4_convert_i32x4(s1)));
        }
        let m = (acc_m[0] + acc_m[2]) + (acc_m[1] + acc_m[3]);
        hsum(a0, a1) + m
    }

    /// [`super::dot_q6_k_plain`] with the eight lanes in two vectors (the same roundings).
    pub fn dot_q6_k(row: &[u8], x: &Q8K) -> f32 {
        let blocks = row.len() / Q6_K_BYTES;
        assert!(x.w.len() >= blocks * QK_K && x.d.len() >= blocks && x.bsums.len() >= blocks * 16);
        let (mut a0, mut a1) = (f32x4_splat(0.0), f32x4_splat(0.0));
        for (i, blk) in row.chunks_exact(Q6_K_BYTES).enumerate() {
            let sc: [i32; 16] = std::array::from_fn(|k| i32::from(blk[192 + k] as i8));
            let d = x.d[i] * h(blk, 208);
            let bsums = &x.bsums[i * 16..(i + 1) * 16];
            let (mut s0, mut s1) = (i32x4_splat(0), i32x4_splat(0));
            // SAFETY: a super-block has 128 bytes of low bits and then 64 of high bits, and `x.w`
            // holds 256 values per super-block (checked above).
            unsafe {
                let y = x.w.as_ptr().add(i * QK_K);
                let p = blk.as_ptr();
                let low = u8x16_splat(0x0F);
                for j in 0..2 {
                    for (half, s) in [&mut s0, &mut s1].into_iter().enumerate() {
                        let a = v128_load(p.add(64 * j + 16 * half) as *const v128);
                        let b = v128_load(p.add(64 * j + 32 + 16 * half) as *const v128);
                        let hb = v128_load(p.add(128 + 32 * j + 16 * half) as *const v128);
                        let vals = [
                            v128_or(v128_and(a, low), u8x16_shl(v128_and(hb, u8x16_splat(3)), 4)),
                            v128_or(
                                v128_and(b, low),
                                u8x16_shl(v128_and(hb, u8x16_splat(12)), 2),
                            ),
                            v128_or(u8x16_shr(a, 4), v128_and(hb, u8x16_splat(48))),
                            v128_or(
                                u8x16_shr(b, 4),
                                u8x16_shr(v128_and(hb, u8x16_splat(192)), 2),
                            ),
                        ];
                        for (k, v) in vals.into_iter().enumerate() {
                            let l = lanes_u(v, y.add(128 * j + 32 * k + 16 * half));
                            let scale = i32x4_splat(sc[8 * j + 2 * k + half]);
                            *s = i32x4_add(*s, i32x4_mul(scale, l));
                        }
                    }
                }
            }
            let sub: [i32; 8] = std::array::from_fn(|t| {
                (i32::from(bsums[2 * t]) * sc[2 * t] + i32::from(bsums[2 * t + 1]) * sc[2 * t + 1])
                    << 5
            });
            let s0 = i32x4_sub(s0, i32x4(sub[0], sub[1], sub[2], sub[3]));
            let s1 = i32x4_sub(s1, i32x4(sub[4], sub[5], sub[6], sub[7]));
            let d = f32x4_splat(d);
            a0 = f32x4_add(a0, f32x4_mul(d, f32x4_convert_i32x4(s0)));
            a1 = f32x4_add(a1, f32x4_mul(d, f32x4_convert_i32x4(s1)));
        }
        hsum(a0, a1)
    }
}

/// Dot product of one `Q4_0` row with a `Q8_0` vector.
pub fn dot_q4_0_plain(row: &[u8], x: &Q8) -> f32 {
    dot_32(row, x, Q4_0_BYTES, values_q4_0)
}

/// Dot product of one `Q5_1` row with a `Q8_1` vector (llama.cpp's `ggml_vec_dot_q5_1_q8_1`,
/// AVX2): as [`dot_q5_0`], the minimums' part apart.
pub fn dot_q5_1_plain(row: &[u8], x: &Q8) -> f32 {
    let mut acc = [0f32; 8];
    let mut summs = 0f32;
    for (i, blk) in row.chunks_exact(Q5_1_BYTES).enumerate() {
        summs = madd(h(blk, 2), x.s[i], summs);
        let dd = h(blk, 0) * x.d[i];
        let lanes = lanes32(&values_q5_1(blk), &x.q[i * QK..i * QK + QK]);
        for (a, l) in acc.iter_mut().zip(lanes) {
            *a = madd(l as f32, dd, *a);
        }
    }
    hsum8(acc) + summs
}

/// Scale and minimum `j` (of eight) of a `Q4_K` super-block's 12 bytes (`get_scale_min_k4`).
fn scale_min_k4(j: usize, q: &[u8]) -> (u8, u8) {
    if j < 4 {
        (q[j] & 63, q[j + 4] & 63)
    } else {
        (
            (q[j + 4] & 0x0F) | ((q[j - 4] >> 6) << 4),
            (q[j + 4] >> 4) | ((q[j] >> 6) << 4),
        )
    }
}

/// Dot product of one `Q4_K` row with the `Q8_K` vector `x` (llama.cpp's
/// `ggml_vec_dot_q4_K_q8_K`, AVX2): per super-block, eight integer lanes (lane `t` holds the
/// values `4t..4t+4` of every 32, each run of 32 times its scale) scaled by `d` into eight
/// accumulators, and the minimums' part in four more (lane `u` holds sub-blocks `2u` and
/// `2u + 1`).
pub fn dot_q4_k_plain(row: &[u8], x: &Q8K) -> f32 {
    let mut acc = [0f32; 8];
    let mut acc_m = [0f32; 4];
    for (i, blk) in row.chunks_exact(Q4_K_BYTES).enumerate() {
        let d = x.d[i] * h(blk, 0);
        let dmin = -x.d[i] * h(blk, 2);
        let scales = &blk[4..16];
        let qs = &blk[16..144];
        let q8 = &x.q[i * QK_K..(i + 1) * QK_K];
        let bsums = &x.bsums[i * 16..(i + 1) * 16];
        let (mut sc, mut m) = ([0i32; 8], [0i32; 8]);
        for j in 0..8 {
            let (s, mn) = scale_min_k4(j, scales);
            (sc[j], m[j]) = (i32::from(s), i32::from(mn));
        }
        for (u, a) in acc_m.iter_mut().enumerate() {
            let sub = |s: usize| i32::from(bsums[2 * s]) + i32::from(bsums[2 * s + 1]);
            let prod = m[2 * u] * sub(2 * u) + m[2 * u + 1] * sub(2 * u + 1);
            *a = madd(dmin, prod as f32, *a);
        }
        let mut sumi = [0i32; 8];
        for j in 0..4 {
            let bytes = &qs[32 * j..32 * j + 32];
            let (lo, hi) = (&q8[64 * j..64 * j + 32], &q8[64 * j + 32..64 * j + 64]);
            for (t, s) in sumi.iter_mut().enumerate() {
                let (mut l, mut u) = (0i32, 0i32);
                for b in 4 * t..4 * t + 4 {
                    l += i32::from(bytes[b] & 0x0F) * i32::from(lo[b]);
                    u += i32::from(bytes[b] >> 4) * i32::from(hi[b]);
                }
                *s += sc[2 * j] * l + sc[2 * j + 1] * u;
            }
        }
        for (a, s) in acc.iter_mut().zip(sumi) {
            *a = madd(d, s as f32, *a);
        }
    }
    let m = (acc_m[0] + acc_m[2]) + (acc_m[1] + acc_m[3]);
    hsum8(acc) + m
}

/// Dot product of one `Q5_K` row with the `Q8_K` vector `x` (llama.cpp's
/// `ggml_vec_dot_q5_K_q8_K`, AVX2): as [`dot_q4_k`] with a fifth bit per value, the minimums'
/// part summed as one integer per super-block.
pub fn dot_q5_k_plain(row: &[u8], x: &Q8K) -> f32 {
    let mut acc = [0f32; 8];
    let mut summs = 0f32;
    for (i, blk) in row.chunks_exact(Q5_K_BYTES).enumerate() {
        let d = x.d[i] * h(blk, 0);
        let dmin = -x.d[i] * h(blk, 2);
        let (scales, qh, qs) = (&blk[4..16], &blk[16..48], &blk[48..176]);
        let q8 = &x.q[i * QK_K..(i + 1) * QK_K];
        let bsums = &x.bsums[i * 16..(i + 1) * 16];
        let mut mins = 0i32;
        let mut sc = [0i32; 8];
        for (j, s) in sc.iter_mut().enumerate() {
            let (scale, m) = scale_min_k4(j, scales);
            *s = i32::from(scale);
            mins += i32::from(m) * (i32::from(bsums[2 * j]) + i32::from(bsums[2 * j + 1]));
        }
        summs = madd(dmin, mins as f32, summs);
        let mut sumi = [0i32; 8];
        for j in 0..4 {
            for (t, s) in sumi.iter_mut().enumerate() {
                let (mut l, mut u) = (0i32, 0i32);
                for b in 4 * t..4 * t + 4 {
                    let byte = qs[32 * j + b];
                    let lo = (byte & 0x0F) | (((qh[b] >> (2 * j)) & 1) << 4);
                    let hi = (byte >> 4) | (((qh[b] >> (2 * j + 1)) & 1) << 4);
                    l += i32::from(lo) * i32::from(q8[64 * j + b]);
                    u += i32::from(hi) * i32::from(q8[64 * j + 32 + b]);
                }
                *s += sc[2 * j] * l + sc[2 * j + 1] * u;
            }
        }
        for (a, s) in acc.iter_mut().zip(sumi) {
            *a = madd(d, s as f32, *a);
        }
    }
    hsum8(acc) + summs
}

/// The 6-bit values of a `Q6_K` super-block in 128-value halves: value `32k + b` of half `j`.
fn value_q6_k(ql: &[u8], qh: &[u8], j: usize, k: usize, b: usize) -> i32 {
    let (l, hb) = (&ql[64 * j..64 * j + 64], qh[32 * j + b]);
    i32::from(match k {
        0 => (l[b] & 0x0F) | ((hb & 3) << 4),
        1 => (l[32 + b] & 0x0F) | ((hb & 12) << 2),
        2 => (l[b] >> 4) | (hb & 48),
        _ => (l[32 + b] >> 4) | ((hb & 192) >> 2),
    })
}

/// Dot product of one `Q6_K` row with the `Q8_K` vector `x` (llama.cpp's
/// `ggml_vec_dot_q6_K_q8_K`, AVX2): per super-block, eight integer lanes (lane `t` holds values
/// `4t..4t+4` of every 32, each 16 times its scale), less 32 times the scaled sums of sub-blocks
/// `2t` and `2t + 1`, scaled by `d` into eight accumulators.
pub fn dot_q6_k_plain(row: &[u8], x: &Q8K) -> f32 {
    let mut acc = [0f32; 8];
    for (i, blk) in row.chunks_exact(Q6_K_BYTES).enumerate() {
        let (ql, qh) = (&blk[..128], &blk[128..192]);
        let sc: [i32; 16] = std::array::from_fn(|k| i32::from(blk[192 + k] as i8));
        let d = x.d[i] * h(blk, 208);
        let q8 = &x.q[i * QK_K..(i + 1) * QK_K];
        let bsums = &x.bsums[i * 16..(i + 1) * 16];
        let mut sumi = [0i32; 8];
        for j in 0..2 {
            for k in 0..4 {
                let y = &q8[128 * j + 32 * k..128 * j + 32 * k + 32];
                for (t, s) in sumi.iter_mut().enumerate() {
                    let lane: i32 = (4 * t..4 * t + 4)
                        .map(|b| value_q6_k(ql, qh, j, k, b) * i32::from(y[b]))
                        .sum();
                    *s += sc[8 * j + 2 * k + usize::from(t >= 4)] * lane;
                }
            }
        }
        for (t, (a, s)) in acc.iter_mut().zip(sumi).enumerate() {
            let sub =
                i32::from(bsums[2 * t]) * sc[2 * t] + i32::from(bsums[2 * t + 1]) * sc[2 * t + 1];
            *a = madd(d, (s - (sub << 5)) as f32, *a);
        }
    }
    hsum8(acc)
}

/// A `Q5_0` row (`row`, whole blocks) as floats (`dequantize_row_q5_0`).
pub fn row_q5_0(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q5_0_BYTES).zip(out.chunks_exact_mut(QK)) {
        let d = h(blk, 0);
        for (v, q) in o.iter_mut().zip(values_q5_0(blk)) {
            *v = f32::from(q) * d;
        }
    }
}

/// A `Q4_K` row as floats (`dequantize_row_q4_K`).
pub fn row_q4_k(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q4_K_BYTES).zip(out.chunks_exact_mut(QK_K)) {
        let (d, min) = (h(blk, 0), h(blk, 2));
        for j in 0..4 {
            let (s1, m1) = scale_min_k4(2 * j, &blk[4..16]);
            let (s2, m2) = scale_min_k4(2 * j + 1, &blk[4..16]);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            let q = &blk[16 + 32 * j..16 + 32 * j + 32];
            for l in 0..32 {
                o[64 * j + l] = d1 * f32::from(q[l] & 0x0F) - m1;
                o[64 * j + 32 + l] = d2 * f32::from(q[l] >> 4) - m2;
            }
        }
    }
}

/// A `Q6_K` row as floats (`dequantize_row_q6_K`).
pub fn row_q6_k(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q6_K_BYTES).zip(out.chunks_exact_mut(QK_K)) {
        let (ql, qh, d) = (&blk[..128], &blk[128..192], h(blk, 208));
        for j in 0..2 {
            for k in 0..4 {
                for b in 0..32 {
                    let sc = f32::from(blk[192 + 8 * j + 2 * k + b / 16] as i8);
                    let q = value_q6_k(ql, qh, j, k, b) - 32;
                    o[128 * j + 32 * k + b] = d * sc * q as f32;
                }
            }
        }
    }
}

/// A `Q4_0` row as floats (`dequantize_row_q4_0`).
pub fn row_q4_0(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q4_0_BYTES).zip(out.chunks_exact_mut(QK)) {
        let d = h(blk, 0);
        for (v, q) in o.iter_mut().zip(values_q4_0(blk)) {
            *v = f32::from(q) * d;
        }
    }
}

/// A `Q5_1` row as floats (`dequantize_row_q5_1`).
pub fn row_q5_1(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q5_1_BYTES).zip(out.chunks_exact_mut(QK)) {
        let (d, m) = (h(blk, 0), h(blk, 2));
        for (v, q) in o.iter_mut().zip(values_q5_1(blk)) {
            *v = f32::from(q) * d + m;
        }
    }
}

/// A `Q5_K` row as floats (`dequantize_row_q5_K`).
pub fn row_q5_k(row: &[u8], out: &mut [f32]) {
    for (blk, o) in row.chunks_exact(Q5_K_BYTES).zip(out.chunks_exact_mut(QK_K)) {
        let (d, min) = (h(blk, 0), h(blk, 2));
        let (qh, qs) = (&blk[16..48], &blk[48..176]);
        for j in 0..4 {
            let (s1, m1) = scale_min_k4(2 * j, &blk[4..16]);
            let (s2, m2) = scale_min_k4(2 * j + 1, &blk[4..16]);
            let (d1, m1) = (d * f32::from(s1), min * f32::from(m1));
            let (d2, m2) = (d * f32::from(s2), min * f32::from(m2));
            for l in 0..32 {
                let b = qs[32 * j + l];
                let lo = (b & 0x0F) + if qh[l] & (1 << (2 * j)) != 0 { 16 } else { 0 };
                let hi = (b >> 4) + if qh[l] & (2 << (2 * j)) != 0 { 16 } else { 0 };
                o[64 * j + l] = d1 * f32::from(lo) - m1;
                o[64 * j + 32 + l] = d2 * f32::from(hi) - m2;
            }
        }
    }
}
