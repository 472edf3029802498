//! Satori: a browser-only chat client for OpenAI-compatible LLM APIs.
//!
//! Four layers, each depending only on the ones before it:
//! - [`core`]: pure Rust (no browser crates, no clock, no randomness, no IO): the workspace crate
//!   `satori-core` (`crates/core`), whose dependencies Cargo keeps free of browser crates.
//! - [`adapters`]: thin wrappers over browser APIs with typed errors.
//! - [`shell`]: Leptos-free browser work (a turn, a request, packing, MCP, error texts), shared by
//!   the app and the lazy wasm modules.
//! - [`ui`]: Leptos components and application state; no business rules.

#[cfg(all(target_arch = "wasm32", not(target_feature = "atomics")))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

pub use satori_core as core;

pub mod adapters;
pub mod shell;
pub mod ui;
