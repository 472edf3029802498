//! A language model that runs in the page: SmolLM2-135M-Instruct from its GGUF file, computed
//! the way llama.cpp computes it (so the same weights give the same greedy answer), with its own
//! tokenizer and chat template. Pure: the bytes come in, tokens and logits go out. Not yet part
//! of the app: the worker, the provider and the download come next (`tests/llm.rs` checks it
//! against llama.cpp).

pub mod gguf;
pub mod model;
pub mod quant;
pub mod tokenizer;
