//! One component per file.

pub mod agent_dialog;
pub mod alert;
pub mod app;
pub mod chat_dialogs;
pub mod chat_setup;
pub mod composer;
pub mod context_inspector;
pub mod conversation;
pub mod form;
pub mod icon;
pub mod inspector;
pub mod mcp_settings;
pub mod message;
pub mod modal;
pub mod model_dialog;
pub mod palette_dialog;
pub mod prompts_dialog;
pub mod search_dialog;
pub mod settings_dialog;
pub mod setup_dialog;
pub mod share_dialog;
pub mod sidebar;
pub mod sync_settings;
pub mod system_dialog;
pub mod transfer_dialog;
