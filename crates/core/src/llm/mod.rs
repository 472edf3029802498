//! A language model that runs in the page: SmolLM2-135M-Instruct from its GGUF file, computed
//! the way llama.cpp computes it (so the same weights give the same greedy answer), with its own
//! tokenizer, chat template and sampler. Pure: the bytes come in, tokens and text go out. The
//! worker of the `satori-llm` module runs an [`engine::Engine`] (`tests/llm.rs` checks it against
//! llama.cpp).

pub mod engine;
pub mod gguf;
pub mod kquant;
pub mod model;
pub mod quant;
pub mod request;
pub mod sample;
pub mod tokenizer;
