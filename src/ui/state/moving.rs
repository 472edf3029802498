//! Moving between chats: opening one (a packed one once unpacked), leaving one that could not be
//! saved (after asking), deleting.

use super::saving::set_stored_clean;
use super::starting::fresh_session;
use super::{stop_turns, store, with_stored, Alert, AppState, Leave, PAGE};
use crate::core::persist;
use crate::core::prompts::Vars;
use crate::core::session::Session;
use crate::shell::error_text::chat_unopenable;
use leptos::prelude::*;

impl AppState {
    /// Whether the open chat may be left for `to`: yes if it is saved (or saving it again now
    /// works); otherwise the alert asks first — export it, or leave without saving.
    pub(super) fn may_leave(&self, to: Leave) -> bool {
        if !self.unsaved.get_untracked() {
            return true;
        }
        self.save_session();
        if !self.unsaved.get_untracked() {
            return true;
        }
        self.alert.set(Some(Alert {
            text: crate::shell::error_text::UNSAVED_LEAVE.into(),
            export: true,
            leave: Some(to),
            ..Alert::default()
        }));
        false
    }

    /// "Leave without saving": drop the unsaved changes of the open chat and go to `to`.
    pub fn leave_unsaved(&self, to: Leave) {
        self.alert.set(None);
        // A chat that was never written leaves no entry behind in the list.
        let open = self.session.with_untracked(|s| s.id.clone());
        if matches!(store().get(&persist::session_key(&open)), Ok(None)) {
            self.index.update(|i| i.remove(&open));
        }
        stop_turns();
        match to {
            // `open_now` clears the flag only once the other chat is open.
            Leave::Open(id) => {
                self.open_now(&id);
            }
            Leave::New => {
                self.unsaved.set(false);
                self.start_chat(self.next_role.get_untracked(), Vars::new(), false);
            }
        }
    }

    /// Open another session by id; returns whether it could be opened.
    /// A reply streaming in the chat on screen is stopped first — after asking, if that chat
    /// could not be saved.
    pub fn open(&self, id: &str) -> bool {
        self.open_at(id, || {})
    }

    /// [`Self::open`], then `then` once the chat is on screen (a packed chat is unpacked first).
    pub fn open_at(&self, id: &str, then: impl FnOnce() + 'static) -> bool {
        if !self.may_leave(Leave::Open(id.to_string())) {
            return false;
        }
        stop_turns();
        self.open_with(
            id,
            true,
            Box::new(move |_, opened| {
                if opened {
                    then()
                }
            }),
        )
    }

    /// Open chat `id` without asking about the one on screen. A packed chat opens once it is
    /// unpacked (unless another chat was opened meanwhile).
    fn open_now(&self, id: &str) -> bool {
        self.open_with(id, true, Box::new(|_, _| {}))
    }

    /// Open chat `id`, then call `then` with whether it opened — at once, or once a packed chat
    /// is unpacked; not at all if another chat was opened (or started) meanwhile. Answers whether
    /// the chat opened or is opening. The alert on screen goes when it opens if `clear_alert`,
    /// and an alert that appeared while a packed chat was unpacked is kept.
    pub(super) fn open_with(
        &self,
        id: &str,
        clear_alert: bool,
        then: Box<dyn FnOnce(AppState, bool)>,
    ) -> bool {
        let generation = PAGE.with(|p| p.opening.get() + 1);
        PAGE.with(|p| p.opening.set(generation));
        let app = *self;
        let from = self.session.with_untracked(|s| s.id.clone());
        let alert = self.alert.get_untracked();
        let answer = std::rc::Rc::new(std::cell::Cell::new(None));
        let answered = answer.clone();
        let target = id.to_string();
        with_stored(
            id,
            Box::new(move |read| {
                if PAGE.with(|p| p.opening.get()) != generation
                    || app.session.with_untracked(|s| s.id != from)
                {
                    return;
                }
                let opened = match read {
                    Ok(sess) => {
                        let keep = app.alert.get_untracked() != alert;
                        app.show_opened(&target, sess, clear_alert && !keep);
                        true
                    }
                    Err(why) => {
                        app.alert.set(Some(Alert {
                            text: chat_unopenable(&why),
                            ..Alert::default()
                        }));
                        false
                    }
                };
                answered.set(Some(opened));
                then(app, opened);
            }),
        );
        // Not answered yet: a packed chat, opening.
        answer.get().unwrap_or(true)
    }

    fn show_opened(&self, id: &str, mut sess: Session, clear_alert: bool) {
        let s = store();
        let recovered = sess.recover_interrupted();
        let written = recovered && {
            let (head, parts) = persist::encode_chat(&mut sess);
            s.write_chat(id, &head, &parts).is_ok()
        };
        set_stored_clean(
            id,
            if recovered && !written {
                0
            } else {
                s.stored_in_parts(&sess)
            },
        );
        let draft = s
            .get(&persist::draft_key(id))
            .ok()
            .flatten()
            .and_then(|t| persist::decode_draft(&t).ok())
            .unwrap_or_default();
        self.session.set(sess);
        self.setup_problem.set(None);
        self.unsaved.set(false);
        self.draft.set(draft);
        super::clear_chips();
        self.index.update(|i| i.active = Some(id.to_string()));
        self.save_index();
        if clear_alert {
            self.alert.set(None);
        }
    }

    /// Delete the open chat (its record, draft and index entry) and open the next one.
    pub fn delete_active(&self) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let s = store();
        self.report_storage(s.remove_chat(&id));
        let _ = s.save_draft(&id, "");
        self.leave_removed(&id);
        self.save_index();
    }

    /// Delete chat `id`, which is not the open one (its record, draft and list entry).
    pub fn delete_stored(&self, id: &str) {
        let s = store();
        self.report_storage(s.remove_chat(id));
        let _ = s.save_draft(id, "");
        self.index.update(|i| i.remove(id));
        self.save_index();
    }

    /// The open chat `id` is gone (deleted here or in another tab): drop it from the list and
    /// open the next one, or a fresh chat.
    pub(super) fn leave_removed(&self, id: &str) {
        self.index.update(|i| i.remove(id));
        let next = self.index.with_untracked(|i| i.active.clone());
        self.unsaved.set(false);
        // The next chat, or (if there is none, or it cannot be opened) a fresh one. The chat
        // that is gone leaves the screen at once — an unsaved placeholder stands in while a
        // packed next chat is unpacked — so no save can bring it back.
        let fresh = |app: AppState| {
            app.session.set(fresh_session());
            app.draft.set(String::new());
            super::clear_chips();
            app.save_session();
            app.start_chat(app.next_role.get_untracked(), Vars::new(), true);
        };
        match next {
            Some(next) => {
                self.session.set(fresh_session());
                self.open_with(
                    &next,
                    true,
                    Box::new(move |app, opened| {
                        if !opened {
                            // Starting the fresh chat would take back the alert saying why.
                            let why = app.alert.get_untracked();
                            fresh(app);
                            if why.is_some() {
                                app.alert.set(why);
                            }
                        }
                    }),
                );
            }
            None => fresh(*self),
        }
    }
}
