//! Sync between devices, the pure part: what is merged and how. A device keeps, per chat, the
//! record as last synced ([`doc::Doc`]); a change to the chat is recorded into it with stamps of
//! the device's hybrid logical clock ([`clock`]), key by key ([`chat::view_of`]); records from
//! other devices are merged in, never overwriting: messages by id, fields by the later write,
//! deletions removing what was written before them. Nothing here reads a clock or touches the
//! network; the wall time and the device's id are arguments.
//!
//! Deletions: a deleted record keeps its deletion stamp (a few dozen bytes) in its object; a
//! device that comes back after weeks offline with edits older than the deletion does not bring
//! the chat back. [`TOMBSTONE_DAYS`] is how long the engine (not built yet) is to keep them; the
//! rule for a device offline longer than that — download before upload, and drop what the
//! folder no longer has instead of writing it back — is the engine's to keep too:
//! [`pass::uploads`] as it stands writes a record the folder lacks back as new.

pub mod chat;
pub mod clock;
pub mod doc;
pub mod envelope;
pub mod pass;
pub mod webdav;

/// How long a deletion is kept, days.
pub const TOMBSTONE_DAYS: i64 = 400;
