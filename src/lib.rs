//! Satori: a browser-only chat client for OpenAI-compatible LLM APIs.
//!
//! Three layers, each depending only on the ones before it:
//! - [`core`]: pure Rust (no browser crates, no clock, no randomness, no IO).
//! - [`adapters`]: thin wrappers over browser APIs with typed errors.
//! - [`ui`]: Leptos components and application state; no business rules.

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub mod adapters;
pub mod core;
pub mod ui;
