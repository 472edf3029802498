//! What another tab wrote: the chat list read again, the open chat merged or left.

use super::saving::touch_stored;
use super::{stop_turns, store, Alert, AppState};
use crate::core::persist;
use crate::core::saving::{self, Change};
use leptos::prelude::*;

impl AppState {
    /// Read the chat list again from storage after an import (or its undo) changed it; the chat
    /// on screen stays open.
    pub fn reload_index(&self) {
        let stored = store()
            .get(persist::KEY_INDEX)
            .ok()
            .flatten()
            .and_then(|t| persist::decode_index(&t).ok());
        if let Some(stored) = stored {
            let open = self.session.get_untracked();
            self.index.update(|i| saving::list_reread(i, stored, &open));
        }
    }

    /// Another tab changed record `key` (a `storage` event; `value` is the new text, `None` when
    /// it was removed). The chat list is read again; the open chat takes in what the other tab
    /// added (and writes back what that tab lacks, so both converge without losing a message);
    /// if the other tab deleted the open chat, this tab leaves it and says so.
    pub fn on_storage(&self, key: &str, value: Option<String>) {
        let open = self.session.with_untracked(|s| s.id.clone());
        let change = saving::change_of(key, &open, value.is_none());
        match change {
            Change::Elsewhere => {}
            Change::Index => self.reload_index(),
            Change::OpenRemoved => {
                stop_turns();
                self.leave_removed(&open);
                self.alert.set(Some(Alert {
                    text: crate::shell::error_text::DELETED_ELSEWHERE.into(),
                    ..Alert::default()
                }));
            }
            Change::OpenWritten | Change::OpenPart => {
                // The other tab wrote the chat's parts as it has them.
                touch_stored(&open, 0);
                let Ok(Some(record)) = store().chat(&open) else {
                    return;
                };
                let Ok(theirs) = persist::decode_session(&record.text) else {
                    return;
                };
                // A part written before its head: the save is not over, the head's event follows.
                if change == Change::OpenPart && record.count != Some(theirs.messages.len()) {
                    return;
                }
                let mut mine = self.session.get_untracked();
                let live = self
                    .live
                    .with_untracked(|l| l.as_ref().map(|l| l.id.clone()));
                let merged = mine.merge_stored(&theirs, live.as_deref());
                if merged.added > 0 {
                    self.session.set(mine);
                }
                if merged.theirs_lack {
                    self.save_session();
                }
            }
        }
    }
}
