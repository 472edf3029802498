//! The in-browser model (`satori::core::llm`) as a wasm module of its own. Not yet part of the
//! app — the worker, the provider and the download come next —; today it serves the speed
//! benchmark `tests/bench/llm.sh`, built with SIMD128.

use satori::core::llm::gguf;
use satori::core::llm::model::{argmax, Model};
use satori::core::llm::tokenizer::{chat_prompt, Tokenizer};
use wasm_bindgen::prelude::wasm_bindgen;

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
    for &t in &prompt {
        model.step(&mut s, t);
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
    let from = s.pos;
    'fill: while s.pos < deep {
        for &t in &filler {
            if s.pos >= deep || !model.step(&mut s, t) {
                break 'fill;
            }
        }
    }
    let filled = s.pos - from;
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
