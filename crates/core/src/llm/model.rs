//! The Llama forward pass (SmolLM2's architecture) over a GGUF file's weights: matrices in
//! `Q4_0`, `Q4_1`, `Q5_0`, `Q5_1`, `Q8_0`, `Q4_K`, `Q5_K` or `Q6_K` (so the `Q4_K_M`, `Q5_K_M`
//! and `Q6_K` files people download, which mix several of them), f32 norms, the embedding table tied to the output. One token at a time,
//! with a key/value cache (values rounded through f16 as llama.cpp keeps them, held as f32) so
//! each new token reads the history once.
//!
//! Per layer: RMS norm → Q, K, V → RoPE (llama's "normal" rotation of adjacent pairs) → causal
//! attention, grouped (several query heads share a key/value head) → output projection →
//! residual; RMS norm → SwiGLU feed-forward → residual. Then the final norm and the logits.

use super::gguf::{DType, Gguf, GgufError, TensorInfo};
use super::kquant;
use super::quant::{self, Q8};
use half::f16;

/// The model's shape, from the GGUF metadata.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Config {
    /// Width of the residual stream.
    pub n_embd: usize,
    /// Query heads.
    pub n_head: usize,
    /// Key/value heads.
    pub n_head_kv: usize,
    /// Width of a head.
    pub head_dim: usize,
    /// Width of the feed-forward layer.
    pub n_ff: usize,
    /// Layers.
    pub n_layer: usize,
    /// Tokens in the vocabulary.
    pub vocab: usize,
    /// RoPE base frequency.
    pub rope_base: f32,
    /// RMS norm epsilon.
    pub eps: f32,
    /// The longest context the model was trained for.
    pub train_ctx: usize,
}

/// A matrix: where its rows are and how they are stored.
#[derive(Debug, Clone, Copy)]
struct Mat {
    start: usize,
    rows: usize,
    row_bytes: usize,
    dtype: DType,
}

impl Mat {
    fn of(t: &TensorInfo) -> Result<Mat, GgufError> {
        let cols = t.dims[0] as usize;
        let rows = t.dims.get(1).copied().unwrap_or(1) as usize;
        let dtype = t
            .dtype
            .map_err(|n| GgufError::Tensor("?".into(), format!("type {n}")))?;
        let row_bytes = dtype
            .bytes(cols)
            .ok_or_else(|| GgufError::Tensor("?".into(), "rows not whole blocks".into()))?;
        Ok(Mat {
            start: t.start,
            rows,
            row_bytes,
            dtype,
        })
    }
}

#[derive(Debug, Clone)]
struct Layer {
    attn_norm: Vec<f32>,
    ffn_norm: Vec<f32>,
    q: Mat,
    k: Mat,
    v: Mat,
    o: Mat,
    gate: Mat,
    up: Mat,
    down: Mat,
}

/// A loaded model: the file's bytes and where everything is in them.
pub struct Model {
    /// The shape.
    pub cfg: Config,
    data: Vec<u8>,
    embd: Mat,
    out_norm: Vec<f32>,
    layers: Vec<Layer>,
    /// Some matrix is in a K format: activations are quantized to `Q8_K` too.
    k: bool,
}

/// The types a matrix (or the embedding) may have.
pub const MATS: [DType; 8] = [
    DType::Q4_1,
    DType::Q8_0,
    DType::Q5_0,
    DType::Q4_K,
    DType::Q6_K,
    DType::Q4_0,
    DType::Q5_1,
    DType::Q5_K,
];

/// Tokens [`Model::feed`] takes at once.
pub const BATCH: usize = 4;

/// One conversation's running state: the key/value cache and scratch space.
pub struct State {
    /// Tokens in the cache.
    pub pos: usize,
    ctx: usize,
    // Keys and values rounded through f16 as llama.cpp keeps them, held as f32 (reading f16 is a
    // slow software conversion in wasm). Keys transposed, `[layer][head·dim][position]`, so a
    // query meets many positions at once; values `[layer][position][head·dim]`.
    k: Vec<f32>,
    v: Vec<f32>,
    x: Vec<f32>,
    xb: Vec<f32>,
    q: Vec<f32>,
    kv: Vec<f32>,
    att: Vec<f32>,
    hb: Vec<f32>,
    hb2: Vec<f32>,
    xq: Vec<Q8>,
    /// The logits of the last token.
    pub logits: Vec<f32>,
}

impl State {
    /// The window: tokens the cache can hold.
    pub fn ctx(&self) -> usize {
        self.ctx
    }
}

fn usize_of(g: &Gguf, key: &str) -> Result<usize, GgufError> {
    usize::try_from(g.u(key)?).map_err(|_| GgufError::Missing(key.into()))
}

/// Where a model's tensors are in its file, with their shapes and types checked.
struct Plan {
    cfg: Config,
    embd: Mat,
    out_norm: usize,
    /// Per layer: where its two norms start, and its seven matrices.
    layers: Vec<(usize, usize, [Mat; 7])>,
}

impl Plan {
    /// Checks `g` (a GGUF header with its tensors) against what the forward pass needs: a `llama`
    /// model with matrices in [`MATS`], f32 norms and an embedding (one of them) tied to the
    /// output.
    /// Reads no tensor data, so a file can be checked from its header alone.
    fn of(g: &Gguf) -> Result<Plan, GgufError> {
        if g.s("general.architecture")? != "llama" {
            return Err(GgufError::Missing("general.architecture = llama".into()));
        }
        let n_embd = usize_of(g, "llama.embedding_length")?;
        let n_head = usize_of(g, "llama.attention.head_count")?;
        let n_head_kv = usize_of(g, "llama.attention.head_count_kv")?;
        let n_ff = usize_of(g, "llama.feed_forward_length")?;
        let n_layer = usize_of(g, "llama.block_count")?;
        let vocab = g.strs("tokenizer.ggml.tokens")?.len();
        if n_head == 0
            || n_head_kv == 0
            || !n_embd.is_multiple_of(n_head)
            || !n_head.is_multiple_of(n_head_kv)
        {
            return Err(GgufError::Missing("llama.attention.head_count".into()));
        }
        let head_dim = n_embd / n_head;
        // Heads rotate in pairs; the rotation covers the whole head.
        if head_dim == 0
            || !head_dim.is_multiple_of(2)
            || g.u("llama.rope.dimension_count")
                .is_ok_and(|d| d != head_dim as u64)
        {
            return Err(GgufError::Missing("llama.rope.dimension_count".into()));
        }
        // Nine tensors per layer: a count the file cannot hold is refused before anything is
        // allocated for it.
        if n_layer == 0 || n_layer > g.tensors.len() / 9 {
            return Err(GgufError::Missing("llama.block_count".into()));
        }
        let cfg = Config {
            n_embd,
            n_head,
            n_head_kv,
            head_dim,
            n_ff,
            n_layer,
            vocab,
            rope_base: g.f("llama.rope.freq_base").unwrap_or(10_000.0) as f32,
            eps: g.f("llama.attention.layer_norm_rms_epsilon")? as f32,
            train_ctx: usize_of(g, "llama.context_length")?,
        };
        let (e, kv) = (n_embd as u64, (n_head_kv * head_dim) as u64);
        let mats = MATS;
        let norm = |name: &str| Ok(g.tensor(name, &[e], &[DType::F32])?.start);
        let mat = |name: &str, cols: u64, rows: u64| -> Result<Mat, GgufError> {
            let t = g.tensor(name, &[cols, rows], &mats)?;
            Mat::of(t).map_err(|e| match e {
                GgufError::Tensor(_, why) => GgufError::Tensor(name.into(), why),
                other => other,
            })
        };
        let mut layers = Vec::with_capacity(n_layer);
        for i in 0..n_layer {
            let p = |s: &str| format!("blk.{i}.{s}");
            let f = n_ff as u64;
            layers.push((
                norm(&p("attn_norm.weight"))?,
                norm(&p("ffn_norm.weight"))?,
                [
                    mat(&p("attn_q.weight"), e, e)?,
                    mat(&p("attn_k.weight"), e, kv)?,
                    mat(&p("attn_v.weight"), e, kv)?,
                    mat(&p("attn_output.weight"), e, e)?,
                    mat(&p("ffn_gate.weight"), e, f)?,
                    mat(&p("ffn_up.weight"), e, f)?,
                    mat(&p("ffn_down.weight"), f, e)?,
                ],
            ));
        }
        let embd = Mat::of(g.tensor("token_embd.weight", &[e, vocab as u64], &MATS)?)?;
        if g.tensors.contains_key("output.weight") {
            return Err(GgufError::Tensor(
                "output.weight".into(),
                "a separate output matrix is not supported (tied embeddings only)".into(),
            ));
        }
        let out_norm = norm("output_norm.weight")?;
        Ok(Plan {
            cfg,
            embd,
            out_norm,
            layers,
        })
    }
}

impl Model {
    /// Checks that a model file with header `g` (its tensors placed, [`super::gguf::read_head`])
    /// can be loaded, without its weights: the shape it would have.
    pub fn check(g: &Gguf) -> Result<Config, GgufError> {
        Plan::of(g).map(|p| p.cfg)
    }

    /// Reads the model from `data`, a whole GGUF file of a `llama` model with tensors in
    /// [`MATS`] and `F32`.
    pub fn load(data: Vec<u8>) -> Result<Model, GgufError> {
        let plan = Plan::of(&super::gguf::read(&data)?)?;
        let width = plan.cfg.n_embd * 4;
        let norm = |start: usize| quant::f32s(&data[start..start + width]);
        let layers = plan
            .layers
            .iter()
            .map(|&(attn, ffn, [q, k, v, o, gate, up, down])| Layer {
                attn_norm: norm(attn),
                ffn_norm: norm(ffn),
                q,
                k,
                v,
                o,
                gate,
                up,
                down,
            })
            .collect();
        let out_norm = norm(plan.out_norm);
        let k = plan
            .layers
            .iter()
            .flat_map(|l| l.2)
            .chain([plan.embd])
            .any(|m| m.dtype.block().0 == kquant::QK_K);
        Ok(Model {
            k,
            cfg: plan.cfg,
            data,
            embd: plan.embd,
            out_norm,
            layers,
        })
    }

    /// A fresh state for up to `ctx` tokens.
    pub fn state(&self, ctx: usize) -> State {
        let c = &self.cfg;
        let kv = c.n_layer * ctx * c.n_head_kv * c.head_dim;
        let n = BATCH;
        State {
            pos: 0,
            ctx,
            k: vec![0.0; kv],
            v: vec![0.0; kv],
            x: vec![0.0; n * c.n_embd],
            xb: vec![0.0; n * c.n_embd],
            q: vec![0.0; n * c.n_embd],
            kv: vec![0.0; n * c.n_head_kv * c.head_dim],
            att: vec![0.0; ctx],
            hb: vec![0.0; n * c.n_ff],
            hb2: vec![0.0; n * c.n_ff],
            xq: vec![Q8::default(); n],
            logits: vec![0.0; c.vocab],
        }
    }

    /// `out[b] = m · x[b]` for each quantized vector `x[b]` (`out` holds `x.len()` rows of
    /// `m.rows` values). Four vectors at once share each weight row's decoding, and one vector
    /// is taken against two rows at once, which share its loads; each product is computed
    /// exactly as alone.
    fn matmul(&self, m: &Mat, x: &[Q8], out: &mut [f32]) {
        let n = x.len();
        let one = |row: &[u8], xq: &Q8| match m.dtype {
            DType::Q4_1 => quant::dot_q4_1(row, xq),
            DType::Q8_0 => quant::dot_q8_0(row, xq),
            DType::Q5_0 => kquant::dot_q5_0(row, xq),
            DType::Q4_K => kquant::dot_q4_k(row, &xq.k),
            DType::Q6_K => kquant::dot_q6_k(row, &xq.k),
            DType::Q4_0 => kquant::dot_q4_0(row, xq),
            DType::Q5_1 => kquant::dot_q5_1(row, xq),
            DType::Q5_K => kquant::dot_q5_k(row, &xq.k),
            _ => unreachable!("checked at load"),
        };
        let data = &self.data[m.start..m.start + m.rows * m.row_bytes];
        if !matches!(m.dtype, DType::Q4_1 | DType::Q8_0) {
            // One row at a time (no kernels for several rows or vectors yet).
            for r in 0..m.rows {
                let row = &data[r * m.row_bytes..(r + 1) * m.row_bytes];
                for (b, xq) in x.iter().enumerate() {
                    out[b * m.rows + r] = one(row, xq);
                }
            }
            return;
        }
        if n == 1 {
            let (pairs, rest) = data.split_at(m.rows / 2 * 2 * m.row_bytes);
            for (two, o) in pairs
                .chunks_exact(2 * m.row_bytes)
                .zip(out.chunks_exact_mut(2))
            {
                let rows = [&two[..m.row_bytes], &two[m.row_bytes..]];
                o.copy_from_slice(&match m.dtype {
                    DType::Q4_1 => quant::dotr_q4_1(rows, &x[0]),
                    DType::Q8_0 => quant::dotr_q8_0(rows, &x[0]),
                    _ => unreachable!("checked at load"),
                });
            }
            if !rest.is_empty() {
                out[m.rows - 1] = one(rest, &x[0]);
            }
            return;
        }
        for r in 0..m.rows {
            let row = &data[r * m.row_bytes..(r + 1) * m.row_bytes];
            if n == 4 {
                let xs = [&x[0], &x[1], &x[2], &x[3]];
                let four = match m.dtype {
                    DType::Q4_1 => quant::dot4_q4_1(row, xs),
                    DType::Q8_0 => quant::dot4_q8_0(row, xs),
                    _ => unreachable!("checked at load"),
                };
                for (b, v) in four.into_iter().enumerate() {
                    out[b * m.rows + r] = v;
                }
            } else {
                for (b, xq) in x.iter().enumerate() {
                    out[b * m.rows + r] = one(row, xq);
                }
            }
        }
    }

    /// Feeds `token` at the state's position; the logits of the next token are then in
    /// `state.logits`. Returns false (and changes nothing) when the state is full or the token
    /// is not in the vocabulary.
    pub fn step(&self, s: &mut State, token: u32) -> bool {
        self.feed(s, &[token], true)
    }

    /// Feeds up to [`BATCH`] `tokens` from the state's position, each computed exactly as
    /// [`Model::step`] computes it, the weights read once for all of them; with `logits`, the
    /// logits after the last one are then in `state.logits` (a prompt needs only its last
    /// token's). Returns false (and changes nothing) when they do not fit, a token is not in the
    /// vocabulary or there are none or too many.
    pub fn feed(&self, s: &mut State, tokens: &[u32], logits: bool) -> bool {
        let c = self.cfg;
        let n = tokens.len();
        if n == 0 || n > BATCH || s.pos + n > s.ctx || tokens.iter().any(|&t| t as usize >= c.vocab)
        {
            return false;
        }
        let (e, ff) = (c.n_embd, c.n_ff);
        let kvw = c.n_head_kv * c.head_dim;
        let group = c.n_head / c.n_head_kv;
        let scale = 1.0 / (c.head_dim as f32).sqrt();
        let angles: Vec<_> = (0..n)
            .map(|b| rope_table(c.head_dim, s.pos + b, c.rope_base))
            .collect();
        for (b, &t) in tokens.iter().enumerate() {
            let m = self.embd;
            let at = m.start + t as usize * m.row_bytes;
            let row = &self.data[at..at + m.row_bytes];
            let out = &mut s.x[b * e..(b + 1) * e];
            match m.dtype {
                DType::Q8_0 => quant::row_q8_0(row, e, 0, out),
                DType::Q4_1 => quant::row_q4_1(row, out),
                DType::Q5_0 => kquant::row_q5_0(row, out),
                DType::Q4_K => kquant::row_q4_k(row, out),
                DType::Q6_K => kquant::row_q6_k(row, out),
                DType::Q4_0 => kquant::row_q4_0(row, out),
                DType::Q5_1 => kquant::row_q5_1(row, out),
                DType::Q5_K => kquant::row_q5_k(row, out),
                _ => unreachable!("checked at load"),
            }
        }
        for (l, layer) in self.layers.iter().enumerate() {
            for b in 0..n {
                rms_norm(
                    &s.x[b * e..(b + 1) * e],
                    &layer.attn_norm,
                    c.eps,
                    &mut s.xb[b * e..(b + 1) * e],
                );
                s.xq[b].quantize_both(&s.xb[b * e..(b + 1) * e], self.k);
            }
            self.matmul(&layer.q, &s.xq[..n], &mut s.q[..n * e]);
            self.matmul(&layer.k, &s.xq[..n], &mut s.kv[..n * kvw]);
            let kt = l * kvw * s.ctx;
            for (b, angles) in angles.iter().enumerate() {
                let pos = s.pos + b;
                rope(&mut s.q[b * e..(b + 1) * e], c.head_dim, angles);
                rope(&mut s.kv[b * kvw..(b + 1) * kvw], c.head_dim, angles);
                // Keys transposed: value `i` (head and dimension) of every position in a row.
                for (i, v) in s.kv[b * kvw..(b + 1) * kvw].iter().enumerate() {
                    s.k[kt + i * s.ctx + pos] = round_f16(*v);
                }
            }
            self.matmul(&layer.v, &s.xq[..n], &mut s.kv[..n * kvw]);
            for b in 0..n {
                let base = (l * s.ctx + s.pos + b) * kvw;
                for (d, v) in s.v[base..base + kvw]
                    .iter_mut()
                    .zip(&s.kv[b * kvw..(b + 1) * kvw])
                {
                    *d = round_f16(*v);
                }
            }
            // Attention, token by token, head by head, over positions 0..=pos.
            let layer_base = l * s.ctx * kvw;
            for b in 0..n {
                let pos = s.pos + b;
                for hq in 0..c.n_head {
                    let hk = hq / group;
                    let att = &mut s.att[..=pos];
                    // Each position's dot product adds the dimensions in order, as a plain loop
                    // would; taken a dimension at a time over all positions, it vectorizes.
                    att.fill(0.0);
                    let k0 = kt + hk * c.head_dim * s.ctx;
                    let qh = &s.q[b * e + hq * c.head_dim..b * e + (hq + 1) * c.head_dim];
                    for (d, qv) in qh.iter().enumerate() {
                        // The query meets the f16 keys as f16 (llama.cpp converts it for the
                        // product).
                        let qd = round_f16(*qv);
                        let row = &s.k[k0 + d * s.ctx..k0 + d * s.ctx + pos + 1];
                        for (a, k) in att.iter_mut().zip(row) {
                            *a += qd * k;
                        }
                    }
                    let mut max = f32::NEG_INFINITY;
                    for a in att.iter_mut() {
                        *a *= scale;
                        max = max.max(*a);
                    }
                    let mut sum = 0f64;
                    for a in att.iter_mut() {
                        *a = (*a - max).exp();
                        sum += f64::from(*a);
                    }
                    let inv = (1.0 / sum) as f32;
                    let out = &mut s.xb[b * e + hq * c.head_dim..b * e + (hq + 1) * c.head_dim];
                    out.fill(0.0);
                    for (t, a) in att.iter().enumerate() {
                        // The weights meet the f16 values as f16.
                        let p = round_f16(a * inv);
                        let v0 = layer_base + t * kvw + hk * c.head_dim;
                        for (o, v) in out.iter_mut().zip(&s.v[v0..v0 + c.head_dim]) {
                            *o += p * v;
                        }
                    }
                }
            }
            for b in 0..n {
                s.xq[b].quantize_both(&s.xb[b * e..(b + 1) * e], self.k);
            }
            self.matmul(&layer.o, &s.xq[..n], &mut s.q[..n * e]);
            for (x, d) in s.x[..n * e].iter_mut().zip(&s.q[..n * e]) {
                *x += d;
            }
            // Feed-forward.
            for b in 0..n {
                rms_norm(
                    &s.x[b * e..(b + 1) * e],
                    &layer.ffn_norm,
                    c.eps,
                    &mut s.xb[b * e..(b + 1) * e],
                );
                s.xq[b].quantize_both(&s.xb[b * e..(b + 1) * e], self.k);
            }
            self.matmul(&layer.gate, &s.xq[..n], &mut s.hb[..n * ff]);
            self.matmul(&layer.up, &s.xq[..n], &mut s.hb2[..n * ff]);
            for (g, u) in s.hb[..n * ff].iter_mut().zip(&s.hb2[..n * ff]) {
                *g = *g / (1.0 + (-*g).exp()) * u;
            }
            for b in 0..n {
                s.xq[b].quantize_both(&s.hb[b * ff..(b + 1) * ff], self.k);
            }
            self.matmul(&layer.down, &s.xq[..n], &mut s.q[..n * e]);
            for (x, d) in s.x[..n * e].iter_mut().zip(&s.q[..n * e]) {
                *x += d;
            }
        }
        if logits {
            let last = (n - 1) * e;
            rms_norm(&s.x[last..last + e], &self.out_norm, c.eps, &mut s.xb[..e]);
            s.xq[0].quantize_both(&s.xb[..e], self.k);
            let embd = self.embd;
            self.matmul(&embd, &s.xq[..1], &mut s.logits);
        }
        s.pos += n;
        true
    }
}

/// `out = x / rms(x) · w` (the mean of squares summed in f64, as ggml does).
fn rms_norm(x: &[f32], w: &[f32], eps: f32, out: &mut [f32]) {
    let sum: f64 = x.iter().map(|v| f64::from(v * v)).sum();
    let mean = (sum / x.len() as f64) as f32;
    let scale = 1.0 / (mean + eps).sqrt();
    for ((o, v), w) in out.iter_mut().zip(x).zip(w) {
        *o = v * scale * w;
    }
}

/// Llama's rotation at `pos`: pair `(2i, 2i+1)` of a head turns by `pos · base^(-2i/head_dim)`,
/// the angle stepped by repeated multiplication as ggml does. The sines and cosines, the same for
/// every head and layer.
fn rope_table(head_dim: usize, pos: usize, base: f32) -> Vec<(f32, f32)> {
    let step = base.powf(-2.0 / head_dim as f32);
    let mut theta = pos as f32;
    (0..head_dim / 2)
        .map(|_| {
            let sc = theta.sin_cos();
            theta *= step;
            sc
        })
        .collect()
}

/// Turns every head of `x` by the angles of [`rope_table`].
fn rope(x: &mut [f32], head_dim: usize, table: &[(f32, f32)]) {
    for head in x.chunks_exact_mut(head_dim) {
        for (pair, &(sin, cos)) in head.chunks_exact_mut(2).zip(table) {
            let (a, b) = (pair[0], pair[1]);
            pair[0] = a * cos - b * sin;
            pair[1] = a * sin + b * cos;
        }
    }
}

/// `x` rounded to the nearest f16 (ties to even), as f32: what `f16::from_f32(x).to_f32()` gives,
/// by bit arithmetic for the normal f16 range and through `half` otherwise (zero, subnormals,
/// overflow, NaN).
#[inline]
pub fn round_f16(x: f32) -> f32 {
    let a = x.abs();
    if (6.103_515_6e-5..65504.0).contains(&a) {
        let b = x.to_bits();
        f32::from_bits((b + 0x0FFF + ((b >> 13) & 1)) & 0xFFFF_E000)
    } else {
        f16::from_f32(x).to_f32()
    }
}

/// The most likely next token.
pub fn argmax(logits: &[f32]) -> u32 {
    let mut best = 0;
    for (i, v) in logits.iter().enumerate() {
        if *v > logits[best] {
            best = i;
        }
    }
    best as u32
}

#[cfg(test)]
mod tests {
    use super::round_f16;
    use half::f16;

    #[test]
    fn rounding_to_f16_equals_halfs() {
        let mut x = 0x1234_5678u32;
        let special = [
            0.0,
            -0.0,
            1.0,
            65504.0,
            65519.0,
            65520.0,
            6.1e-5,
            6.2e-5,
            5.96e-8,
            1e-9,
            f32::INFINITY,
            f32::MAX,
            f32::MIN_POSITIVE,
        ];
        let randoms = (0..200_000).map(|_| {
            x ^= x << 13;
            x ^= x >> 17;
            x ^= x << 5;
            f32::from_bits(x)
        });
        for v in special
            .into_iter()
            .chain(special.map(|v| -v))
            .chain(randoms)
        {
            let want = f16::from_f32(v).to_f32();
            let got = round_f16(v);
            assert!(
                want.to_bits() == got.to_bits() || (want.is_nan() && got.is_nan()),
                "{v:e}: {got:e} vs {want:e}"
            );
        }
        // Every f16 value and the midpoints between neighbours (ties go to even).
        for b in 0..0x7C00u16 {
            let v = f16::from_bits(b).to_f32();
            let next = f16::from_bits(b + 1).to_f32();
            for v in [v, (v + next) / 2.0, -v] {
                assert_eq!(
                    round_f16(v).to_bits(),
                    f16::from_f32(v).to_f32().to_bits(),
                    "{v:e}"
                );
            }
        }
    }
}
