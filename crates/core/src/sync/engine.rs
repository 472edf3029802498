//! One sync pass over the chats, the pure part: what this device changed since the last pass is
//! recorded into its copy of each chat's record ([`Doc`]), the records downloaded from the
//! folder are merged in, and the pass answers what to write to this device's storage, what to
//! remove from it, and which records to upload.
//!
//! Rules it keeps (each has a test below):
//! - a blank device (or one that lost its storage) takes what the folder has and overwrites
//!   nothing: a chat is only deleted by a device that had it and deleted it;
//! - a chat deleted here stays deleted when an older copy comes back from the folder, and a chat
//!   deleted elsewhere leaves this device too, unless this device changed it after the deletion:
//!   then it stays whole (what the deletion removed is written again, after it);
//! - two devices that changed different parts of one chat keep both changes (messages merge by
//!   id, fields by the later write);
//! - a record is uploaded only when the folder lacks something this device holds, so two devices
//!   in step stop writing (no ping-pong);
//! - a record whose parts do not make a chat (damaged, or of a newer Satori) is kept and uploaded
//!   as it is, never written over this device's copy of the chat.

use super::chat::{session_of, view_of};
use super::clock::Clock;
use super::doc::Doc;
use crate::session::Session;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// What a device keeps between passes: its clock and its copy of every chat's record as last
/// synced (deleted ones too, for [`super::TOMBSTONE_DAYS`]).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Replica {
    pub clock: Clock,
    /// Chat id → its record.
    pub docs: BTreeMap<String, Doc>,
    /// Chats whose record holds something the folder may lack: uploaded at the next chance,
    /// until [`Replica::uploaded`] says it arrived.
    #[serde(default)]
    pub pending: BTreeSet<String>,
}

/// What a pass asks of the device.
#[derive(Debug, Default, PartialEq)]
pub struct Outcome {
    /// Chats to write to this device's storage (new ones, and ones changed elsewhere). A chat
    /// that is open with a reply still arriving holds that reply outside its record (it is
    /// synced when it ends): the device merges such a chat in by message id
    /// ([`Session::merge_stored`]) rather than writing over it.
    pub store: Vec<Session>,
    /// Chats to remove from this device's storage (deleted elsewhere).
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
            pending: BTreeSet::new(),
        }
    }

    /// The record of chat `id` reached the folder as it is now.
    pub fn uploaded(&mut self, id: &str) {
        self.pending.remove(id);
    }

    /// A pass: `local` is every chat on this device now (by id, complete: a chat missing from it
    /// was deleted here, if this device had synced it), `remote` the records downloaded from the
    /// folder since the last pass (by chat id), `wall` this device's clock in ms.
    pub fn pass(
        &mut self,
        local: &BTreeMap<String, Session>,
        remote: &BTreeMap<String, Doc>,
        wall: i64,
    ) -> Outcome {
        let upload = &mut self.pending;
        // This device's own changes first, each a write after everything the record holds.
        for (id, session) in local {
            let doc = self.docs.entry(id.clone()).or_default();
            if doc.record(&view_of(session), &mut self.clock, wall) > 0 {
                upload.insert(id.clone());
            }
        }
        for (id, doc) in &mut self.docs {
            if doc.is_live() && !local.contains_key(id) {
                doc.delete(&mut self.clock, wall);
                upload.insert(id.clone());
            }
        }
        // Then what the folder holds.
        let mut out = Outcome::default();
        for (id, theirs) in remote {
            if let Some(newest) = theirs.newest() {
                self.clock.observe(newest);
            }
            let doc = self.docs.entry(id.clone()).or_default();
            let deleted = doc.deleted.clone();
            doc.merge(theirs);
            let here = local.get(id);
            // Deleted elsewhere, but changed here since: the chat stays whole (every part the
            // deletion removed is written again, after it).
            if let Some(session) = here.filter(|_| doc.deleted != deleted && doc.is_live()) {
                let mut view = doc.view();
                for (key, value) in view_of(session) {
                    view.entry(key).or_insert(value);
                }
                doc.record(&view, &mut self.clock, wall);
            }
            if doc != theirs {
                upload.insert(id.clone());
            }
            if !doc.is_live() {
                if here.is_some() {
                    out.remove.push(id.clone());
                }
                continue;
            }
            let view = doc.view();
            if here.is_some_and(|s| view_of(s) == view) {
                continue;
            }
            match session_of(id, &view) {
                Ok(session) => out.store.push(session),
                Err(why) => out.unreadable.push((id.clone(), why)),
            }
        }
        out.upload = self.pending.iter().cloned().collect();
        out
    }
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
        let out = replica.pass(local, remote, wall);
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

    #[test]
    fn a_blank_device_takes_what_the_folder_has_and_deletes_nothing() {
        let mut laptop = Replica::new("laptop");
        let (first, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        assert_eq!(first.upload, ["c1"]);

        let mut phone = Replica::new("phone");
        let out = phone.pass(&BTreeMap::new(), &folder, 20);
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
        let phone_local = chats(&phone.pass(&BTreeMap::new(), &folder, 20).store);
        // Nothing changed anywhere: neither uploads, neither stores.
        assert_eq!(phone.pass(&phone_local, &folder, 30), Outcome::default());
        assert_eq!(laptop.pass(&local, &folder, 40), Outcome::default());
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
        let mut on_phone = phone.pass(&BTreeMap::new(), &folder, 20).store.remove(0);

        // The laptop adds a message; the phone renames the chat.
        let mut on_laptop = base.clone();
        on_laptop
            .apply(Command::AddUser {
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
        let back = laptop.pass(&chats(&[on_laptop]), &from_phone, 60);
        assert_eq!(back.store.len(), 1);
        assert_eq!(back.store[0].title, "Renamed on the phone");
        assert_eq!(texts(&back.store[0]), ["hello", "from the laptop"]);
        assert!(back.upload.is_empty(), "{back:?}");
    }

    #[test]
    fn an_upload_that_did_not_arrive_is_asked_for_again() {
        let mut laptop = Replica::new("laptop");
        let local = chats(&[chat("c1", &["hello"])]);
        assert_eq!(laptop.pass(&local, &none(), 10).upload, ["c1"]);
        // Not confirmed (the server failed): asked for again, with nothing changed.
        assert_eq!(laptop.pass(&local, &none(), 20).upload, ["c1"]);
        laptop.uploaded("c1");
        assert!(laptop.pass(&local, &none(), 30).upload.is_empty());
        // The folder holds an older copy (another device's write was lost): ours goes back.
        let mut old = Replica::new("old");
        let (_, stale) = step(&mut old, &chats(&[chat("c1", &["hello"])]), &none(), 1);
        let out = laptop.pass(&local, &stale, 40);
        assert_eq!(out.upload, ["c1"]);
    }

    #[test]
    fn a_deleted_chat_is_not_brought_back_by_an_older_copy() {
        let mut laptop = Replica::new("laptop");
        let (_, folder) = step(&mut laptop, &chats(&[chat("c1", &["hello"])]), &none(), 10);
        let mut phone = Replica::new("phone");
        let had = phone.pass(&BTreeMap::new(), &folder, 15).store;
        // Deleted on the laptop; the folder still has the old record (not yet overwritten).
        let (out, deletion) = step(&mut laptop, &BTreeMap::new(), &folder, 20);
        assert!(out.store.is_empty(), "{out:?}");
        assert_eq!(out.upload, ["c1"]);
        assert!(!laptop.docs["c1"].is_live());

        // The phone had it, unchanged: the deletion reaches it.
        let out = phone.pass(&chats(&had), &deletion, 30);
        assert_eq!(out.remove, ["c1"]);
        assert!(out.store.is_empty() && out.upload.is_empty(), "{out:?}");
    }

    #[test]
    fn a_chat_changed_after_its_deletion_elsewhere_stays_with_that_change() {
        let mut laptop = Replica::new("laptop");
        let base = chat("c1", &["hello"]);
        let (_, folder) = step(&mut laptop, &chats(&[base]), &none(), 10);
        let mut phone = Replica::new("phone");
        let mut on_phone = phone.pass(&BTreeMap::new(), &folder, 11).store.remove(0);
        // Deleted on the laptop at 20; the phone, offline, adds a message at 30.
        let (_, deletion) = step(&mut laptop, &BTreeMap::new(), &none(), 20);
        on_phone
            .apply(Command::AddUser {
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
        let back = laptop.pass(&BTreeMap::new(), &from_phone, 40);
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
            &BTreeMap::from([("c1".to_string(), doc)]),
            10,
        );
        assert!(out.store.is_empty(), "{out:?}");
        assert_eq!(out.unreadable.len(), 1);
        assert_eq!(out.unreadable[0].0, "c1");
    }
}
