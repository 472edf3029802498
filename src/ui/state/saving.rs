//! Saving: the open chat in parts (only what changed), the other chats whole, the draft, the
//! chat list, and room made when storage is full. What to write comes from `core::saving`.

use super::{store, with_stored, Alert, AppState, PAGE};
use crate::adapters::clock::now_ms;
use crate::adapters::storage::StorageError;
use crate::core::persist;
use crate::core::saving::{self, Written};
use crate::core::session::{Command, Session, SessionError, Status};
use crate::shell::error_text::describe_storage;
use leptos::prelude::*;

/// How many of chat `id`'s first messages are stored as the open chat has them.
pub(super) fn stored_clean(id: &str) -> usize {
    PAGE.with(|p| p.clean.borrow().of(id))
}

/// The first `n` messages of chat `id` are stored as the open chat has them.
pub(super) fn set_stored_clean(id: &str, n: usize) {
    PAGE.with(|p| p.clean.borrow_mut().set(id, n));
}

/// Chat `id`'s message `from` may differ from what is stored.
pub(super) fn touch_stored(id: &str, from: usize) {
    PAGE.with(|p| p.clean.borrow_mut().touch(id, from));
}

/// How a write ended, for `core::saving`'s decisions.
fn written(result: &Result<(), StorageError>) -> Written {
    match result {
        Ok(()) => Written::Ok,
        Err(StorageError::QuotaExceeded) => Written::Full,
        Err(StorageError::Unavailable) => Written::Unavailable,
        Err(_) => Written::Failed,
    }
}

impl AppState {
    /// Show a storage failure (keeps an existing alert about something else).
    pub(super) fn report_storage(&self, result: Result<(), StorageError>) {
        if let Err(e) = result {
            self.alert.set(Some(Alert {
                text: describe_storage(&e),
                export: true,
                ..Alert::default()
            }));
        }
    }

    /// Write the index record.
    pub fn save_index(&self) {
        if !self.index_writable {
            return;
        }
        let written = self.index.with_untracked(|i| store().save_index(i));
        self.report_storage(written);
    }

    /// Write the open session (that record only) and its index entry. A reply that is still
    /// arriving is saved with the text received so far, so no save ever drops it.
    ///
    /// The chat is stored in parts ([`persist::encode_head`]): only the parts from the first
    /// message changed since the last save on are written (normally the last one), then the head.
    /// The whole save is the User Timing measure `satori:save`.
    pub fn save_session(&self) {
        let start = crate::adapters::clock::precise_ms();
        let live = self.live.get_untracked();
        let mut write = None;
        self.session.update_untracked(|s| {
            let streaming = live
                .as_ref()
                .filter(|l| l.session_id == s.id)
                .and_then(|l| {
                    let at = s
                        .messages
                        .iter()
                        .position(|m| m.id == l.id && m.status == Status::Streaming)?;
                    Some((at, l))
                });
            let plan = saving::plan_save(
                s.messages.len(),
                stored_clean(&s.id),
                store().head(&s.id).map(|(_, count)| count),
                streaming.map(|(at, _)| at),
            );
            // The reply still arriving is written with the text received so far: put in for
            // the encoding, then taken out again.
            let mut text = streaming.map(|(_, l)| (l.content.clone(), l.reasoning.clone()));
            let mut swap = |s: &mut Session| {
                if let (Some((at, _)), Some((content, reasoning))) = (streaming, text.as_mut()) {
                    std::mem::swap(&mut s.messages[at].content, content);
                    std::mem::swap(&mut s.messages[at].reasoning, reasoning);
                }
            };
            swap(s);
            let (head, parts) = persist::encode_from(s, plan.from);
            swap(s);
            write = Some((s.id.clone(), head, parts, plan.clean_after));
        });
        let Some((id, head, parts, clean)) = write else {
            return;
        };
        let result = store().write_chat(&id, &head, &parts);
        if result.is_ok() {
            set_stored_clean(&id, clean);
        }
        self.session.with_untracked(|s| self.after_write(s, result));
        crate::adapters::clock::measure_since("satori:save", start);
    }

    /// The open session as it is on screen: a reply still arriving has the text received so far.
    pub fn snapshot(&self) -> Session {
        let mut snapshot = self.session.get_untracked();
        if let Some(live) = self.live.get_untracked() {
            if live.session_id == snapshot.id {
                let _ = snapshot.apply(Command::SetReply {
                    id: live.id,
                    content: live.content,
                    reasoning: live.reasoning,
                });
            }
        }
        snapshot
    }

    /// Write every record of a chat that is not open.
    fn save_other(&self, session: &mut Session) {
        let (head, parts) = persist::encode_chat(session);
        let result = store().write_chat(&session.id, &head, &parts);
        self.after_write(session, result);
    }

    /// After a chat was written (or not): the unsaved flag, its chat list entry, the index
    /// record, and room made when storage is full.
    fn after_write(&self, session: &Session, result: Result<(), StorageError>) {
        let open = self.session.with_untracked(|s| s.id.clone());
        let next = saving::after_write(session.id == open, written(&result));
        if let Some(unsaved) = next.unsaved {
            self.unsaved.set(unsaved);
        }
        // The chat stays listed even when it could not be written.
        self.index.update(|idx| {
            idx.upsert(session);
            idx.active = Some(open);
        });
        if next.save_index {
            self.save_index();
        } else {
            self.report_storage(result);
        }
        if next.make_room {
            self.make_room();
        }
    }

    /// Storage is full: pack the other chats now, then save the chat on screen again if it is
    /// still the one that could not be saved, and take back the alert this raised if nothing
    /// replaced it and the save went through. One attempt at a time, and none for half a minute
    /// after one that did not get the chat saved.
    fn make_room(&self) {
        let (busy, fruitless) = PAGE.with(|p| p.room.get());
        if !saving::may_make_room(now_ms(), fruitless, busy) {
            return;
        }
        PAGE.with(|p| p.room.set((true, fruitless)));
        let app = *self;
        let id = self.session.with_untracked(|s| s.id.clone());
        let raised = self.alert.get_untracked();
        leptos::task::spawn_local(async move {
            let _ = crate::shell::compact::make_room(&id).await;
            let here = app.session.with_untracked(|s| s.id == id);
            if here && app.unsaved.get_untracked() {
                // Written whole: what is stored of it may have changed meanwhile.
                touch_stored(&id, 0);
                app.save_session();
            }
            let fruitless = if app.unsaved.get_untracked() {
                Some(now_ms())
            } else {
                if here && app.alert.get_untracked() == raised {
                    // Saved (now, or by a save that found the room while the others were packed).
                    app.alert.set(None);
                }
                fruitless
            };
            PAGE.with(|p| p.room.set((false, fruitless)));
        });
    }

    /// Apply a command to the open session and save it.
    pub fn apply(&self, cmd: Command) -> Result<(), SessionError> {
        let result = self.apply_unsaved(cmd);
        if result.is_ok() {
            self.save_session();
        }
        result
    }

    /// Apply a command to the open session; the next save writes it.
    pub fn apply_unsaved(&self, cmd: Command) -> Result<(), SessionError> {
        let mut result = Ok(());
        self.session.update(|s| {
            touch_stored(&s.id, s.touched(&cmd));
            result = s.apply(cmd);
        });
        result
    }

    /// Apply commands to a stored session that is not open (a reply that ended after the user
    /// switched chats). If that cannot be done — the record is gone or unreadable, or a command
    /// fails — the alert says so and an unreadable record is left untouched; a chat deleted here
    /// (no longer listed) is let go quietly.
    pub fn apply_to_stored(&self, id: &str, cmds: Vec<Command>) {
        let Some(title) = self.index.with_untracked(|i| {
            i.sessions
                .iter()
                .find(|e| e.id == id)
                .map(|e| e.title.clone())
        }) else {
            return;
        };
        let app = *self;
        let target = id.to_string();
        with_stored(
            id,
            Box::new(move |read| {
                let open = app.session.with_untracked(|s| s.id == target);
                let applied = if open {
                    // Opened while it was unpacked: the reply goes into the chat on screen.
                    cmds.into_iter()
                        .try_for_each(|cmd| app.apply(cmd))
                        .map_err(|e| e.to_string())
                } else {
                    read.and_then(|mut sess| {
                        if let Some(e) = cmds.into_iter().find_map(|cmd| sess.apply(cmd).err()) {
                            return Err(e.to_string());
                        }
                        app.save_other(&mut sess);
                        Ok(())
                    })
                };
                if let Err(why) = applied {
                    app.alert.set(Some(Alert {
                        text: crate::shell::error_text::reply_not_kept(&title, &why),
                        ..Alert::default()
                    }));
                }
            }),
        );
    }

    /// Apply `cmds` to the open session, then save it (commands the session refuses change
    /// nothing).
    pub fn apply_all(&self, cmds: Vec<Command>) {
        self.session.update(|s| {
            for cmd in cmds {
                touch_stored(&s.id, s.touched(&cmd));
                let _ = s.apply(cmd);
            }
        });
        self.save_session();
    }

    /// Persist the draft of the open session. The first write over a stored draft that cannot be
    /// read keeps that record under a backup key first, and says so.
    pub fn save_draft(&self, text: &str) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let key = persist::draft_key(&id);
        if PAGE.with(|p| *p.draft_checked.borrow() != id) {
            if let Ok(Some(raw)) = store().get(&key) {
                if persist::decode_draft(&raw).is_err() {
                    match store().keep_backup("draft", now_ms(), &raw) {
                        Ok(backup) => self.alert.set(Some(Alert {
                            text: crate::shell::error_text::draft_kept(&backup),
                            ..Alert::default()
                        })),
                        Err(e) => {
                            // Never overwrite what could not be kept (checked again next time).
                            self.report_storage(Err(e));
                            return;
                        }
                    }
                }
            }
            PAGE.with(|p| p.draft_checked.borrow_mut().clone_from(&id));
        }
        self.report_storage(store().save_draft(&id, text));
    }
}
