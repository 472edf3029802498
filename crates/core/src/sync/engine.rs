//! One sync pass over the chats, the pure part: the folder's records are merged into this
//! device's copy of each chat's record ([`Doc`]), what this device changed since the last pass
//! is recorded into them, and the pass answers what to write to this device's storage, what to
//! remove from it, and which records to upload.
//!
//! A change here is what differs from the chat as this device last held it in step with its
//! record (`base`): a copy that is merely behind the folder (a store not written yet, a device
//! turning sync on with old chats) never writes over newer changes made elsewhere.
//!
//! Rules it keeps (each has a test below):
//! - a blank device (or one that lost its storage) takes what the folder has and overwrites
//!   nothing: a chat is deleted only by a device that held it and deleted it;
//! - a device that turns sync on with chats of its own adds them as written when they were last
//!   changed: a chat deleted elsewhere after that stays deleted;
//! - a chat deleted here stays deleted when an older copy comes back from the folder, and a chat
//!   deleted elsewhere leaves this device too, unless this device changed it after the deletion:
//!   then it stays whole (what the deletion removed is written again, after it);
//! - two devices that changed different parts of one chat keep both changes (messages merge by
//!   id, fields by the later write);
//! - a record is uploaded only when the folder may lack something this device holds, so two
//!   devices in step stop writing (no ping-pong), and an upload not confirmed is asked again;
//! - a record whose parts do not make a chat (damaged) is kept and uploaded as it is, never
//!   written over this device's copy; parts this Satori does not know (a newer one's) are kept
//!   in the record and never removed by this device;
//! - a reply still arriving is left out until it ends, and is never recorded as removed.

use super::chat::{session_of, view_of};
use super::clock::{Clock, Hlc};
use super::doc::{Doc, Entry};
use crate::session::{Session, Status};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// A chat as synced, by key ([`view_of`]).
pub type View = BTreeMap<String, Value>;

/// What a device keeps between passes: its clock, its copy of every chat's record as last
/// synced (deleted ones too: their deletion marks are kept for good), and each chat it holds as it held
/// it when last in step with the record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replica {
    pub clock: Clock,
    /// Chat id → its record.
    pub docs: BTreeMap<String, Doc>,
    /// Chat id → the chat as this device last held it in step with its record: a chat in it is
    /// one this device holds (and deletes, if it goes).
    #[serde(default)]
    pub base: BTreeMap<String, View>,
    /// Chats whose record holds something the folder may lack: uploaded at the next chance,
    /// until [`Replica::uploaded`] says it arrived.
    #[serde(default)]
    pub pending: BTreeSet<String>,
}

/// What a pass asks of the device.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    /// Chats to write to this device's storage (new ones, and ones changed elsewhere), each to
    /// confirm with [`Replica::stored`] once written. A chat that is open with a reply still
    /// arriving holds that reply outside its record (it is synced when it ends): the device
    /// merges such a chat in by message id ([`Session::merge_stored`]) rather than writing over
    /// it, and confirms what it then holds.
    pub store: Vec<Session>,
    /// Chats to remove from this device's storage (deleted elsewhere), each to confirm with
    /// [`Replica::removed`].
    pub remove: Vec<String>,
    /// Chat ids whose records the folder lacks something of (or may: an upload that did not
    /// arrive is asked for again): to upload, then to confirm with [`Replica::uploaded`].
    pub upload: Vec<String>,
    /// Chats whose record could not be read as a chat: id and why (kept, not applied).
    pub unreadable: Vec<(String, String)>,
}

impl Replica {
    /// A device `device` that has synced nothing yet.
    pub fn new(device: &str) -> Replica {
        Replica {
            clock: Clock::new(device),
            docs: BTreeMap::new(),
            base: BTreeMap::new(),
            pending: BTreeSet::new(),
        }
    }

    /// The record of chat `id` reached the folder as it is now.
    pub fn uploaded(&mut self, id: &str) {
        self.pending.remove(id);
    }

    /// Chat `session` was written to this device's storage as the pass asked (as it now reads).
    pub fn stored(&mut self, session: &Session) {
        self.base.insert(session.id.clone(), view_of(session));
    }

    /// Chat `id` was removed from this device's storage as the pass asked.
    pub fn removed(&mut self, id: &str) {
        self.base.remove(id);
    }

    /// A pass: `local` is every chat on this device now (by id; a chat this device held that is
    /// missing from it was deleted here), `kept` the chats present here that could not be read
    /// (neither synced nor deleted), `remote` the records downloaded from the folder since the
    /// last pass (by chat id), `wall` this device's clock in ms.
    pub fn pass(
        &mut self,
        local: &BTreeMap<String, Session>,
        kept: &BTreeSet<String>,
        remote: &BTreeMap<String, Doc>,
        wall: i64,
    ) -> Outcome {
        // What the folder holds first: a change here is then written after all of it.
        for (id, theirs) in remote {
            if let Some(newest) = theirs.newest() {
                self.clock.observe(newest);
            }
            let doc = self.docs.entry(id.clone()).or_default();
            doc.merge(theirs);
            if doc != theirs {
                self.pending.insert(id.clone());
            }
        }
        // This device's changes.
        for (id, session) in local {
            let view = view_of(session);
            let doc = self.docs.entry(id.clone()).or_default();
            let before = doc.clone();
            match self.base.get(id) {
                // Never in step here: the chat's parts as written when it last changed.
                None => {
                    let at = Hlc {
                        ms: session.updated_at,
                        n: 0,
                        device: self.clock.device().to_string(),
                    };
                    doc.merge(&Doc {
                        deleted: None,
                        // Parts the record already holds as they are here stay as written.
                        keys: view
                            .iter()
                            .filter(|(k, v)| doc.keys.get(*k).is_none_or(|e| e.value != **v))
                            .map(|(k, v)| {
                                let entry = Entry {
                                    at: at.clone(),
                                    value: v.clone(),
                                };
                                (k.clone(), entry)
                            })
                            .collect(),
                    });
                }
                Some(base) => {
                    let arriving = arriving(session);
                    let changes = changes(base, &view, &arriving);
                    // Deleted elsewhere after this copy last changed: the deletion holds.
                    let outdated = !doc.is_live()
                        && doc
                            .deleted
                            .as_ref()
                            .is_some_and(|d| d.ms > session.updated_at);
                    if !changes.is_empty() && !outdated {
                        let mut next = doc.view();
                        for (key, value) in changes {
                            next.insert(key, value);
                        }
                        // Changed here after a deletion elsewhere: the chat stays whole.
                        if doc.deleted.is_some() {
                            for (key, value) in &view {
                                if !doc.keys.contains_key(key) {
                                    next.insert(key.clone(), value.clone());
                                }
                            }
                        }
                        // `next` holds every key the record reads: only the changes are written.
                        doc.record(&next, &mut self.clock, wall);
                    }
                }
            }
            if *doc != before {
                self.pending.insert(id.clone());
            }
        }
        // Chats this device held and no longer has: deleted here.
        let gone: Vec<String> = self
            .base
            .keys()
            .filter(|id| !local.contains_key(*id) && !kept.contains(*id))
            .cloned()
            .collect();
        for id in gone {
            let doc = self.docs.entry(id.clone()).or_default();
            if doc.is_live() {
                doc.delete(&mut self.clock, wall);
                self.pending.insert(id.clone());
            }
            self.base.remove(&id);
        }
        // What this device is to hold now.
        let mut out = Outcome::default();
        // Also every live record this device does not hold in step (a store that failed is
        // asked again); never a chat here that cannot be read.
        let behind = self
            .docs
            .iter()
            .filter(|(id, doc)| doc.is_live() && !self.base.contains_key(*id))
            .map(|(id, _)| id);
        let touched: BTreeSet<String> = remote
            .keys()
            .chain(local.keys())
            .chain(behind)
            .cloned()
            .collect();
        for id in touched {
            let Some(doc) = self.docs.get(&id).filter(|_| !kept.contains(&id)) else {
                continue;
            };
            let here = local.get(&id);
            if !doc.is_live() {
                if here.is_some() {
                    out.remove.push(id.clone());
                }
                continue;
            }
            match session_of(&id, &doc.view()) {
                Err(why) => out.unreadable.push((id.clone(), why)),
                Ok(session) => {
                    let view = view_of(&session);
                    match here {
                        Some(s) if view_of(s) == view => {
                            self.base.insert(id.clone(), view);
                        }
                        _ => out.store.push(session),
                    }
                }
            }
        }
        out.upload = self.pending.iter().cloned().collect();
        out
    }
}

/// Ids of the messages of `session` still arriving (left out of its record until they end).
fn arriving(session: &Session) -> BTreeSet<String> {
    session
        .messages
        .iter()
        .filter(|m| m.status == Status::Streaming)
        .map(|m| m.id.clone())
        .collect()
}

/// What changed from `base` to `now` (a removed key as `null`), leaving alone the parts of the
/// messages still `arriving` and, while one is, where the chat ends.
fn changes(base: &View, now: &View, arriving: &BTreeSet<String>) -> Vec<(String, Value)> {
    let of_arriving = |key: &str| {
        (key == "c:leaf" && !arriving.is_empty())
            || key
                .split_once(':')
                .is_some_and(|(kind, id)| matches!(kind, "m" | "f") && arriving.contains(id))
    };
    let changed = now
        .iter()
        .filter(|(k, v)| base.get(*k) != Some(*v) && !of_arriving(k))
        .map(|(k, v)| (k.clone(), v.clone()));
    let removed = base
        .keys()
        .filter(|k| !now.contains_key(*k) && !of_arriving(k))
        .map(|k| (k.clone(), Value::Null));
    changed.chain(removed).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Command, Session};

    /// A chat `id` with the user messages `texts` (ids `<id>-<n>`).
    fn chat(id: &str, texts: &[&str]) -> Session {
        let mut s = Session::new(id.to_string(), 1, None, Vec::new());
        for (n, text) in texts.iter().enumerate() {
            s.apply(Command::AddUser {
                attachments: String::new(),
                id: format!("{id}-{n}"),
                text: text.to_string(),
                at: 2 + n as i64,
            })
            .expect("a message");
        }
        s
    }

    fn chats(list: &[Session]) -> BTreeMap<String, Session> {
        list.iter().map(|s| (s.id.clone(), s.clone())).collect()
    }

    fn texts(s: &Session) -> Vec<&str> {
        s.messages.iter().map(|m| m.content.as_str()).collect()
    }

    /// A pass of `replica`; also answers the records it would upload.
    fn step(
        replica: &mut Replica,
        local: &BTreeMap<String, Session>,
        remote: &BTreeMap<String, Doc>,
        wall: i64,
    ) -> (Outcome, BTreeMap<String, Doc>) {
        let out = replica.pass(local, &kept(), remote, wall);
        for session in &out.store {
            replica.stored(session);
        }
        for id in &out.remove {
            replica.removed(id);
        }
        let up = out
            .upload
            .iter()
            .map(|id| (id.clone(), replica.docs[id].clone()))
            .collect();
        for id in &out.upload {
            replica.uploaded(id);
        }
        (out, up)
    }

    fn none() -> BTreeMap<String, Doc> {
        BTreeMap::new()
    }

    fn kept() -> BTreeSet<String> {
        BTreeSet::new()
    }

    #[test]
    fn a_blank_device_takes_what_the_folder_has_and_deletes_nothing() {
        let mut laptop = Replica::new("laptop");
        let (first, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        assert_eq!(first.upload, ["c1"]);

        let mut phone = Replica::new("phone");
        let out = phone.pass(&BTreeMap::new(), &kept(), &folder, 20);
        assert_eq!(out.store.len(), 1);
        assert_eq!(texts(&out.store[0]), ["hello"]);
        assert!(out.remove.is_empty() && out.upload.is_empty(), "{out:?}");
    }

    #[test]
    fn two_devices_in_step_stop_writing() {
        let mut laptop = Replica::new("laptop");
        let local = chats(&[chat("c1", &["hello"])]);
        let (_, folder) = step(&mut laptop, &local, &none(), 10);
        let mut phone = Replica::new("phone");
        let phone_local = chats(&phone.pass(&BTreeMap::new(), &kept(), &folder, 20).store);
        // Nothing changed anywhere: neither uploads, neither stores.
        assert_eq!(
            phone.pass(&phone_local, &kept(), &folder, 30),
            Outcome::default()
        );
        assert_eq!(
            laptop.pass(&local, &kept(), &folder, 40),
            Outcome::default()
        );
    }

    #[test]
    fn changes_to_different_parts_of_one_chat_are_both_kept() {
        let mut laptop = Replica::new("laptop");
        let base = chat("c1", &["hello"]);
        let (_, folder) = step(
            &mut laptop,
            &chats(std::slice::from_ref(&base)),
            &none(),
            10,
        );
        let mut phone = Replica::new("phone");
        let mut on_phone = phone
            .pass(&BTreeMap::new(), &kept(), &folder, 20)
            .store
            .remove(0);

        // The laptop adds a message; the phone renames the chat.
        let mut on_laptop = base.clone();
        on_laptop
            .apply(Command::AddUser {
                attachments: String::new(),
                id: "c1-from-laptop".into(),
                text: "from the laptop".into(),
                at: 30,
            })
            .unwrap();
        on_phone
            .apply(Command::Rename {
                title: "Renamed on the phone".into(),
            })
            .unwrap();
        let (_, from_laptop) = step(&mut laptop, &chats(&[on_laptop.clone()]), &none(), 40);
        let (out, from_phone) = step(&mut phone, &chats(&[on_phone]), &from_laptop, 50);
        let merged = &out.store[0];
        assert_eq!(merged.title, "Renamed on the phone");
        assert_eq!(texts(merged), ["hello", "from the laptop"]);
        // The folder lacks the rename: the phone uploads it, and the laptop takes it.
        assert_eq!(out.upload, ["c1"]);
        let back = laptop.pass(&chats(&[on_laptop]), &kept(), &from_phone, 60);
        assert_eq!(back.store.len(), 1);
        assert_eq!(back.store[0].title, "Renamed on the phone");
        assert_eq!(texts(&back.store[0]), ["hello", "from the laptop"]);
        assert!(back.upload.is_empty(), "{back:?}");
    }

    #[test]
    fn an_upload_that_did_not_arrive_is_asked_for_again() {
        let mut laptop = Replica::new("laptop");
        let local = chats(&[chat("c1", &["hello", "more"])]);
        assert_eq!(laptop.pass(&local, &kept(), &none(), 10).upload, ["c1"]);
        // Not confirmed (the server failed): asked for again, with nothing changed.
        assert_eq!(laptop.pass(&local, &kept(), &none(), 20).upload, ["c1"]);
        laptop.uploaded("c1");
        assert!(laptop.pass(&local, &kept(), &none(), 30).upload.is_empty());
        // The folder holds an older copy, without the second message (the write that brought
        // it was lost): ours goes back.
        let mut old = Replica::new("old");
        let (_, stale) = step(&mut old, &chats(&[chat("c1", &["hello"])]), &none(), 1);
        let out = laptop.pass(&local, &kept(), &stale, 40);
        assert_eq!(out.upload, ["c1"]);
    }

    #[test]
    fn a_deleted_chat_is_not_brought_back_by_an_older_copy() {
        let mut laptop = Replica::new("laptop");
        let (_, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        let mut phone = Replica::new("phone");
        let had = phone.pass(&BTreeMap::new(), &kept(), &folder, 15).store;
        // Deleted on the laptop; the folder still has the old record (not yet overwritten).
        let (out, deletion) = step(&mut laptop, &BTreeMap::new(), &folder, 20);
        assert!(out.store.is_empty(), "{out:?}");
        assert_eq!(out.upload, ["c1"]);
        assert!(!laptop.docs["c1"].is_live());

        // The phone had it, unchanged: the deletion reaches it.
        let out = phone.pass(&chats(&had), &kept(), &deletion, 30);
        assert_eq!(out.remove, ["c1"]);
        assert!(out.store.is_empty() && out.upload.is_empty(), "{out:?}");
    }

    #[test]
    fn a_chat_changed_after_its_deletion_elsewhere_stays_with_that_change() {
        let mut laptop = Replica::new("laptop");
        let base = chat("c1", &["hello"]);
        let (_, folder) = step(&mut laptop, &chats(&[base]), &none(), 10);
        let mut phone = Replica::new("phone");
        let mut on_phone = phone
            .pass(&BTreeMap::new(), &kept(), &folder, 11)
            .store
            .remove(0);
        // Deleted on the laptop at 20; the phone, offline, adds a message at 30.
        let (_, deletion) = step(&mut laptop, &BTreeMap::new(), &none(), 20);
        on_phone
            .apply(Command::AddUser {
                attachments: String::new(),
                id: "late".into(),
                text: "written later".into(),
                at: 30,
            })
            .unwrap();
        let (out, from_phone) = step(&mut phone, &chats(&[on_phone.clone()]), &deletion, 30);
        // The phone's chat stays as it is there, whole, and goes back to the folder.
        assert!(out.remove.is_empty() && out.store.is_empty(), "{out:?}");
        assert_eq!(out.upload, ["c1"]);
        // The laptop takes it back whole.
        let back = laptop.pass(&BTreeMap::new(), &kept(), &from_phone, 40);
        assert_eq!(back.store.len(), 1, "{back:?}");
        assert_eq!(texts(&back.store[0]), ["hello", "written later"]);
        assert_eq!(back.store[0], on_phone);
    }

    #[test]
    fn an_unreadable_record_is_kept_and_not_applied() {
        let mut phone = Replica::new("phone");
        let mut clock = Clock::new("newer");
        let mut doc = Doc::default();
        let view = BTreeMap::from([("c:created_at".to_string(), serde_json::json!("not a time"))]);
        doc.record(&view, &mut clock, 5);
        let out = phone.pass(
            &BTreeMap::new(),
            &kept(),
            &BTreeMap::from([("c1".to_string(), doc)]),
            10,
        );
        assert!(out.store.is_empty(), "{out:?}");
        assert_eq!(out.unreadable.len(), 1);
        assert_eq!(out.unreadable[0].0, "c1");
    }

    #[test]
    fn a_chat_this_device_never_held_is_never_deleted_by_it() {
        let mut laptop = Replica::new("laptop");
        let (_, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        // The phone could not write it (storage full): the store is never confirmed.
        let mut phone = Replica::new("phone");
        assert_eq!(
            phone
                .pass(&BTreeMap::new(), &kept(), &folder, 20)
                .store
                .len(),
            1
        );
        let out = phone.pass(&BTreeMap::new(), &kept(), &none(), 30);
        assert!(out.upload.is_empty(), "{out:?}");
        assert!(phone.docs["c1"].is_live());
        // The store is asked again.
        assert_eq!(out.store.len(), 1, "{out:?}");
        // A chat stored here that cannot be read is kept: not synced, not deleted.
        let mut tablet = Replica::new("tablet");
        let (_, _) = step(&mut tablet, &BTreeMap::new(), &folder, 20);
        let unreadable = BTreeSet::from(["c1".to_string()]);
        let out = tablet.pass(&BTreeMap::new(), &unreadable, &none(), 30);
        assert!(
            out.upload.is_empty() && tablet.docs["c1"].is_live(),
            "{out:?}"
        );
        // A change from elsewhere is not written over the copy here that cannot be read.
        let mut renamed = chat("c1", &["hello"]);
        renamed
            .apply(Command::Rename {
                title: "New".into(),
            })
            .unwrap();
        let (_, change) = step(&mut laptop, &chats(&[renamed]), &none(), 40);
        let out = tablet.pass(&BTreeMap::new(), &unreadable, &change, 50);
        assert!(out.store.is_empty() && out.remove.is_empty(), "{out:?}");
    }

    #[test]
    fn old_chats_of_a_device_turning_sync_on_bring_back_no_deletion_and_revert_nothing() {
        let mut laptop = Replica::new("laptop");
        let (_, folder) = step(
            &mut laptop,
            &chats(&[chat("c1", &["hello"]), chat("c2", &["hi"])]),
            &none(),
            10,
        );
        let mut renamed = chat("c2", &["hi"]);
        renamed
            .apply(Command::Rename {
                title: "Newer title".into(),
            })
            .unwrap();
        renamed.updated_at = 15;
        let (_, changed) = step(
            &mut laptop,
            &chats(&[chat("c1", &["hello"]), renamed]),
            &folder,
            15,
        );
        let (_, deleted) = step(
            &mut laptop,
            &chats(&[laptop_chat(&changed, "c2")]),
            &none(),
            20,
        );
        let mut folder_now = changed.clone();
        folder_now.extend(deleted);
        // The phone had both chats from before (an import, long ago) and turns sync on.
        let mut phone = Replica::new("phone");
        let out = phone.pass(
            &chats(&[chat("c1", &["hello"]), chat("c2", &["hi"])]),
            &kept(),
            &folder_now,
            100,
        );
        assert_eq!(out.remove, ["c1"], "{out:?}");
        assert_eq!(out.store.len(), 1);
        assert_eq!(out.store[0].title, "Newer title");
    }

    /// Chat `id` as the record `docs` holds it.
    fn laptop_chat(docs: &BTreeMap<String, Doc>, id: &str) -> Session {
        session_of(id, &docs[id].view()).unwrap()
    }

    #[test]
    fn a_copy_behind_the_folder_reverts_nothing() {
        let mut laptop = Replica::new("laptop");
        let base = chat("c1", &["hello"]);
        let (_, folder) = step(
            &mut laptop,
            &chats(std::slice::from_ref(&base)),
            &none(),
            10,
        );
        let mut phone = Replica::new("phone");
        let (took, _) = step(&mut phone, &BTreeMap::new(), &folder, 20);
        let on_phone = chats(&took.store);
        let mut renamed = base.clone();
        renamed
            .apply(Command::Rename {
                title: "Renamed".into(),
            })
            .unwrap();
        let (_, change) = step(&mut laptop, &chats(&[renamed]), &none(), 30);
        // The phone's store of the rename is not written yet: its copy is behind, twice.
        for wall in [40, 50] {
            let out = phone.pass(&on_phone, &kept(), &change, wall);
            assert!(out.upload.is_empty(), "{out:?}");
            assert_eq!(out.store.len(), 1);
            assert_eq!(out.store[0].title, "Renamed");
        }
    }

    #[test]
    fn parts_this_satori_does_not_know_are_kept() {
        let mut newer = Replica::new("newer");
        let (_, folder) = step(&mut newer, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        let mut doc = folder["c1"].clone();
        let mut clock = Clock::new("newer");
        let mut view = doc.view();
        view.insert("c:folder".into(), serde_json::json!("Work"));
        doc.record(&view, &mut clock, 11);
        let remote = BTreeMap::from([("c1".to_string(), doc)]);
        let mut phone = Replica::new("phone");
        let (took, _) = step(&mut phone, &BTreeMap::new(), &remote, 20);
        assert_eq!(took.store.len(), 1);
        let mut here = took.store[0].clone();
        here.apply(Command::Rename {
            title: "Mine".into(),
        })
        .unwrap();
        let (out, up) = step(&mut phone, &chats(&[here]), &none(), 30);
        assert!(out.store.is_empty(), "stored once: {out:?}");
        assert_eq!(up["c1"].view()["c:folder"], "Work");
        assert_eq!(up["c1"].view()["c:title"], "Mine");
    }

    #[test]
    fn a_reply_still_arriving_is_never_recorded_as_removed() {
        let mut laptop = Replica::new("laptop");
        let mut s = chat("c1", &["question"]);
        s.apply(Command::StartReply {
            id: "r".into(),
            parent: "c1-0".into(),
            model: "m".into(),
            at: 5,
        })
        .unwrap();
        s.apply(Command::FinishReply {
            id: "r".into(),
            status: Status::Complete,
            finish_reason: None,
            note: None,
            at: 6,
        })
        .unwrap();
        step(&mut laptop, &chats(std::slice::from_ref(&s)), &none(), 10);
        // Another tab's older copy shows the reply as still arriving.
        let mut behind = s.clone();
        behind.messages[1].status = Status::Streaming;
        let (out, up) = step(&mut laptop, &chats(&[behind]), &none(), 20);
        assert!(up.is_empty(), "{out:?}");
        assert!(laptop.docs["c1"].view().contains_key("m:r"));
    }

    /// What devices do, in the convergence property below.
    #[derive(Debug, Clone)]
    enum Act {
        /// A message added to chat `chat` (started if the device lacks it).
        Say { chat: u8 },
        /// Chat `chat` renamed.
        Rename { chat: u8, to: u8 },
        /// Chat `chat` deleted.
        Delete { chat: u8 },
        /// A sync pass: download everything, store and remove as asked, upload.
        Sync,
    }

    fn act() -> impl proptest::strategy::Strategy<Value = Act> {
        use proptest::prelude::*;
        prop_oneof![
            3 => (0u8..3).prop_map(|chat| Act::Say { chat }),
            1 => (0u8..3, 0u8..3).prop_map(|(chat, to)| Act::Rename { chat, to }),
            1 => (0u8..3).prop_map(|chat| Act::Delete { chat }),
            3 => Just(Act::Sync),
        ]
    }

    /// A device and its chats; the folder is a record per chat, merged into on upload (as a
    /// write that read the object first does).
    struct Device {
        replica: Replica,
        chats: BTreeMap<String, Session>,
    }

    fn sync(d: &mut Device, folder: &mut BTreeMap<String, Doc>, wall: i64) {
        let out = d.replica.pass(&d.chats, &kept(), folder, wall);
        for s in out.store {
            d.replica.stored(&s);
            d.chats.insert(s.id.clone(), s);
        }
        for id in out.remove {
            d.chats.remove(&id);
            d.replica.removed(&id);
        }
        for id in out.upload {
            folder
                .entry(id.clone())
                .or_default()
                .merge(&d.replica.docs[&id]);
            d.replica.uploaded(&id);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        /// Three devices changing, deleting and syncing chats in any order end, after each has
        /// synced twice in turn, holding the same chats as the folder.
        #[test]
        fn devices_that_sync_end_with_the_same_chats(
            acts in proptest::collection::vec((0usize..3, act()), 0..40),
        ) {
            let mut devices: Vec<Device> = ["a", "b", "c"]
                .iter()
                .map(|n| Device { replica: Replica::new(n), chats: BTreeMap::new() })
                .collect();
            let mut folder = BTreeMap::new();
            let mut wall = 100;
            for (n, (who, act)) in acts.iter().enumerate() {
                wall += 10;
                let d = &mut devices[*who];
                match act {
                    Act::Say { chat } => {
                        let id = format!("c{chat}");
                        let s = d.chats.entry(id.clone()).or_insert_with(|| Session::new(id, wall, None, Vec::new()));
                        s.apply(Command::AddUser { attachments: String::new(), id: format!("m{n}"), text: format!("{n}"), at: wall }).unwrap();
                    }
                    Act::Rename { chat, to } => {
                        if let Some(s) = d.chats.get_mut(&format!("c{chat}")) {
                            s.apply(Command::Rename { title: format!("t{to}") }).unwrap();
                            s.updated_at = wall;
                        }
                    }
                    Act::Delete { chat } => {
                        d.chats.remove(&format!("c{chat}"));
                    }
                    Act::Sync => sync(d, &mut folder, wall),
                }
            }
            for _ in 0..2 {
                for d in &mut devices {
                    wall += 10;
                    sync(d, &mut folder, wall);
                }
            }
            let held = |d: &Device| -> BTreeMap<String, View> {
                d.chats.iter().map(|(id, s)| (id.clone(), view_of(s))).collect()
            };
            let in_folder: BTreeMap<String, View> = folder
                .iter()
                .filter(|(_, doc)| doc.is_live())
                .map(|(id, doc)| (id.clone(), view_of(&session_of(id, &doc.view()).unwrap())))
                .collect();
            for d in &devices {
                proptest::prop_assert_eq!(&held(d), &in_folder, "device {}", d.replica.clock.device());
            }
        }
    }

    #[test]
    fn an_edit_older_than_a_deletion_elsewhere_does_not_bring_the_chat_back() {
        let mut laptop = Replica::new("laptop");
        let (_, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        let mut phone = Replica::new("phone");
        let (took, _) = step(&mut phone, &BTreeMap::new(), &folder, 11);
        let mut on_phone = took.store[0].clone();
        // The phone pins the message at 15, offline; the laptop deletes the chat at 20.
        on_phone.messages[0].pinned = true;
        on_phone.updated_at = 15;
        let (_, deletion) = step(&mut laptop, &BTreeMap::new(), &none(), 20);
        let out = phone.pass(&chats(&[on_phone]), &kept(), &deletion, 30);
        assert_eq!(out.remove, ["c1"], "{out:?}");
        assert!(!phone.docs["c1"].is_live());
    }
}
