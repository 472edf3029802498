//! What Satori keeps, read and written as a whole: every stored chat (export, the agent's search),
//! the user's templates, and an import written all or nothing with its "Undo import". The writes
//! themselves are `adapters::storage`'s (the one writer); this module decides what to write and
//! what to put back when a write fails.

use crate::adapters::clock::now_ms;
use crate::adapters::storage::records::{Kept, KEY_IMPORT_BACKUP};
use crate::adapters::storage::Store;
use crate::core::persist;
use crate::core::prompts::user::UserPrompts;
use crate::core::session::Session;
use crate::core::transfer::format;
use crate::core::transfer::import::Plan;

/// The stored chats that could be read, and the ids of those that could not.
pub struct Stored {
    /// Chats read.
    pub chats: Vec<Session>,
    /// Ids of records that could not be read.
    pub unreadable: Vec<String>,
    /// Those of them whose text could be read, as stored.
    pub raw: Vec<format::RawRecord>,
}

/// Every stored chat record, read (the one reader of them all: export, search's dialog, the agent).
pub fn stored_chats(store: &Store) -> Result<Stored, String> {
    let prefix = persist::session_key("");
    let keys = store.keys(&prefix).map_err(|e| e.to_string())?;
    let mut out = Stored {
        chats: Vec::new(),
        unreadable: Vec::new(),
        raw: Vec::new(),
    };
    for key in keys {
        let id = key[prefix.len()..].to_string();
        match store.chat(&id) {
            Ok(Some(persist::ChatRecord { text, .. })) => match read_chat(&text) {
                Some(s) => out.chats.push(s),
                None => {
                    out.unreadable.push(id);
                    out.raw.push(format::RawRecord { key, text });
                }
            },
            // A chat in parts that cannot be joined: its head and every part there is, as stored.
            Err(persist::ChatReadError::Damaged(_)) => {
                let mut keys = store.parts_stored(&id);
                keys.insert(0, key);
                for key in keys {
                    if let Ok(Some(text)) = store.get(&key) {
                        out.raw.push(format::RawRecord { key, text });
                    }
                }
                out.unreadable.push(id);
            }
            _ => out.unreadable.push(id),
        }
    }
    Ok(out)
}

/// A stored chat record, packed or not.
fn read_chat(text: &str) -> Option<Session> {
    match persist::decode_session(text) {
        Err(persist::DecodeError::Packed) => {
            let (_, json) = crate::core::packed::json(text).ok()?;
            persist::decode_session(&json).ok()
        }
        other => other.ok(),
    }
}

/// The user templates record, read the one way the dialogs module reads it: an unreadable
/// record is an error (never taken for "no templates") and is left untouched.
pub fn stored_prompts(store: &Store) -> Result<UserPrompts, String> {
    match store.get(persist::KEY_PROMPTS) {
        Ok(Some(text)) => persist::decode_prompts(&text)
            .map_err(|e| crate::shell::error_text::templates_unreadable(&e)),
        Ok(None) => Ok(UserPrompts::default()),
        Err(e) => Err(e.to_string()),
    }
}

/// What an import added, kept while its dialog is open so it can be undone.
#[derive(serde::Serialize, serde::Deserialize)]
struct Backup {
    at: i64,
    /// The chats added.
    added: Vec<String>,
    /// The keys of the templates added.
    templates: Vec<String>,
}

/// Take the chats and templates of `backup` out again, leaving everything else — also what
/// changed since the import — as it is.
fn take_out(store: &Store, backup: &Backup) -> Result<(), String> {
    let err = |e: crate::adapters::storage::StorageError| e.to_string();
    if let Some(text) = store.get(persist::KEY_INDEX).map_err(err)? {
        let mut index = persist::decode_index(&text)
            .map_err(|e| crate::shell::error_text::list_unreadable(&e))?;
        index.sessions.retain(|e| !backup.added.contains(&e.id));
        store.save_index(&index).map_err(err)?;
    }
    if !backup.templates.is_empty() {
        let mut prompts = stored_prompts(store)?;
        prompts
            .templates
            .retain(|t| !backup.templates.contains(&t.template.key));
        store.save_prompts(&prompts).map_err(err)?;
    }
    for id in &backup.added {
        store.remove_chat(id).map_err(err)?;
    }
    Ok(())
}

/// Write what `plan` (an import) adds: the chats, the templates, the chat list, and (with `undo`) what "Undo
/// import" needs. If any write fails, everything written is taken back (the list and the
/// templates as they were byte for byte) and the error says what happened.
pub fn import(store: &Store, plan: &Plan, undo: bool) -> Result<(), String> {
    let err = |e: crate::adapters::storage::StorageError| e.to_string();
    let index_before = store.get(persist::KEY_INDEX).map_err(err)?;
    let prompts_before = store.get(persist::KEY_PROMPTS).map_err(err)?;
    let mut index = match &index_before {
        Some(text) => persist::decode_index(text)
            .map_err(|e| crate::shell::error_text::list_unreadable(&e))?,
        None => persist::Index::default(),
    };
    let mut prompts = stored_prompts(store)?;
    let backup = Backup {
        at: now_ms(),
        added: plan.add.iter().map(|s| s.id.clone()).collect(),
        templates: plan
            .templates
            .iter()
            .map(|t| t.template.key.clone())
            .collect(),
    };
    let written = (|| {
        if undo {
            store.save_import_backup(Some(&serde_json::to_string(&backup).unwrap_or_default()))?;
        }
        for s in &plan.add {
            let (head, parts) = persist::encode_chat(&mut s.clone());
            store.write_chat(&s.id, &head, &parts)?;
            index.sessions.push(persist::IndexEntry::of(s));
        }
        index.sort();
        if !plan.templates.is_empty() {
            prompts.templates.extend(plan.templates.iter().cloned());
            store.save_prompts(&prompts)?;
        }
        store.save_index(&index)
    })();
    let Err(e) = written else {
        return Ok(());
    };
    let mut failed: Vec<String> = Vec::new();
    for id in &backup.added {
        if let Err(u) = store.remove_chat(id) {
            failed.push(u.to_string());
        }
    }
    for (record, raw) in [
        (Kept::Index, &index_before),
        (Kept::Prompts, &prompts_before),
    ] {
        if let Err(u) = store.put_back(record, raw.as_deref()) {
            failed.push(u.to_string());
        }
    }
    if undo {
        let _ = store.save_import_backup(None);
    }
    Err(crate::shell::error_text::import_failed(&e, &failed))
}

/// Undo the last import (while its dialog is open).
pub fn undo(store: &Store) -> Result<(), String> {
    let text = store
        .get(KEY_IMPORT_BACKUP)
        .map_err(|e| e.to_string())?
        .ok_or("there is no import to undo")?;
    let backup: Backup =
        serde_json::from_str(&text).map_err(|e| format!("the import backup is damaged ({e})"))?;
    take_out(store, &backup)?;
    store.save_import_backup(None).map_err(|e| e.to_string())
}
