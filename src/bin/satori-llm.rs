//! The in-browser model (`satori::core::llm`) as a wasm module of its own, built with SIMD128 and
//! run in a Web Worker (`src/web/llm-worker.js`): the model file arrives piece by piece into a
//! [`Loader`], a [`Counter`] counts tokens from the file's first piece alone, and a [`Chat`]
//! answers requests a step at a time so the worker can stop between steps. [`bench`] serves the
//! speed benchmark `tests/bench/llm.sh`.

use satori::core::llm::engine::{check_head, fits, Engine, Step};
use satori::core::llm::gguf;
use satori::core::llm::model::{argmax, Model, BATCH};
use satori::core::llm::request;
use satori::core::llm::tokenizer::{chat_prompt, Tokenizer};
use wasm_bindgen::prelude::wasm_bindgen;

/// The model file, gathered in wasm memory piece by piece (the page never holds it whole).
#[wasm_bindgen]
pub struct Loader {
    bytes: Vec<u8>,
    total: usize,
}

#[wasm_bindgen]
impl Loader {
    /// Room for a file of `total` bytes.
    #[wasm_bindgen(constructor)]
    pub fn new(total: usize) -> Result<Loader, String> {
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(total)
            .map_err(|_| format!("not enough memory for the model ({total} bytes)"))?;
        Ok(Loader { bytes, total })
    }

    /// Appends the next piece.
    pub fn push(&mut self, piece: &[u8]) -> Result<(), String> {
        if self.bytes.len() + piece.len() > self.total {
            return Err("the model's pieces are longer than the file".into());
        }
        self.bytes.extend_from_slice(piece);
        Ok(())
    }
}

/// Counts tokens with the model's tokenizer, read from the start of the file.
#[wasm_bindgen]
pub struct Counter {
    tok: Tokenizer,
}

#[wasm_bindgen]
impl Counter {
    /// The tokenizer in `head`, the first bytes of the model file (its metadata).
    #[wasm_bindgen(constructor)]
    pub fn new(head: &[u8]) -> Result<Counter, String> {
        let meta = gguf::read_meta(head).map_err(|e| e.to_string())?;
        Ok(Counter {
            tok: Tokenizer::load(&meta).map_err(|e| e.to_string())?,
        })
    }

    /// Tokens in `text` (the chat template's markers count as one each).
    pub fn count(&self, text: &str) -> usize {
        self.tok.encode(text).len()
    }

    /// Checks the `/chat/completions` request `body` before the weights are needed: the
    /// prompt's token count, or an error text starting with `400 ` (not a request, or a prompt
    /// the `window` cannot hold).
    pub fn check(&self, body: &str, window: usize) -> Result<usize, String> {
        let r = request::parse(body).map_err(|e| format!("400 {e}"))?;
        let n = self.tok.encode(&chat_prompt(&r.pairs())).len();
        fits(n, window).map_err(|e| format!("400 {e}"))?;
        Ok(n)
    }
}

/// A conversation with the model.
#[wasm_bindgen]
pub struct Chat {
    engine: Engine,
}

#[wasm_bindgen]
impl Chat {
    /// Loads the gathered file with a window of `window` tokens.
    #[wasm_bindgen(constructor)]
    pub fn new(loader: Loader, window: usize) -> Result<Chat, String> {
        if loader.bytes.len() != loader.total {
            return Err("the model file is incomplete".into());
        }
        Ok(Chat {
            engine: Engine::load(loader.bytes, window).map_err(|e| e.to_string())?,
        })
    }

    /// Starts answering the `/chat/completions` request `body` (`seed` when it has none).
    /// Returns the prompt's token count and how many were reused from the cache, as
    /// `"prompt reused"`; an error text starting with `400 ` is the request's fault.
    pub fn start(&mut self, body: &str, seed: f64) -> Result<String, String> {
        let r = request::parse(body).map_err(|e| format!("400 {e}"))?;
        let seed = r.seed.unwrap_or(seed as u64);
        let started = self
            .engine
            .start(&r.pairs(), r.max_tokens, r.sampling, seed)
            .map_err(|e| format!("400 {e}"))?;
        Ok(format!("{} {}", started.prompt_tokens, started.reused))
    }

    /// One step: `"r{read}/{of}"` (reading the prompt), `"t{text}"` (a token), `"d{reason} {text}"`
    /// (the end: `stop` or `length`, and any text held back) or `"i"` (idle).
    pub fn step(&mut self) -> String {
        match self.engine.step() {
            Step::Reading(n, of) => format!("r{n}/{of}"),
            Step::Text(t) => format!("t{t}"),
            Step::Done(why, rest) => format!("d{} {rest}", why.as_str()),
            Step::Idle => "i".into(),
        }
    }

    /// Drops the answer under way.
    pub fn stop(&mut self) {
        self.engine.stop();
    }
}

/// Checks a model file of `total` bytes that the user picked, from its first bytes `head`: `""`
/// when more of it is needed, else its shape as JSON (`layers`, `width`, `vocab`, `context`), or
/// the reason this engine cannot run it.
#[wasm_bindgen]
pub fn check_file(head: &[u8], total: usize) -> Result<String, String> {
    Ok(match check_head(head, total).map_err(|e| e.to_string())? {
        None => String::new(),
        Some(c) => serde_json::json!({
            "layers": c.n_layer,
            "width": c.n_embd,
            "vocab": c.vocab,
            "context": c.train_ctx,
        })
        .to_string(),
    })
}

fn now() -> f64 {
    js_sys::Date::now()
}

/// Loads the GGUF `bytes`, reads `question` as a chat, then decodes `decode` tokens greedily;
/// then fills the context to `deep` tokens and decodes `decode` more there. Resolves to the
/// timings as JSON (ms; tokens/s) and the answer's text.
#[wasm_bindgen]
pub fn bench(bytes: Vec<u8>, question: &str, decode: u32, deep: u32) -> Result<String, String> {
    if decode == 0 || decode > 1024 {
        return Err("decode between 1 and 1024 tokens".into());
    }
    let t0 = now();
    let tok = Tokenizer::load(&gguf::read(&bytes).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let model = Model::load(bytes).map_err(|e| e.to_string())?;
    let t1 = now();
    let prompt = tok.encode(&chat_prompt(&[("user", question)]));
    let mut s = model.state(2048);
    let chunks = prompt.chunks(BATCH).count();
    for (i, chunk) in prompt.chunks(BATCH).enumerate() {
        model.feed(&mut s, chunk, i + 1 == chunks);
    }
    let t2 = now();
    let mut answer = Vec::new();
    for _ in 0..decode {
        let next = argmax(&s.logits);
        answer.push(next);
        if !model.step(&mut s, next) {
            return Err("the context is full".into());
        }
    }
    let t3 = now();
    // A long context: the same text again until `deep` tokens (room left for the decoding),
    // then decode there.
    let filler = tok.encode(" The quick brown fox jumps over the lazy dog.");
    let deep = (deep as usize).min(2048 - decode as usize).max(s.pos);
    let fill: Vec<u32> = filler.iter().copied().cycle().take(deep - s.pos).collect();
    let chunks = fill.chunks(BATCH).count();
    for (i, chunk) in fill.chunks(BATCH).enumerate() {
        if !model.feed(&mut s, chunk, i + 1 == chunks) {
            return Err("the context is full".into());
        }
    }
    let filled = fill.len();
    let t4 = now();
    for _ in 0..decode {
        let next = argmax(&s.logits);
        if !model.step(&mut s, next) {
            return Err("the context is full".into());
        }
    }
    let t5 = now();
    let per_s = |n: f64, ms: f64| if ms > 0.0 { n * 1000.0 / ms } else { 0.0 };
    Ok(serde_json::json!({
        "load_ms": t1 - t0,
        "prompt_tokens": prompt.len(),
        "prefill_tok_s": per_s(prompt.len() as f64, t2 - t1),
        "first_token_ms": t2 - t1,
        "decode_tok_s": per_s(f64::from(decode), t3 - t2),
        "deep_fill_tok_s": per_s(filled as f64, t4 - t3),
        "deep_decode_tok_s": per_s(f64::from(decode), t5 - t4),
        "answer": String::from_utf8_lossy(&tok.decode(&answer)),
    })
    .to_string())
}

fn main() {}
