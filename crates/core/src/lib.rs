//! The pure core of Satori: data model, wire formats and rules, with no IO.
//!
//! Invariants: Cargo resolves no browser crate into this crate (`leptos`, `web-sys`, `js-sys`,
//! `wasm-bindgen`, `gloo-*`; checked by `tests/tidy.rs` with `cargo tree`), and nothing here reads
//! a clock, draws random numbers or does IO (checked by the same test, by text). Time and ids are
//! passed in as arguments. The app re-exports this crate as `satori::core`.

pub mod agent;
pub mod attachment;
pub mod bpe;
pub mod bzpack;
pub mod calls;
pub mod chat_list;
pub mod chat_start;
pub mod context;
pub mod hidden;
pub mod key_binding;
pub mod keys;
pub mod llm;
pub mod markdown;
pub mod model_pick;
pub mod packed;
pub mod palette;
pub mod persist;
pub mod prompts;
pub mod protocol;
pub mod provider;
pub mod reply_meta;
pub mod saving;
pub mod search;
pub mod session;
pub mod settings;
pub mod sse;
pub mod startup;
pub mod sync;
pub mod transfer;
pub mod turn;
pub mod window;
