//! The pure core of Satori: data model, wire formats and rules, with no IO.
//!
//! Invariant (enforced by `tests/tidy.rs`): nothing under `src/core/` uses `leptos`, `web_sys`,
//! `js_sys`, `gloo_*` or `wasm_bindgen`, reads a clock, draws random numbers or does IO. Time and
//! ids are passed in as arguments.

pub mod agent;
pub mod bpe;
pub mod bzpack;
pub mod chat_start;
pub mod context;
pub mod key_binding;
pub mod llm;
pub mod markdown;
pub mod packed;
pub mod persist;
pub mod prompts;
pub mod provider;
pub mod search;
pub mod session;
pub mod settings;
pub mod sse;
pub mod startup;
pub mod transfer;
pub mod turn;
pub mod window;
