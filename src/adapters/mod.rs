//! Thin wrappers over browser APIs, each with a typed error and no business rules.

pub mod approval;
pub mod attachments;
pub mod clock;
pub mod compression;
pub mod crypto;
pub mod dialogs_module;
pub mod download;
pub mod fetch;
pub mod idb;
pub mod import_worker;
pub mod js;
pub mod keyboard;
pub mod language;
pub mod lock;
pub mod markdown_module;
pub mod menus;
pub mod modules;
pub mod storage;
pub mod tables;
pub mod theme;
pub mod webdav;
