//! Why a file cannot be imported: one error type for every reader of imported files
//! ([`super::import`], [`super::chatgpt`], [`super::apps`], [`super::parts`]), so that none of them
//! imports another for it.

/// The largest file Satori reads, bytes. Browser storage holds about 5 MB, so a larger export
/// could not be kept anyway.
pub const MAX_BYTES: usize = 50 * 1000 * 1000;
/// The largest list of conversations Satori reads (ChatGPT's, Claude's or Open WebUI's export),
/// bytes: such a list is read one conversation at a time in the import worker
/// ([`super::stream`]), never held whole; heavy ChatGPT users' exports are about 200 MB.
pub const MAX_STREAM_BYTES: usize = 1000 * 1000 * 1000;
/// The deepest nesting read (measured before parsing; a LibreChat export nests each reply in the
/// one before, two levels a message, so a branch of 1 000 messages; Satori's own files nest 6
/// deep). JSON is parsed recursively, and in the browser the engine's own stack bounds that:
/// Chromium's import worker read 2 400 levels and failed at 3 000.
pub const MAX_DEPTH: usize = 2_000;

/// Why a file cannot be imported. Nothing has been written when one of these is returned.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ImportError {
    /// Larger than [`MAX_BYTES`].
    #[error("the file is {}, larger than the {} Satori imports", mb(*bytes), mb(*limit))]
    TooLarge {
        /// Its size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// Empty or only whitespace.
    #[error("the file is empty")]
    Empty,
    /// Not JSON.
    #[error("the file is not valid JSON: {message} (line {line}, column {column})")]
    Syntax {
        /// serde_json's words.
        message: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
    },
    /// Nested deeper than [`MAX_DEPTH`].
    #[error("the file nests deeper than {MAX_DEPTH} levels (line {line}, column {column}); Satori does not read it")]
    TooDeep {
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
    },
    /// JSON, but no format Satori knows.
    #[error("Satori does not recognise this file ({0}); it imports Satori exports, ChatGPT's export (conversations.json, its parts or its .zip), Claude's conversations.json, Open WebUI and LibreChat exports, NextChat backups and BetterChatGPT exports")]
    UnknownFormat(String),
    /// A Satori export newer than this version reads.
    #[error("the file is a Satori export of format version {found}, newer than this Satori reads (version {supported}); update Satori to import it")]
    NewerVersion {
        /// The file's version.
        found: u64,
        /// The newest this Satori reads.
        supported: u32,
    },
    /// The parts of an export together are larger than [`MAX_BYTES`].
    #[error("the export's conversations take {}, more than the {} Satori imports", mb(*bytes), mb(*limit))]
    TooLargeTogether {
        /// Their size.
        bytes: usize,
        /// The limit.
        limit: usize,
    },
    /// A `.zip` that cannot be read.
    #[error("the archive cannot be read: {0}")]
    Archive(String),
    /// One file of several.
    #[error("{file}: {error}")]
    InFile {
        /// Its name.
        file: String,
        /// What is wrong with it.
        error: Box<ImportError>,
    },
    /// A recognised export of which not one chat can be read.
    #[error("the file is {what}, but none of its {count} chats can be read (the first, {first})")]
    NoneReadable {
        /// What the file was recognised as (`ChatGPT's export`).
        what: String,
        /// How many chats it holds.
        count: usize,
        /// The first one skipped and why.
        first: String,
    },
    /// A field is missing or wrong.
    #[error("{path}: {problem}")]
    Schema {
        /// Where (`chats[3].messages[12].role`).
        path: String,
        /// What is wrong.
        problem: String,
    },
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}
