//! The Leptos-free browser side of Satori: what runs a turn ([`turn`]), builds and counts a
//! request ([`context`], [`request`]), summarizes ([`summarize`]), packs resting chats ([`compact`]), talks to
//! MCP servers ([`mcp`]), syncs through a WebDAV folder ([`sync`]), carries, restores and frees attached files ([`files`]), reads and imports the stored chats as a whole ([`store`]) and words every error ([`error_text`]). It runs in the app and in the
//! lazy wasm modules of `src/bin/`; it uses `core` for every decision and `adapters` for IO, and
//! never `ui`.

pub mod compact;
pub mod context;
pub mod error_text;
pub mod files;
pub mod mcp;
pub mod request;
pub mod store;
pub mod summarize;
pub mod sync;
pub mod sync_error;
pub mod turn;
