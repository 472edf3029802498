//! ChatGPT's export in parts: newer exports split the chats over `conversations-000.json`,
//! `conversations-001.json`, … next to an `export_manifest.json`. They are picked together, or
//! come inside the export's `.zip` ([`super::zip`]); either way every part is read and checked
//! like a single file before anything is written, and the preview says which parts are missing
//! (numbers skipped, or named by the manifest but not picked) — their chats are not imported.
//! Claude's data export is a `.zip` with a `conversations.json` too: it is read the same way. A
//! conversation that cannot be read is skipped with its reason ([`import::Incoming::skipped`]).
//!
//! [`read`] reads parts held whole in memory (tests, and the reference the import worker's
//! reader, [`super::bundle`], is checked against); the pieces it is made of ([`read_part`],
//! [`manifest_parts`], [`notes`]) are that reader's too.

use super::error::MAX_STREAM_BYTES;
use super::import::{self, ImportError, Incoming};
use super::report::{Read, Skipped};
use super::stream::{ListFormat, NOT_A_PART};
use super::zip::{Entry, ZipError};
use serde_json::Value;
use std::collections::BTreeSet;

/// What a file of an export is, by its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `conversations.json` (`None`) or `conversations-NNN.json` (`Some(NNN)`).
    Conversations(Option<u32>),
    /// `export_manifest.json`.
    Manifest,
    /// Anything else (images, `user.json`, `chat.html`, …): not read.
    Other,
}

/// The kind of the file called `name` (folders ignored; macOS' `._` shadow files are other).
pub fn kind(name: &str) -> Kind {
    if name.contains("__MACOSX") {
        return Kind::Other;
    }
    let base = name.rsplit(['/', '\\']).next().unwrap_or(name);
    let lower = base.to_ascii_lowercase();
    if lower == "conversations.json" {
        return Kind::Conversations(None);
    }
    if lower == "export_manifest.json" {
        return Kind::Manifest;
    }
    lower
        .strip_prefix("conversations-")
        .and_then(|r| r.strip_suffix(".json"))
        .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|n| n.parse().ok())
        .map_or(Kind::Other, |n| Kind::Conversations(Some(n)))
}

/// The entries of an export's `.zip` worth reading, or why none is: the sum of their sizes
/// must stay within [`MAX_STREAM_BYTES`] (they are read one conversation at a time).
pub fn wanted(entries: Vec<Entry>) -> Result<Vec<Entry>, ImportError> {
    let all = entries.len();
    let picked: Vec<Entry> = entries
        .into_iter()
        .filter(|e| kind(&e.name) != Kind::Other)
        .collect();
    if !picked
        .iter()
        .any(|e| matches!(kind(&e.name), Kind::Conversations(_)))
    {
        return Err(ImportError::UnknownFormat(format!(
            "the archive holds {all} files, none of them conversations.json or conversations-NNN.json"
        )));
    }
    // What is read (stored bytes) and what it becomes, both within the limit; an entry stored
    // as is holds as many bytes as it declares.
    let bytes = picked
        .iter()
        .map(|e| e.size.max(e.compressed))
        .fold(0u64, u64::saturating_add);
    if let Some(e) = picked
        .iter()
        .find(|e| e.is_stored() && e.compressed != e.size)
    {
        return Err(ImportError::Archive(format!(
            "{} is damaged (its sizes do not match)",
            e.name
        )));
    }
    if bytes > MAX_STREAM_BYTES as u64 {
        return Err(ImportError::TooLargeTogether {
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
            limit: MAX_STREAM_BYTES,
        });
    }
    Ok(picked)
}

impl From<ZipError> for ImportError {
    fn from(e: ZipError) -> Self {
        ImportError::Archive(e.0)
    }
}

/// Read the parts of a ChatGPT export: `files` (name and text) — the conversation files and the
/// manifest, if picked — and `others`, how many other files came with them (not read).
pub fn read(files: Vec<(String, String)>, others: usize) -> Result<Incoming, ImportError> {
    let total: usize = files.iter().map(|(_, t)| t.len()).sum();
    if total > import::MAX_BYTES {
        return Err(ImportError::TooLargeTogether {
            bytes: total,
            limit: import::MAX_BYTES,
        });
    }
    let mut chats = Vec::new();
    let mut numbers = BTreeSet::new();
    let mut named = BTreeSet::new();
    let mut unread_manifest = false;
    let mut any = false;
    let mut claude = false;
    let mut files = files;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, text) in &files {
        match kind(name) {
            Kind::Conversations(n) => {
                any = true;
                numbers.extend(n);
                let (read, format) = read_part(name, text)?;
                claude |= format == Some(ListFormat::Claude);
                chats.extend(read);
            }
            Kind::Manifest => match manifest_parts(text) {
                Some(parts) => named.extend(parts),
                None => unread_manifest = true,
            },
            Kind::Other => {}
        }
    }
    if !any {
        return Err(ImportError::UnknownFormat(NO_PART.into()));
    }
    let mut incoming = import::gathered(chats, what(claude))?;
    incoming.notes = notes(&numbers, &named, others, unread_manifest);
    Ok(incoming)
}

/// Why files picked together are refused when none of them holds conversations.
pub const NO_PART: &str = "none of the files is conversations.json or conversations-NNN.json";

/// What an export in parts is, for sentences: Claude's when a part is a list of Claude's
/// conversations.
pub fn what(claude: bool) -> &'static str {
    if claude {
        "Claude's export"
    } else {
        "ChatGPT's export"
    }
}

/// A part's conversations, each read or skipped, and the format it is a list of.
pub type Part = (Vec<Result<Read, Skipped>>, Option<ListFormat>);

/// The conversations of part `name` (its whole `text`), each read or skipped with its reason
/// (an untitled one named with its part), and the format it is a list of (`None`: an empty
/// list); refused, with the part named, when it is not JSON or not such a list.
pub fn read_part(name: &str, text: &str) -> Result<Part, ImportError> {
    let in_file = |error: ImportError| ImportError::InFile {
        file: base(name).to_string(),
        error: Box::new(error),
    };
    let value = import::parse(text).map_err(in_file)?;
    let part = base(name);
    let of_part = |r: Result<Read, Skipped>| r.map_err(|s| s.of_part(part));
    // As in a single file, ChatGPT's conversations win over Claude's.
    let (read, format) = if super::chatgpt::looks_like(&value) {
        (super::chatgpt::read(&value), Some(ListFormat::ChatGpt))
    } else if super::claude::looks_like(&value) {
        // Claude's data export is a `.zip` with a `conversations.json` too.
        (super::claude::read(&value), Some(ListFormat::Claude))
    } else if value.as_array().is_some_and(Vec::is_empty) {
        (Vec::new(), None)
    } else {
        return Err(in_file(ImportError::UnknownFormat(NOT_A_PART.into())));
    };
    Ok((read.into_iter().map(of_part).collect(), format))
}

/// The part numbers the manifest (its `text`) names, or `None` when it cannot be read.
pub fn manifest_parts(text: &str) -> Option<Vec<u32>> {
    import::parse(text).ok().map(|v| shards_named(&v))
}

/// What the preview says of an export in parts: the manifest that could not be read, the parts
/// missing (`numbers`: those read; `named`: those the manifest names), the `others` files not
/// read.
pub fn notes(
    numbers: &BTreeSet<u32>,
    named: &BTreeSet<u32>,
    others: usize,
    unread_manifest: bool,
) -> Vec<String> {
    let mut notes = Vec::new();
    if unread_manifest {
        notes.push(
            "export_manifest.json could not be read, so the parts were not checked against it"
                .to_string(),
        );
    }
    // Parts skipped in the numbering, then parts the manifest names after the last one picked.
    // Counted, not listed: a hostile name (`conversations-4000000000.json`) costs nothing.
    let last = numbers.iter().next_back().copied();
    let gaps = last.map_or(0, |l| {
        (u64::from(l) + 1).saturating_sub(numbers.len() as u64)
    });
    let after: Vec<u32> = named
        .iter()
        .copied()
        .filter(|n| last.is_none_or(|l| *n > l))
        .collect();
    let missing = gaps + after.len() as u64;
    if missing > 0 {
        const SHOWN: usize = 5;
        let shown: Vec<String> = (0u32..)
            .filter(|n| !numbers.contains(n))
            .take(usize::try_from(gaps).unwrap_or(SHOWN).min(SHOWN))
            .chain(after.iter().copied())
            .take(SHOWN)
            .map(|n| format!("conversations-{n:03}.json"))
            .collect();
        let more = missing - shown.len() as u64;
        notes.push(format!(
            "{missing} {} of the export {} missing, so {} chats are not imported: {}{}",
            if missing == 1 { "part" } else { "parts" },
            if missing == 1 { "is" } else { "are" },
            if missing == 1 { "its" } else { "their" },
            shown.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        ));
    }
    if others > 0 {
        notes.push(format!(
            "{others} other {} of the export (images, account data) {} not read",
            if others == 1 { "file" } else { "files" },
            if others == 1 { "was" } else { "were" }
        ));
    }
    notes
}

/// The name without its folders.
pub fn base(name: &str) -> &str {
    name.rsplit(['/', '\\']).next().unwrap_or(name)
}

/// The part numbers an export manifest names (any string in it that is a part's file name:
/// the manifest's layout is not documented, so only its file names are trusted).
fn shards_named(value: &Value) -> Vec<u32> {
    let mut out = Vec::new();
    let mut stack = vec![value];
    while let Some(v) = stack.pop() {
        match v {
            Value::String(s) => {
                if let Kind::Conversations(Some(n)) = kind(s) {
                    out.push(n);
                }
            }
            Value::Array(a) => stack.extend(a),
            Value::Object(o) => {
                for (k, v) in o {
                    if let Kind::Conversations(Some(n)) = kind(k) {
                        out.push(n);
                    }
                    stack.push(v);
                }
            }
            _ => {}
        }
    }
    out
}
