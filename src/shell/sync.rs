//! Sync through a WebDAV folder, the browser side: open the folder's account with the
//! passphrase ([`connect`]), then passes ([`pass`]) — learn what changed from the folder's write
//! log ([`crate::core::sync::log`]; the folder is listed when the log cannot say), download and
//! open the records that changed, merge them with this device's chats
//! ([`crate::core::sync::engine`]), write what the pass asks to this device ([`Local`]), seal and
//! upload what the folder lacks, each write conditional on the object's ETag, and note the writes
//! in the log. Everything on the server is sealed ([`crate::adapters::crypto`]) but the log;
//! object names are keyed hashes of the chat ids.

use crate::adapters::crypto::{self, Keys};
use crate::adapters::webdav::{DavError, Folder};
use crate::core::prompts::UserPrompts;
use crate::core::session::Session;
use crate::core::sync::doc::Doc;
use crate::core::sync::engine::Replica;
use crate::core::sync::envelope;
use crate::core::sync::log::{self, Note};
use crate::core::sync::pass::ours;
use crate::core::sync::templates::{self, Templates};
use crate::core::sync::webdav::Listed;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};
use web_sys::AbortSignal;

pub use crate::shell::sync_error::SyncError;

/// An open sync folder: where, and the keys its passphrase gives.
#[derive(Clone)]
pub struct Connection {
    pub folder: Folder,
    keys: Keys,
    /// The account object the keys belong to (its text): a folder holding another one changed
    /// passphrase, and nothing is read or written with these keys.
    pub account: String,
}

impl Connection {
    /// The folder at `url` opened with keys kept from an earlier [`connect`] or [`rekey`], with
    /// the account object they belong to.
    pub fn with_keys(
        url: &str,
        user: &str,
        password: &str,
        keys: Keys,
        account: String,
    ) -> Result<Self, SyncError> {
        let folder = Folder::new(url, user, password).map_err(SyncError::Url)?;
        Ok(Connection {
            folder,
            keys,
            account,
        })
    }

    /// The keys the passphrase gave.
    pub fn keys(&self) -> &Keys {
        &self.keys
    }
}

/// What a device keeps between passes (in its own storage, never on the server).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct State {
    /// Its chats' records and clock.
    pub replica: Replica,
    /// Each object of the folder this device read or wrote: its chat and its ETag then.
    #[serde(default)]
    pub known: BTreeMap<String, Known>,
    /// When the last pass ended with every change sent (this device's clock, ms; 0: never).
    #[serde(default)]
    pub synced_at: i64,
    /// The prompt templates' record.
    #[serde(default)]
    pub templates: Templates,
    /// What this device took in of the folder's write log.
    #[serde(default)]
    pub log: LogSeen,
}

/// What a device took in of the folder's write log ([`crate::core::sync::log`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogSeen {
    /// The number of the next log object to read: every one before it is merged in here (0: not
    /// known, so the folder is listed).
    pub next: u64,
    /// When the folder was last listed (this device's clock, ms).
    pub listed_at: i64,
    /// The next pass lists the folder (a write of another device met but not in the log, an
    /// object that could not be read).
    pub relist: bool,
    /// This device's writes not in the log yet: noted at the next pass.
    pub unlogged: Vec<log::Noted>,
}

/// How often a pass lists the whole folder even when the log says what changed (ms): a write
/// the log missed is found within this time.
pub const RELIST_MS: i64 = 60 * 60 * 1000;

/// At most this many of this device's writes wait to be noted (beyond, the oldest are found by
/// the others' listings).
const UNLOGGED_MAX: usize = 4096;

/// An object this device read or wrote.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Known {
    /// The chat it holds.
    pub id: String,
    /// Its ETag when this device last read or wrote it.
    pub etag: String,
}

impl State {
    /// A device `device` that has synced nothing.
    pub fn new(device: &str) -> State {
        State {
            replica: Replica::new(device),
            known: BTreeMap::new(),
            synced_at: 0,
            templates: Templates::default(),
            log: LogSeen::default(),
        }
    }

    /// How many chats here have changes the folder does not have yet, as far as this device can
    /// tell without the folder (`chats`: this device's): chats that differ from how they were
    /// last in step, chats deleted here, uploads left over.
    pub fn waiting(&self, chats: &BTreeMap<String, Session>) -> usize {
        use crate::core::sync::chat::view_of;
        let base = &self.replica.base;
        let mut ids: BTreeSet<&str> = self.replica.pending.iter().map(String::as_str).collect();
        ids.extend(
            chats
                .iter()
                .filter(|(id, chat)| base.get(*id) != Some(&view_of(chat)))
                .map(|(id, _)| id.as_str()),
        );
        ids.extend(
            base.keys()
                .map(String::as_str)
                .filter(|id| !chats.contains_key(*id)),
        );
        ids.len()
    }
}

/// What one object holds, sealed.
#[derive(Serialize, Deserialize)]
struct Object {
    /// What kind of record (`chat`).
    kind: String,
    /// The chat's id.
    id: String,
    /// Its record.
    doc: Doc,
}

/// The chats of this device, as a pass reads and changes them.
pub trait Local {
    /// Every chat here by id, and the ids of chats here that cannot be read; an error when the
    /// chats cannot be listed (then the pass stops: nothing is taken as deleted).
    #[allow(clippy::type_complexity)]
    fn chats(&self) -> Result<(BTreeMap<String, Session>, BTreeSet<String>), String>;
    /// Write `session` (merged into a copy being written to, if one is); answers the chat as
    /// this device now holds it.
    fn store(&mut self, session: Session) -> Result<Session, String>;
    /// Remove chat `id`.
    fn remove(&mut self, id: &str) -> Result<(), String>;
    /// The user's prompt templates; an error when they cannot be read (then they are neither
    /// sent nor written over).
    fn prompts(&self) -> Result<UserPrompts, String>;
    /// Write the user's prompt templates.
    fn store_prompts(&mut self, prompts: &UserPrompts) -> Result<(), String>;
}

/// What a pass did.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Report {
    /// Objects read.
    pub downloaded: usize,
    /// Objects written.
    pub uploaded: usize,
    /// Chats written here.
    pub stored: usize,
    /// Chats removed here.
    pub removed: usize,
    /// Objects that could not be opened or read (damaged, or of a newer Satori): name and why.
    /// Never taken as a deletion.
    pub damaged: Vec<(String, String)>,
    /// Chats of the folder that could not be written here: id and why.
    pub not_stored: Vec<(String, String)>,
    /// Uploads left for the next pass (another device wrote first, or the write failed).
    pub waiting: usize,
    /// The folder was listed (rather than learnt from its write log).
    pub listed: bool,
}

/// Open the sync folder at `url` with `passphrase`: the folder is created if it is not there,
/// and its account object too (a new account); an account that is there must open with the
/// passphrase (a wrong one is refused and nothing is written).
pub async fn connect(
    url: &str,
    user: &str,
    password: &str,
    passphrase: &str,
    signal: &AbortSignal,
) -> Result<Connection, SyncError> {
    let folder = Folder::new(url, user, password).map_err(SyncError::Url)?;
    let listing = match folder.list(signal).await {
        Err(DavError::NoFolder(_)) => {
            folder.create(signal).await?;
            Vec::new()
        }
        listing => listing?,
    };
    let records = listing
        .iter()
        .any(|l| l.name != envelope::ACCOUNT_OBJECT && ours(&l.name, envelope::ACCOUNT_OBJECT));
    let (keys, account) = loop {
        match folder.get(envelope::ACCOUNT_OBJECT, signal).await? {
            Some((bytes, _)) => {
                let text = String::from_utf8_lossy(&bytes).to_string();
                break (crypto::unlock(&text, passphrase).await?, text);
            }
            // Records without their account: a new account would make them all unreadable.
            None if records => return Err(SyncError::NoAccount),
            None => {
                let (account, keys) = crypto::new_account(passphrase).await?;
                let text = serde_json::to_string(&account).unwrap_or_default();
                match folder
                    .put(envelope::ACCOUNT_OBJECT, text.as_bytes(), None, signal)
                    .await
                {
                    Ok(_) => break (keys, text),
                    // Another device started the account meanwhile: open theirs.
                    Err(DavError::Changed) => continue,
                    Err(e) => return Err(e.into()),
                }
            }
        }
    };
    Ok(Connection {
        folder,
        keys,
        account,
    })
}

/// The name of chat `id`'s object.
async fn name_of(conn: &Connection, id: &str) -> Result<String, SyncError> {
    Ok(crypto::name(&conn.keys, id).await?)
}

/// How a pass saw the folder.
struct Looked {
    /// What the folder holds, listed or learnt from the log.
    listing: Vec<Listed>,
    /// Listed.
    listed: bool,
    /// The number of the next log object to read once this pass's reads are merged.
    next: u64,
    /// The first number a new log object is likely to find free.
    free: u64,
}

/// After a listing, how many of the latest log objects the next pass reads again: a listing is
/// not a snapshot on every server, so a write noted while it was being answered may be missing
/// from it. (Reading a note again costs its read: what it names is known.)
const READ_AGAIN: u64 = 8;

/// What the folder holds now: learnt from its write log when that can say it (the log objects
/// after the last one taken in; one read, answered `404`, when nothing changed), else listed
/// (`thorough`, an hour since the last listing, a reason noted in `state.log.relist`, or a log
/// that cannot be read or is too far ahead).
async fn look(
    conn: &Connection,
    state: &State,
    wall: i64,
    thorough: bool,
    signal: &AbortSignal,
) -> Result<Looked, SyncError> {
    let seen = &state.log;
    let due = thorough
        || seen.relist
        || seen.next == 0
        || !(seen.listed_at..seen.listed_at.saturating_add(RELIST_MS)).contains(&wall);
    if !due {
        let mut writes: Vec<log::Noted> = Vec::new();
        let mut next = seen.next;
        let read_all = loop {
            if next - seen.next >= log::MAX_READ {
                break false;
            }
            match conn.folder.get(&log::name(next), signal).await {
                Ok(None) => break true,
                Ok(Some((bytes, _))) => match Note::read(&bytes) {
                    Some(note) => {
                        writes.extend(note.writes);
                        next += 1;
                    }
                    None => break false,
                },
                // A server that will not serve it: listed instead.
                Err(DavError::Status(_)) => break false,
                Err(e) => return Err(e.into()),
            }
        };
        if read_all {
            let known: BTreeMap<String, String> = state
                .known
                .iter()
                .map(|(name, k)| (name.clone(), k.etag.clone()))
                .collect();
            return Ok(Looked {
                listing: log::listing(&known, &writes),
                listed: false,
                next,
                free: next,
            });
        }
    }
    let listing = conn.folder.list(signal).await?;
    let free = log::next(&listing);
    Ok(Looked {
        listing,
        listed: true,
        next: free.saturating_sub(READ_AGAIN).max(1),
        free,
    })
}

/// Note `writes` (object name, ETag) in the folder's write log: a new log object, numbered from
/// `from` on, the first free number (one taken means another device noted meanwhile: the next).
/// When it is the one this device was to read next, this device has taken in the log up to it.
async fn note_writes(
    conn: &Connection,
    state: &mut State,
    writes: &[log::Noted],
    from: u64,
    signal: &AbortSignal,
) -> Result<(), SyncError> {
    let bytes = Note::new(writes).bytes();
    let mut n = from.max(1);
    for _ in 0..log::MAX_READ {
        match conn.folder.put(&log::name(n), &bytes, None, signal).await {
            Ok(_) => {
                if n == state.log.next {
                    state.log.next = n + 1;
                }
                return Ok(());
            }
            Err(DavError::Changed) => n += 1,
            Err(e) => return Err(e.into()),
        }
    }
    Err(SyncError::Dav(DavError::Changed))
}

/// Remove the log objects a listing shows as old (a few a pass; another device removing them
/// too is fine).
async fn prune_log(conn: &Connection, listing: &[Listed], signal: &AbortSignal) {
    for listed in log::old(listing).into_iter().take(32) {
        if conn
            .folder
            .delete(&listed.name, &listed.etag, signal)
            .await
            .is_err()
        {
            return;
        }
    }
}

/// One pass (`wall`: this device's clock, ms; `thorough`: list the folder whatever its write
/// log says). `state` is changed as the pass goes, so a pass cut short leaves it consistent (the
/// caller saves it after).
pub async fn pass(
    conn: &Connection,
    state: &mut State,
    local: &mut dyn Local,
    wall: i64,
    thorough: bool,
    signal: &AbortSignal,
) -> Result<Report, SyncError> {
    let mut report = Report::default();
    let looked = look(conn, state, wall, thorough, signal).await?;
    report.listed = looked.listed;
    let listing = looked.listing;
    let account = envelope::ACCOUNT_OBJECT;
    let mut remote: BTreeMap<String, Doc> = BTreeMap::new();
    let mut remote_templates: Option<Doc> = None;
    let listed: BTreeMap<&str, &str> = listing
        .iter()
        .filter(|l| l.name != account && ours(&l.name, account))
        .map(|l| (l.name.as_str(), l.etag.as_str()))
        .collect();
    // The folder lost its account object (emptied, or replaced): writing records into it would
    // leave them unopenable by any other device.
    let Some(listed_account) = listing.iter().find(|l| l.name == account) else {
        return Err(SyncError::NoAccount);
    };
    // The account object, read on every pass (a few hundred bytes; its ETag alone is not
    // enough: a server whose ETag is the second and size of a write gives a replaced account
    // the same one): another passphrase's stops the pass before anything is read or written.
    let bare = crate::core::sync::webdav::bare_etag;
    {
        let Some((bytes, etag)) = conn.folder.get(account, signal).await? else {
            return Err(SyncError::NoAccount);
        };
        let text = String::from_utf8_lossy(&bytes).to_string();
        if text != conn.account {
            return Err(SyncError::AccountChanged);
        }
        let etag = if etag.is_empty() {
            listed_account.etag.clone()
        } else {
            etag
        };
        state.known.insert(
            account.to_string(),
            Known {
                id: account.to_string(),
                etag,
            },
        );
    }
    // Objects this device read or wrote that are gone (someone emptied the folder, or removed
    // them; Satori never does): their chats are written again.
    let gone: Vec<String> = state
        .known
        .keys()
        .filter(|name| *name != account && !listed.contains_key(name.as_str()))
        .cloned()
        .collect();
    for name in gone {
        if let Some(k) = state.known.remove(&name) {
            if k.id == templates::ID {
                state.templates.pending = true;
            } else if state.replica.docs.contains_key(&k.id) {
                state.replica.pending.insert(k.id);
            }
        }
    }
    // What was read is known only once it is merged: a pass cut short reads it again.
    let mut read: Vec<(String, Known)> = Vec::new();
    for (&name, &listed_etag) in &listed {
        let seen = state.known.get(name).map(|k| k.etag.as_str());
        if seen.map(crate::core::sync::webdav::bare_etag)
            == Some(crate::core::sync::webdav::bare_etag(listed_etag))
        {
            continue;
        }
        let (bytes, etag) = match conn.folder.get(name, signal).await {
            Ok(Some(got)) => got,
            // Deleted meanwhile: Satori never deletes objects, someone else did (a listing
            // then tells what else is gone).
            Ok(None) => {
                state.log.relist |= !looked.listed;
                continue;
            }
            // This object only: the others are still read; it is read again next pass.
            Err(DavError::Status(status)) => {
                report
                    .damaged
                    .push((name.to_string(), format!("HTTP {status}")));
                continue;
            }
            Err(e) => return Err(e.into()),
        };
        // No ETag on the read: the listing's.
        let etag = if etag.is_empty() {
            listed_etag.to_string()
        } else {
            etag
        };
        // The log could not say its ETag and the server gave none: merged, and the next pass
        // lists the folder to learn it.
        let unsure = etag == log::UNSURE;
        state.log.relist |= unsure;
        report.downloaded += 1;
        let object = match crypto::open(&conn.keys, name, &bytes).await {
            Ok(plain) => serde_json::from_slice::<Object>(&plain).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        };
        let object = object.and_then(|o| match o.kind.as_str() {
            "chat" => Ok(o),
            "templates" if o.id == templates::ID => Ok(o),
            other => Err(format!(
                "a record of a kind this Satori does not know ({other})"
            )),
        });
        match object {
            // Merged, but its ETag not known: the listing of the next pass says it.
            Ok(o) if unsure => {
                if o.kind == "templates" {
                    remote_templates = Some(o.doc);
                } else {
                    remote.insert(o.id, o.doc);
                }
            }
            Ok(o) => {
                read.push((
                    name.to_string(),
                    Known {
                        id: o.id.clone(),
                        etag,
                    },
                ));
                if o.kind == "templates" {
                    remote_templates = Some(o.doc);
                } else {
                    remote.insert(o.id, o.doc);
                }
            }
            Err(why) => report.damaged.push((name.to_string(), why)),
        }
    }
    let (chats, kept) = local.chats().map_err(SyncError::Local)?;
    let out = state.replica.pass(&chats, &kept, &remote, wall);
    state.known.extend(read);
    // The log is taken in as far as it was read, unless an object could not be read: then the
    // next pass lists the folder, so it is read (and said) again.
    if report.damaged.is_empty() {
        state.log.next = looked.next;
        if looked.listed {
            state.log.listed_at = wall;
            state.log.relist = false;
        }
    } else {
        state.log.relist = true;
    }
    for session in out.store {
        let id = session.id.clone();
        match local.store(session) {
            Ok(held) => {
                state.replica.stored(&held);
                report.stored += 1;
            }
            Err(why) => report.not_stored.push((id, why)),
        }
    }
    for id in out.remove {
        match local.remove(&id) {
            Ok(()) => {
                state.replica.removed(&id);
                report.removed += 1;
            }
            Err(why) => report.not_stored.push((id, why)),
        }
    }
    for (id, why) in out.unreadable {
        report.damaged.push((id, why));
    }
    // The prompt templates: merged like a chat's fields; never written over when unreadable here,
    // and left for the next pass while the folder's record is listed but could not be read (a
    // device joining would otherwise add its own as if the folder had none).
    let templates_name = name_of(conn, templates::ID).await?;
    let templates_unread = remote_templates.is_none()
        && listed.get(templates_name.as_str()).is_some_and(|etag| {
            state.known.get(&templates_name).map(|k| bare(&k.etag)) != Some(bare(etag))
        });
    match local.prompts() {
        Ok(_) if templates_unread => {}
        Ok(here) => {
            let clock = &mut state.replica.clock;
            let out = state
                .templates
                .pass(&here, remote_templates.as_ref(), clock, wall);
            for key in out.unreadable {
                report
                    .damaged
                    .push((format!("template {key}"), "not a template".into()));
            }
            if let Some(prompts) = out.store {
                match local.store_prompts(&prompts) {
                    Ok(()) => report.stored += 1,
                    Err(why) => {
                        state.templates.not_stored(&here);
                        report.not_stored.push((templates::ID.into(), why));
                    }
                }
            }
        }
        Err(why) => {
            if let Some(theirs) = &remote_templates {
                state.templates.doc.merge(theirs);
            }
            report.not_stored.push((templates::ID.into(), why));
        }
    }
    let mut uploads: Vec<(&str, String)> = out.upload.into_iter().map(|id| ("chat", id)).collect();
    if state.templates.pending {
        uploads.push(("templates", templates::ID.to_string()));
    }
    for (kind, id) in uploads {
        let name = name_of(conn, &id).await?;
        let seen = state.known.get(&name).map(|k| k.etag.clone());
        // Listed at an ETag this device has not read (it could not open it): never written over.
        if listed.contains_key(name.as_str()) && seen.is_none() {
            report.waiting += 1;
            continue;
        }
        let doc = match kind {
            "templates" => Some(&state.templates.doc),
            _ => state.replica.docs.get(&id),
        };
        let Some(doc) = doc else {
            state.replica.uploaded(&id);
            continue;
        };
        let object = Object {
            kind: kind.into(),
            id: id.clone(),
            doc: doc.clone(),
        };
        let plain = serde_json::to_vec(&object).unwrap_or_default();
        let sealed = crypto::seal(&conn.keys, &name, &plain).await?;
        let condition = seen
            .as_deref()
            .filter(|_| listed.contains_key(name.as_str()));
        if condition.is_some_and(|e| !crate::core::sync::webdav::strong(e)) {
            return Err(SyncError::WeakEtags);
        }
        match conn.folder.put(&name, &sealed, condition, signal).await {
            Ok(etag) => {
                report.uploaded += 1;
                let replaced = condition.unwrap_or_default().to_string();
                let logged = (name.clone(), replaced, etag.clone().unwrap_or_default());
                state.log.unlogged.push(logged);
                match kind {
                    "templates" => state.templates.pending = false,
                    _ => state.replica.uploaded(&id),
                }
                match etag {
                    Some(etag) => {
                        state.known.insert(name, Known { id, etag });
                    }
                    // No ETag said: read again next pass (it is ours, so it merges to itself).
                    None => {
                        state.known.remove(&name);
                    }
                }
            }
            // Another device wrote it meanwhile: read and merge it next pass (listed, in case
            // that write is not in the log yet), then write.
            Err(DavError::Changed) => {
                report.waiting += 1;
                state.log.relist = true;
            }
            Err(e) => return Err(e.into()),
        }
    }
    // This pass's writes (and any left from before) into the log: until they are, other devices
    // find them only by listing the folder.
    let mut written = std::mem::take(&mut state.log.unlogged);
    if !written.is_empty() {
        let from = looked.free.max(state.log.next);
        if let Err(e) = note_writes(conn, state, &written, from, signal).await {
            let over = written.len().saturating_sub(UNLOGGED_MAX);
            written.drain(..over);
            state.log.unlogged = written;
            if matches!(e, SyncError::Dav(DavError::Aborted)) {
                return Err(e);
            }
        }
    }
    if looked.listed {
        prune_log(conn, &listing, signal).await;
    }
    Ok(report)
}

/// Change the folder's passphrase to `passphrase`: after a pass (this device in step with the
/// folder), every record is sealed anew with the new keys under its new name (removed again if
/// the change cannot go through), the account object is replaced (only if it is still the one
/// this device read), and then every old object is read with the old keys, merged in (sent with
/// the next pass) and removed. Answers the folder opened with the new keys, and how many old
/// objects were left (they could not be read or removed; nothing opens them now). Other devices
/// stop with [`SyncError::AccountChanged`] until the new passphrase is typed there.
pub async fn rekey(
    conn: &Connection,
    state: &mut State,
    local: &mut dyn Local,
    passphrase: &str,
    wall: i64,
    signal: &AbortSignal,
) -> Result<(Connection, usize), SyncError> {
    let account = envelope::ACCOUNT_OBJECT;
    let report = pass(conn, state, local, wall, true, signal).await?;
    if report.waiting > 0 {
        return Err(SyncError::NotRekeyed(
            "other devices are writing the same chats right now; try again in a moment".into(),
        ));
    }
    if !report.damaged.is_empty() {
        return Err(SyncError::NotRekeyed(format!(
            "{} record(s) on the server cannot be opened here, and would be left behind",
            report.damaged.len()
        )));
    }
    let Some(old_account) = state.known.get(account).map(|k| k.etag.clone()) else {
        return Err(SyncError::NoAccount);
    };
    let (new_account, keys) = crypto::new_account(passphrase).await?;
    let text = serde_json::to_string(&new_account).unwrap_or_default();
    let fresh = Connection {
        folder: conn.folder.clone(),
        keys,
        account: text.clone(),
    };
    // Every record under its new name, sealed with the new keys.
    let mut records: Vec<(&str, String, Doc)> = state
        .replica
        .docs
        .iter()
        .map(|(id, doc)| ("chat", id.clone(), doc.clone()))
        .collect();
    if state.templates.doc != Doc::default() {
        records.push((
            "templates",
            templates::ID.into(),
            state.templates.doc.clone(),
        ));
    }
    let mut known: BTreeMap<String, Known> = BTreeMap::new();
    let mut failed = None;
    for (kind, id, doc) in records {
        let written = async {
            let name = name_of(&fresh, &id).await?;
            let object = Object {
                kind: kind.into(),
                id: id.clone(),
                doc,
            };
            let plain = serde_json::to_vec(&object).unwrap_or_default();
            let sealed = crypto::seal(&fresh.keys, &name, &plain).await?;
            let etag = fresh.folder.put(&name, &sealed, None, signal).await?;
            Ok::<_, SyncError>((name, etag.unwrap_or_default()))
        };
        match written.await {
            Ok((name, etag)) => {
                known.insert(name, Known { id, etag });
            }
            Err(e) => {
                failed = Some(e);
                break;
            }
        }
    }
    // The account, only if no other device replaced it meanwhile.
    let switched = match failed {
        Some(e) => Err(e),
        None => match conn
            .folder
            .put(account, text.as_bytes(), Some(&old_account), signal)
            .await
        {
            Ok(etag) => Ok(etag.unwrap_or_default()),
            Err(DavError::Changed) => Err(SyncError::AccountChanged),
            Err(e) => Err(e.into()),
        },
    };
    let etag = match switched {
        Ok(etag) => etag,
        // Not changed: the new objects go again (the old passphrase still holds; one that cannot
        // be removed is left, and read as damaged by every device).
        Err(e) => {
            for (name, k) in &known {
                let _ = fresh.folder.delete(name, &k.etag, signal).await;
            }
            return Err(e);
        }
    };
    // Changed: from here on nothing fails the change; what cannot be cleaned up is counted.
    let old_count = state.known.keys().filter(|n| *n != account).count();
    let new_names: BTreeSet<String> = known.keys().cloned().collect();
    known.insert(
        account.to_string(),
        Known {
            id: account.to_string(),
            etag,
        },
    );
    state.known = known;
    // The records' new names are not in the write log: the next pass lists the folder.
    state.log = LogSeen::default();
    let mut left = 0;
    let listing = match conn.folder.list(signal).await {
        Ok(l) => l,
        Err(_) => return Ok((fresh, old_count)),
    };
    for listed in listing {
        if listed.name == account
            || new_names.contains(&listed.name)
            || !ours(&listed.name, account)
        {
            continue;
        }
        // Each old object, as it is now (written meanwhile or not), read with the old keys.
        let read = match conn.folder.get(&listed.name, signal).await {
            Ok(Some(got)) => got,
            Ok(None) => continue,
            Err(_) => {
                left += 1;
                continue;
            }
        };
        let opened = crypto::open(&conn.keys, &listed.name, &read.0).await;
        let Some(o) = opened
            .ok()
            .and_then(|p| serde_json::from_slice::<Object>(&p).ok())
        else {
            left += 1;
            continue;
        };
        if o.kind == "templates" {
            state.templates.doc.merge(&o.doc);
            state.templates.pending = true;
        } else {
            let doc = state.replica.docs.entry(o.id.clone()).or_default();
            doc.merge(&o.doc);
            state.replica.pending.insert(o.id);
        }
        let etag = if read.1.is_empty() {
            listed.etag
        } else {
            read.1
        };
        if fresh
            .folder
            .delete(&listed.name, &etag, signal)
            .await
            .is_err()
        {
            left += 1;
        }
    }
    Ok((fresh, left))
}

/// This device's stored chats (the one store every module writes through), as a pass reads and
/// changes them. Each write or removal is announced to the page as a `storage` event on its
/// window, as another tab's would be, so the app's chat list and open chat follow.
pub struct StoredChats {
    pub store: crate::adapters::storage::Store,
}

impl StoredChats {
    /// Tell the page record `key` changed (its new text, `None` when removed).
    fn announce(key: &str, value: Option<&str>) {
        let init = web_sys::StorageEventInit::new();
        init.set_key(Some(key));
        init.set_new_value(value);
        if let Ok(event) = web_sys::StorageEvent::new_with_event_init_dict("storage", &init) {
            if let Some(window) = web_sys::window() {
                let _ = window.dispatch_event(&event);
            }
        }
    }

    /// Change the chat list with `change`, save and announce it.
    fn index(&self, change: impl FnOnce(&mut crate::core::persist::Index)) -> Result<(), String> {
        use crate::core::persist;
        let mut index = match self
            .store
            .get(persist::KEY_INDEX)
            .map_err(|e| e.to_string())?
        {
            Some(text) => persist::decode_index(&text)
                .map_err(|e| crate::shell::error_text::list_unreadable(&e))?,
            None => persist::Index::default(),
        };
        change(&mut index);
        self.store.save_index(&index).map_err(|e| e.to_string())?;
        Self::announce(persist::KEY_INDEX, Some(""));
        Ok(())
    }
}

impl Local for StoredChats {
    fn chats(&self) -> Result<(BTreeMap<String, Session>, BTreeSet<String>), String> {
        let stored = crate::shell::store::stored_chats(&self.store)?;
        Ok((
            stored
                .chats
                .into_iter()
                .map(|s| (s.id.clone(), s))
                .collect(),
            stored.unreadable.into_iter().collect(),
        ))
    }

    fn store(&mut self, mut session: Session) -> Result<Session, String> {
        use crate::core::persist;
        use crate::core::session::Status;
        // A reply still arriving in the stored copy stays, and the chat still ends with it.
        let here = self
            .store
            .chat(&session.id)
            .ok()
            .flatten()
            .and_then(|r| persist::decode_session(&r.text).ok());
        if let Some(here) =
            here.filter(|h| h.messages.iter().any(|m| m.status == Status::Streaming))
        {
            session.merge_stored(&here, None);
            session.leaf = here.leaf.clone();
        }
        let (head, parts) = persist::encode_chat(&mut session.clone());
        self.store
            .write_chat(&session.id, &head, &parts)
            .map_err(|e| e.to_string())?;
        Self::announce(&persist::session_key(&session.id), Some(&head));
        self.index(|i| i.upsert(&session))?;
        Ok(session)
    }

    fn remove(&mut self, id: &str) -> Result<(), String> {
        use crate::core::persist;
        self.store.remove_chat(id).map_err(|e| e.to_string())?;
        Self::announce(&persist::session_key(id), None);
        self.index(|i| i.remove(id))
    }

    fn prompts(&self) -> Result<UserPrompts, String> {
        use crate::core::persist;
        match self
            .store
            .get(persist::KEY_PROMPTS)
            .map_err(|e| e.to_string())?
        {
            None => Ok(UserPrompts::default()),
            Some(text) => persist::decode_prompts(&text)
                .map_err(|e| format!("your prompt templates cannot be read here ({e})")),
        }
    }

    fn store_prompts(&mut self, prompts: &UserPrompts) -> Result<(), String> {
        use crate::core::persist;
        self.store
            .save_prompts(prompts)
            .map_err(|e| e.to_string())?;
        Self::announce(
            persist::KEY_PROMPTS,
            Some(&persist::encode_prompts(prompts)),
        );
        Ok(())
    }
}

/// The IndexedDB record of this device's sync state.
const STATE_RECORD: &str = "sync.state";

/// This device's sync state as last saved; a new one (of device `device`) if there is none. A
/// state that cannot be read is an error, never taken for a new device.
pub async fn load_state(device: &str) -> Result<State, String> {
    match crate::adapters::idb::get(STATE_RECORD).await? {
        None => Ok(State::new(device)),
        Some(text) => serde_json::from_str(&text)
            .map_err(|e| format!("this device's sync state cannot be read ({e})")),
    }
}

/// Save this device's sync state (after each pass: what a pass changed is kept even if the page
/// closes before the next).
pub async fn save_state(state: &State) -> Result<(), String> {
    let text = serde_json::to_string(state).map_err(|e| e.to_string())?;
    crate::adapters::idb::put(STATE_RECORD, &text).await
}

/// Forget this device's sync state ("Stop syncing").
pub async fn forget_state() -> Result<(), String> {
    crate::adapters::idb::delete(STATE_RECORD).await
}
