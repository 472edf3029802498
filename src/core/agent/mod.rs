//! Agent mode, the pure part: the tools built into Satori, the checks a model's tool arguments
//! and structured output go through, and the ReAct text protocol for servers without function
//! calling. The shell that runs the loop (requests, MCP servers, the clock) lives in
//! `crate::ui`; nothing here does IO.

pub mod calc;
pub mod react;
pub mod recall;
pub mod repair;
pub mod schema;
pub mod tools;
