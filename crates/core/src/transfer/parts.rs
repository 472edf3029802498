//! ChatGPT's export in parts: newer exports split the chats over `conversations-000.json`,
//! `conversations-001.json`, … next to an `export_manifest.json`. They are picked together, or
//! come inside the export's `.zip` ([`super::zip`]); either way every part is read and checked
//! like a single file before anything is written, and the preview says which parts are missing
//! (numbers skipped, or named by the manifest but not picked) — their chats are not imported.
//! Claude's data export is a `.zip` with a `conversations.json` too: it is read the same way. A
//! conversation that cannot be read is skipped with its reason ([`import::Incoming::skipped`]).

use super::import::{self, ImportError, Incoming};
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
/// must stay within [`import::MAX_BYTES`].
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
    if bytes > import::MAX_BYTES as u64 {
        return Err(ImportError::TooLargeTogether {
            bytes: usize::try_from(bytes).unwrap_or(usize::MAX),
            limit: import::MAX_BYTES,
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
    let mut notes = Vec::new();
    let mut any = false;
    let mut what = "ChatGPT's export";
    let mut files = files;
    files.sort_by(|a, b| a.0.cmp(&b.0));
    for (name, text) in &files {
        let in_file = |error: ImportError| ImportError::InFile {
            file: base(name).to_string(),
            error: Box::new(error),
        };
        match kind(name) {
            Kind::Conversations(n) => {
                any = true;
                numbers.extend(n);
                let value = import::parse(text).map_err(in_file)?;
                let empty = value.as_array().is_some_and(Vec::is_empty);
                let part = base(name).to_string();
                let of_part = |r: Result<_, super::report::Skipped>| r.map_err(|s| s.of_part(&part));
                if super::claude::looks_like(&value) {
                    // Claude's data export is a `.zip` with a `conversations.json` too.
                    what = "Claude's export";
                    chats.extend(super::claude::read(&value).into_iter().map(of_part));
                } else if empty || super::chatgpt::looks_like(&value) {
                    chats.extend(super::chatgpt::read(&value).into_iter().map(of_part));
                } else {
                    return Err(in_file(ImportError::UnknownFormat(
                        "it is not a list of ChatGPT or Claude conversations".into(),
                    )));
                }
            }
            Kind::Manifest => match import::parse(text) {
                Ok(value) => named.extend(shards_named(&value)),
                Err(_) => notes.push(
                    "export_manifest.json could not be read, so the parts were not checked against it"
                        .to_string(),
                ),
            },
            Kind::Other => {}
        }
    }
    if !any {
        return Err(ImportError::UnknownFormat(
            "none of the files is conversations.json or conversations-NNN.json".into(),
        ));
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
    let mut incoming = import::gathered(chats, what)?;
    incoming.notes = notes;
    Ok(incoming)
}

fn base(name: &str) -> &str {
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
