//! Attached files beyond the chat they were sent in (in the dialogs module): carried by an export
//! as a `.zip` with the export file (`core::transfer::archive`), restored from one by an import —
//! each checked against its hash before it is kept —, and freed once no stored chat names them.

use crate::adapters::attachments;
use crate::adapters::js::JsError;
use crate::adapters::storage::Store;
use crate::core::persist;
use crate::core::transfer::archive::{self, Carried, EXPORT_JSON};
use crate::core::transfer::error::MAX_BYTES;
use crate::core::transfer::zip::{self, Entry};
use std::collections::{BTreeMap, BTreeSet};
use wasm_bindgen_futures::JsFuture;

/// A file another tab attached within this long is kept by a sweep: it may be in that tab's
/// composer, not yet sent.
pub const RECENT_MS: f64 = 3_600_000.0;

/// Bytes of one file an import restores, at most (what is attached is at most 25 MB).
const MAX_FILE: u64 = 64 << 20;

fn js(e: wasm_bindgen::JsValue) -> String {
    JsError::from(e).message
}

/// Free the files that no stored record (chat, draft, anything of Satori's) and nothing on this
/// page names. `composer`: what the page names (the lines its chips hold, the messages it
/// shows — the open chat's, saved or not), `None` while a file is being read in the composer
/// (nothing is freed then). While a stored chat cannot be read, every file is kept. How many
/// were freed.
pub async fn sweep(store: &Store, composer: Option<&str>) -> Result<u32, String> {
    let Some(composer) = composer else {
        return Ok(0);
    };
    let stored = crate::shell::store::stored_chats(store)?;
    if !stored.unreadable.is_empty() {
        return Ok(0);
    }
    // Every hash a message's files name, whether this version reads its lines or not.
    let mut named: BTreeSet<String> = stored
        .chats
        .iter()
        .flat_map(|c| &c.messages)
        .flat_map(|m| archive::hashes_in(&m.attachments))
        .collect();
    named.extend(archive::hashes_in(composer));
    // Every record as it is stored (chats in parts, drafts, backups): whatever hash it holds.
    for key in store.keys(persist::PREFIX).map_err(|e| e.to_string())? {
        if let Ok(Some(text)) = store.get(&key) {
            if !persist::is_packed(&text) {
                named.extend(archive::hashes_in(&text));
            }
        }
    }
    let named: Vec<String> = named.into_iter().collect();
    attachments::sweep(&named, RECENT_MS).await
}

/// A `.zip` made by [`export_archive`].
pub struct Archive {
    /// The archive.
    pub zip: web_sys::Blob,
    /// Files in it (a PDF's extracted text beside it not counted).
    pub files: usize,
    /// Files this browser holds but could not read (left out).
    pub unreadable: usize,
}

/// The export file `text` and the files `carried` that this browser holds, as a `.zip`
/// (`core::transfer::archive`), dated `now`; `None` when it holds none of them (and could read
/// all it holds: a file it could not read is said even when no other went in). The files' bytes
/// go into the archive as the browser keeps them (read once each, for their checksum); one that
/// cannot be read is left out and counted.
pub async fn export_archive(
    text: &str,
    carried: &[Carried],
    now: i64,
) -> Result<Option<Archive>, String> {
    let parts = js_sys::Array::new();
    let mut writer = zip::Writer::new(now);
    let json = text.as_bytes();
    let header = writer
        .entry(EXPORT_JSON, json.len() as u64, zip::crc32(json))
        .map_err(|e| e.to_string())?;
    parts.push(&js_sys::Uint8Array::from(header.as_slice()));
    parts.push(&js_sys::Uint8Array::from(json));
    let (mut files, mut unreadable) = (0, 0);
    for c in carried {
        let blob = match attachments::blob(&c.hash).await {
            Ok(Some(blob)) => blob,
            Ok(None) => continue,
            Err(_) => {
                unreadable += 1;
                continue;
            }
        };
        let Ok(bytes) = bytes_of(&blob).await else {
            unreadable += 1;
            continue;
        };
        let header = writer
            .entry(&c.entry, bytes.len() as u64, zip::crc32(&bytes))
            .map_err(|e| e.to_string())?;
        parts.push(&js_sys::Uint8Array::from(header.as_slice()));
        parts.push(&blob);
        files += usize::from(!c.extracted);
    }
    if parts.length() == 2 && unreadable == 0 {
        return Ok(None);
    }
    parts.push(&js_sys::Uint8Array::from(writer.finish().as_slice()));
    let options = web_sys::BlobPropertyBag::new();
    options.set_type("application/zip");
    let zip = web_sys::Blob::new_with_blob_sequence_and_options(&parts, &options).map_err(js)?;
    Ok(Some(Archive {
        zip,
        files,
        unreadable,
    }))
}

async fn bytes_of(blob: &web_sys::Blob) -> Result<Vec<u8>, String> {
    let buffer = JsFuture::from(blob.array_buffer()).await.map_err(js)?;
    Ok(js_sys::Uint8Array::new(&buffer).to_vec())
}

/// `len` bytes of `file` from `from` (fewer at its end).
async fn slice(file: &web_sys::Blob, from: u64, len: u64) -> Result<Vec<u8>, String> {
    let part = file
        .slice_with_f64_and_f64(from as f64, from.saturating_add(len) as f64)
        .map_err(js)?;
    bytes_of(&part).await
}

/// The entries of the `.zip` `file`; `None` when it cannot be read as one (the import worker
/// then says why).
pub async fn listing(file: &web_sys::File) -> Result<Option<Vec<Entry>>, String> {
    let len = file.size() as u64;
    let tail = slice(file, len.saturating_sub(zip::TAIL), zip::TAIL).await?;
    let dir = match zip::end(&tail, len) {
        Ok(zip::End::Directory(d)) => d,
        Ok(zip::End::Zip64At(at)) => {
            match zip::zip64_directory(&slice(file, at, zip::ZIP64_RECORD).await?, len) {
                Ok(d) => d,
                Err(_) => return Ok(None),
            }
        }
        Err(_) => return Ok(None),
    };
    Ok(zip::entries(&slice(file, dir.offset, dir.size).await?).ok())
}

/// The export file of Satori's `.zip` `file` (whose `entries` are listed), to be read as any
/// export file is; `None` when it is another app's export.
pub async fn satori_json(
    file: &web_sys::File,
    entries: &[Entry],
) -> Result<Option<web_sys::File>, String> {
    let Some(json) = entries.iter().find(|e| e.name == EXPORT_JSON) else {
        return Ok(None);
    };
    if json.size > MAX_BYTES as u64 {
        return Err(format!(
            "its {EXPORT_JSON} is larger than Satori reads ({} MB)",
            MAX_BYTES / 1_000_000
        ));
    }
    let bytes = extract(file, json).await?;
    web_sys::File::new_with_u8_array_sequence(
        &js_sys::Array::of1(&js_sys::Uint8Array::from(bytes.as_slice())),
        EXPORT_JSON,
    )
    .map(Some)
    .map_err(js)
}

/// `entry`'s content, read from `file` and checked against its CRC-32. Its stored bytes may
/// be at most a little more than its size (deflate's worst case): a directory that declares more
/// is damaged, and never makes the page read it.
async fn extract(file: &web_sys::Blob, entry: &Entry) -> Result<Vec<u8>, String> {
    if entry.compressed
        > entry
            .size
            .saturating_add(entry.size / 100)
            .saturating_add(1024)
    {
        return Err(format!("{}: its stored size is damaged", entry.name));
    }
    let header = slice(file, entry.local, zip::LOCAL_HEADER).await?;
    let start = zip::data_start(entry, &header).map_err(|e| e.to_string())?;
    let data = slice(file, start, entry.compressed).await?;
    zip::extract(entry, &data).map_err(|e| e.to_string())
}

/// Why files cannot be restored where the page has no WebCrypto.
pub const NOT_CHECKED: &str = "this page cannot check files (the browser offers no SHA-256 outside https and localhost), so none was restored";

/// What restoring the files of an import did.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Restored {
    /// Files kept anew.
    pub restored: usize,
    /// Files left out: damaged, or their bytes are not what their name says.
    pub damaged: usize,
}

fn kept_error(message: String) -> JsError {
    JsError {
        name: String::new(),
        message,
    }
}

/// Keep, from Satori's `.zip` `file`, each file of its `entries` that `needed` names (hash →
/// the type it is kept with) and this browser does not hold yet — only once its bytes hash to
/// its name — while `open()` (the dialog is still there). A full storage stops it with the error
/// (the files kept so far stay, named by nothing until the chats are imported, and are freed by
/// the next sweep); a damaged file is counted and left out.
pub async fn restore(
    file: &web_sys::File,
    entries: &[Entry],
    needed: &BTreeMap<String, String>,
    open: &dyn Fn() -> bool,
) -> Result<Restored, JsError> {
    // Those kept already are marked as attached now, so another tab's sweep leaves them be
    // until the chats naming them are written; what the mark does not find is restored.
    let names: Vec<String> = needed.keys().cloned().collect();
    let mut kept: BTreeSet<String> = attachments::touch(&names)
        .await
        .map_err(kept_error)?
        .into_iter()
        .collect();
    let mut out = Restored::default();
    let files = entries
        .iter()
        .filter_map(|e| Some((archive::entry_hash(&e.name)?, e)));
    for (hash, entry) in files {
        if !open() {
            break;
        }
        let Some(mime) = needed.get(&hash) else {
            continue;
        };
        if kept.contains(&hash) {
            continue;
        }
        let bytes = match entry.size {
            n if n > MAX_FILE => None,
            _ => extract(file, entry).await.ok(),
        };
        let checked = match bytes {
            // (No WebCrypto outside a secure context: nothing can be checked, so nothing is kept.)
            Some(bytes) => (attachments::sha256(&bytes)
                .await
                .map_err(|_| kept_error(NOT_CHECKED.into()))?
                == *hash)
                .then_some(bytes),
            None => None,
        };
        let Some(bytes) = checked else {
            out.damaged += usize::from(entry.name.starts_with(archive::FILES));
            continue;
        };
        attachments::put(&hash, mime, &bytes).await?;
        kept.insert(hash);
        // (A PDF's text beside it is not a file of its own to the user.)
        out.restored += usize::from(entry.name.starts_with(archive::FILES));
    }
    Ok(out)
}

/// The largest picture another app's export may bring, as Satori's own attachments: bytes, and
/// pixels.
const MOST_PICTURE_BYTES: u64 = 25_000_000;
const MOST_PICTURE_PIXELS: u64 = 50_000_000;

/// Keep, from another app's `.zip` `file` (ChatGPT's export), each image of its `entries` that
/// the imported chats want ([`archive::wanted`]), while `open()`: found by its id (the first of
/// the entries named so whose first bytes say it is a PNG, JPEG, GIF or WebP, within Satori's
/// limits for an attached picture: 25 MB, 50 megapixels). The attachment line of each found (by
/// id) for [`archive::resolve`], and what was restored; a full storage stops it with the error.
pub async fn restore_wanted(
    file: &web_sys::File,
    entries: &[Entry],
    wanted: &[archive::Wanted],
    open: &dyn Fn() -> bool,
) -> Result<(BTreeMap<String, String>, Restored), JsError> {
    use crate::core::attachment::{Attachment, Kind};
    let mut found = BTreeMap::new();
    let mut out = Restored::default();
    let by_name = archive::Holders::new(entries);
    for w in wanted {
        if !open() {
            break;
        }
        let mut candidates = by_name.of(&w.id).peekable();
        if candidates.peek().is_none() {
            continue;
        }
        let mut picture = None;
        for entry in candidates {
            if entry.size > MOST_PICTURE_BYTES {
                continue;
            }
            let Ok(bytes) = extract(file, entry).await else {
                continue;
            };
            match archive::sniff(&bytes) {
                Some((mime, width, height))
                    if u64::from(width) * u64::from(height) <= MOST_PICTURE_PIXELS =>
                {
                    picture = Some((bytes, mime, width, height));
                    break;
                }
                _ => {}
            }
        }
        let Some((bytes, mime, width, height)) = picture else {
            out.damaged += 1;
            continue;
        };
        let hash = attachments::sha256(&bytes)
            .await
            .map_err(|_| kept_error(NOT_CHECKED.into()))?;
        attachments::put(&hash, mime, &bytes).await?;
        found.insert(
            w.id.clone(),
            String::from(Attachment {
                name: w.name.clone(),
                kind: Kind::Image,
                mime: mime.into(),
                bytes: bytes.len() as u64,
                hash,
                width,
                height,
                pages: 0,
                text: None,
            }),
        );
        out.restored += 1;
    }
    Ok((found, out))
}

/// The files `chats` name, by hash, with the type each is kept with.
pub fn needed<'a>(
    chats: impl IntoIterator<Item = &'a crate::core::session::Session>,
) -> BTreeMap<String, String> {
    archive::carried(chats)
        .into_iter()
        .map(|c| (c.hash, c.mime))
        .collect()
}
