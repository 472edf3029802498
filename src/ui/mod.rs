//! Leptos components and application state. Components call into [`state`] and [`chat`];
//! rules live in `core`.

pub mod agent;
pub mod chat;
pub mod compact;
pub mod components;
pub mod context;
pub mod context_shell;
pub mod error_text;
pub mod mcp;
pub mod state;
pub mod summarize;
pub mod transfer;
pub mod turn_shell;

use components::app::App;

/// Mount the app on `<body>`.
pub fn mount() {
    leptos::mount::mount_to_body(App);
}
