//! The OpenAI-compatible chat-completions protocol: request bodies, stream chunks, errors.

pub mod error;
pub mod models;
pub mod request;
pub mod server;
pub mod stream;
