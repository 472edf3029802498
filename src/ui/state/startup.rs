//! Start-up: every stored record read once, before the app mounts, then the app's state made from
//! it.

use super::saving::set_stored_clean;
use super::starting::{default_role, fresh_session};
use super::{store, Alert, AppState, Chats, Connection, LiveTurn, Overlay, Ro, PAGE};
use crate::adapters::clock::now_ms;
use crate::adapters::storage::StorageError;
use crate::core::prompts::catalog::Catalog;
use crate::core::prompts::RoleRef;
use crate::core::startup;
use crate::shell::error_text::{
    describe_storage, kept_as, load_problem, not_kept, prompts_unreadable,
};
use leptos::prelude::*;

/// What [`preload`] read, whether another tab wrote since (its `storage` events come before the
/// app listens), and the listener that notes it.
pub(super) type Preloaded = (
    startup::Loaded,
    std::rc::Rc<std::cell::Cell<bool>>,
    WindowListenerHandle,
);

/// Read every stored record now, so the app's mount (a task later) does not: a long chat's
/// start-up is then two tasks instead of one twice as long. Pure reading; [`AppState::load`]
/// takes what was read, or reads anew when nothing was or another tab wrote in between (what it
/// wrote would otherwise be missed, and overwritten by the first save).
pub fn preload() {
    if let Some((_, _, old)) = PAGE.with(|p| p.preloaded.take()) {
        old.remove();
    }
    let changed = std::rc::Rc::new(std::cell::Cell::new(false));
    let seen = changed.clone();
    let listener = window_event_listener(leptos::ev::storage, move |_| seen.set(true));
    let loaded = startup::load(&store());
    PAGE.with(|p| p.preloaded.replace(Some((loaded, changed, listener))));
}

impl AppState {
    /// Load everything from storage ([`startup::load`]). Corrupt records are reported, never
    /// fatal.
    pub fn load() -> Self {
        let s = store();
        let stale = PAGE.with(|p| {
            p.preloaded
                .borrow()
                .as_ref()
                .is_none_or(|(_, changed, _)| changed.get())
        });
        if stale {
            preload();
        }
        // The app's own listener takes over from here (same task).
        let loaded = match PAGE.with(|p| p.preloaded.take()) {
            Some((loaded, _, listener)) => {
                listener.remove();
                loaded
            }
            None => startup::Loaded::default(),
        };
        let mut problems: Vec<String> = Vec::new();
        if !s.is_available() {
            problems.push(describe_storage(&StorageError::Unavailable));
        }
        problems.extend(loaded.problems.iter().map(load_problem));
        // An unreadable chat list is kept under a backup key before the rebuilt one replaces
        // it; if even that cannot be written, the stored list is left alone this session.
        let mut index_writable = true;
        if let Some(original) = &loaded.index_original {
            match s.keep_backup("index", now_ms(), original) {
                Ok(key) => problems.push(kept_as(&key)),
                Err(e) => {
                    index_writable = false;
                    problems.push(not_kept(&e));
                }
            }
        }
        let mut index = loaded.index;
        let saved = loaded.settings.is_some();
        let settings = loaded.settings.unwrap_or_default();
        let api_key = loaded.api_key;
        let draft = loaded.draft;
        let (catalog, problem) = Catalog::load(loaded.prompts.as_deref());
        if let Some(e) = problem {
            problems.push(prompts_unreadable(&e));
        }
        let packed = loaded.packed;
        let session = loaded.session;
        let mut session = session.unwrap_or_else(fresh_session);
        let next_role = session
            .prompt
            .as_ref()
            .map(|o| RoleRef {
                source: o.source,
                key: o.key.clone(),
            })
            .filter(|r| catalog.find(r.source, &r.key).is_some())
            .unwrap_or_else(default_role);
        let recovered = session.recover_interrupted();
        index.active = Some(session.id.clone());

        let index = RwSignal::new(index);
        let session = RwSignal::new(session);
        let settings = RwSignal::new(settings);
        let settings_saved = RwSignal::new(saved);
        let live = RwSignal::new(None);
        let alert = RwSignal::new(None);
        let dialog = RwSignal::new(None);
        let draft = RwSignal::new(draft);
        let status = RwSignal::new(String::new());
        let markdown_ready = RwSignal::new(false);
        let catalog = RwSignal::new(catalog);
        let setup_problem = RwSignal::new(None);
        let next_role = RwSignal::new(next_role);
        let state = AppState {
            chats: Chats {
                index: Ro(index),
                session: Ro(session),
                draft: Ro(draft),
                catalog: Ro(catalog),
                next_role: Ro(next_role),
                setup_problem: Ro(setup_problem),
            },
            conn: Connection {
                settings: Ro(settings),
                saved: Ro(settings_saved),
            },
            turn: LiveTurn {
                live: Ro(live),
                status: Ro(status),
            },
            overlay: Overlay {
                alert: Ro(alert),
                dialog: Ro(dialog),
                markdown_ready: Ro(markdown_ready),
            },
            index,
            session,
            settings,
            settings_saved,
            api_key: RwSignal::new(api_key),
            live,
            alert,
            dialog,
            draft,
            status,
            markdown_ready,
            catalog,
            setup_problem,
            next_role,
            starting: RwSignal::new(0),
            unsaved: RwSignal::new(false),
            index_writable,
        };
        if recovered {
            state.save_session();
        } else {
            state
                .session
                .with_untracked(|sess| set_stored_clean(&sess.id, s.stored_in_parts(sess)));
            state.save_index();
        }
        if !problems.is_empty() {
            state.alert.set(Some(Alert {
                // One per line: a paragraph each.
                text: problems.join("\n"),
                ..Alert::default()
            }));
        }
        if let Some(id) = packed {
            // Its alert (start-up problems) stays: the chat opens under it.
            state.open_with(&id, false, Box::new(|_, _| {}));
        }
        state
    }
}
