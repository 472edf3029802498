//! Sync between devices, the pure part: what is merged and how. A device keeps, per chat, the
//! record as last synced ([`doc::Doc`]); a change to the chat is recorded into it with stamps of
//! the device's hybrid logical clock ([`clock`]), key by key ([`chat::view_of`]); records from
//! other devices are merged in, never overwriting: messages by id, fields by the later write,
//! deletions removing what was written before them. Nothing here reads a clock or touches the
//! network; the wall time and the device's id are arguments.
//!
//! Deletions: a deleted record keeps only its deletion stamp (a few dozen bytes) in its object,
//! kept for good: a device that comes back after any time offline with edits older than the
//! deletion does not bring the chat back, and an edit made after the deletion keeps the chat.
//! [`engine`] is one pass over every chat: this device's changes recorded, the folder's records
//! merged in, what to store, remove and upload; [`templates`] the same for the prompt templates;
//! [`log`] the folder's write log, which spares a pass the listing of the whole folder.

pub mod chat;
pub mod clock;
pub mod doc;
pub mod engine;
pub mod envelope;
pub mod log;
pub mod pass;
pub mod templates;
pub mod webdav;
