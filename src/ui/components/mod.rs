//! One component per file.

pub mod alert;
pub mod app;
pub mod chat_dialogs;
pub mod composer;
pub mod conversation;
pub mod message;
pub mod modal;
pub mod settings_dialog;
pub mod sidebar;
