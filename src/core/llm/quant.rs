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
/// Bytes of a `Q4_1` block.
pub const Q4_1_BYTES: usize = 20;
/// Bytes of a `Q8_0` block.
pub const Q8_0_BYTES: usize = 34;

fn h(b: &[u8], at: usize) -> f32 {
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
}

impl Q8 {
    /// Quantizes `x` (its length a multiple of 32) into `self`, reusing its buffers, as
    /// llama.cpp's x86 (AVX2) build does: scale `max/127`, values rounded half to even.
    pub fn quantize(&mut self, x: &[f32]) {
        self.d.clear();
        self.s.clear();
        self.q.clear();
        self.q.reserve(x.len());
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
        }
    }
}

/// The sum of eight float lanes the way ggml's `hsum_float_8` adds them.
fn hsum8(a: [f32; 8]) -> f32 {
    let t = [a[0] + a[4], a[1] + a[5], a[2] + a[6], a[3] + a[7]];
    (t[0] + t[2]) + (t[1] + t[3])
}

/// Dot product of one `Q4_1` row (`row`, whole blocks) with a `Q8_1` vector: per block eight
/// lanes of four products each, scaled and added into eight accumulators with a fused
/// multiply-add, the minimums' part apart — the order of llama.cpp's AVX2 kernel, so the sums
/// round the same.
pub fn dot_q4_1(row: &[u8], x: &Q8) -> f32 {
    let mut acc = [0f32; 8];
    let mut summs = 0f32;
    for (i, blk) in row.chunks_exact(Q4_1_BYTES).enumerate() {
        let (d, m) = (h(blk, 0), h(blk, 2));
        let qs = &blk[4..20];
        let y = &x.q[i * QK..i * QK + QK];
        summs = m.mul_add(x.s[i], summs);
        let dd = d * x.d[i];
        for (k, a) in acc.iter_mut().enumerate() {
            let mut lane = 0i32;
            for j in 4 * k..4 * k + 4 {
                let q = if j < 16 {
                    qs[j] & 0x0F
                } else {
                    qs[j - 16] >> 4
                };
                lane += i32::from(q) * i32::from(y[j]);
            }
            *a = dd.mul_add(lane as f32, *a);
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
        let w = &blk[2..34];
        let y = &x.q[i * QK..i * QK + QK];
        for (k, a) in acc.iter_mut().enumerate() {
            let mut lane = 0i32;
            for j in 4 * k..4 * k + 4 {
                lane += i32::from(w[j] as i8) * i32::from(y[j]);
            }
            *a = dd.mul_add(lane as f32, *a);
        }
    }
    hsum8(acc)
}

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

/// f32 values stored little-endian, read.
pub fn f32s(data: &[u8]) -> Vec<f32> {
    data.chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}
