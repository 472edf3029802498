//! Leptos components and application state. Components call into [`state`] and [`chat`];
//! rules live in `core`, the Leptos-free browser work in `shell`.

pub mod actions;
pub mod agent;
pub mod chat;
pub mod components;
pub mod context;
pub mod state;
pub mod transfer;

use components::app::App;

/// Mount the app on `<body>`.
pub fn mount() {
    leptos::mount::mount_to_body(App);
}
