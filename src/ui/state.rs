//! Application state: signals for what the UI shows, and the load/save glue between the
//! session reducer (core) and storage (adapters). No business rules live here.

use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::storage::{StorageError, Store};
use crate::core::persist::{self, Index};
use crate::core::prompts::{self, PromptError, RoleRef, UserPrompts, Vars};
use crate::core::session::{Command, MessageId, PromptSource, Session, SessionError};
use crate::core::settings::Settings;
use crate::ui::error_text::describe_storage;
use leptos::prelude::*;

/// A reply that is arriving right now. Shown live; committed to the session when it ends.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Live {
    /// Session the reply belongs to.
    pub session_id: String,
    /// The reply message.
    pub id: MessageId,
    /// Visible text so far.
    pub content: String,
    /// Reasoning so far.
    pub reasoning: String,
}

/// The message in the `role="alert"` banner, with the actions it offers.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Alert {
    /// Words for the user.
    pub text: String,
    /// Offer "Open Settings".
    pub settings: bool,
    /// Offer "Retry" (answers the last user message again).
    pub retry: bool,
}

/// Which modal dialog is open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialog {
    /// Settings.
    Settings,
    /// Rename the active chat.
    Rename,
    /// Confirm deleting the active chat.
    Delete,
    /// The prompt library ("Prompts").
    Prompts,
    /// View and edit the open chat's system prompt.
    SystemPrompt,
}

/// Everything the components share. Cheap to copy (signals are handles).
#[derive(Clone, Copy)]
pub struct AppState {
    /// The chat list.
    pub index: RwSignal<Index>,
    /// The open session.
    pub session: RwSignal<Session>,
    /// Connection settings.
    pub settings: RwSignal<Settings>,
    /// Whether the user has saved settings (else the embedded default is in use).
    pub settings_saved: RwSignal<bool>,
    /// The API key (kept in its own storage record only).
    pub api_key: RwSignal<String>,
    /// The reply arriving now, if any.
    pub live: RwSignal<Option<Live>>,
    /// The alert banner.
    pub alert: RwSignal<Option<Alert>>,
    /// The open dialog.
    pub dialog: RwSignal<Option<Dialog>>,
    /// Unsent text of the open session.
    pub draft: RwSignal<String>,
    /// A one-line status for screen readers and the user (e.g. retry countdowns).
    pub status: RwSignal<String>,
    /// Whether the markdown renderer module has loaded (replies show plain text until then).
    pub markdown_ready: RwSignal<bool>,
    /// The user's prompt templates.
    pub prompts: RwSignal<UserPrompts>,
    /// Why the stored user templates could not be read (saving them is refused then, so the
    /// stored record is never overwritten).
    pub prompts_problem: RwSignal<Option<String>>,
    /// The role the next new chat starts with (the "Role" select).
    pub next_role: RwSignal<RoleRef>,
}

fn store() -> Store {
    Store::local()
}

/// The default role.
pub fn default_role() -> RoleRef {
    RoleRef {
        source: PromptSource::Builtin,
        key: prompts::DEFAULT_ROLE.to_string(),
    }
}

/// A fresh session for `role` with `vars`. If the template cannot be rendered yet (a variable
/// without a default), the session records the template and starts empty; the chat setup shows
/// what is missing and sending waits for it. An unknown role falls back to the default.
pub fn fresh_session(role: &RoleRef, vars: &Vars, user: &UserPrompts) -> Session {
    match prompts::user::start(role, vars, prompts::builtin(), user, new_id) {
        Ok((origin, preamble)) => Session::new(new_id(), now_ms(), Some(origin), preamble),
        Err(PromptError::MissingVariables { .. }) => {
            let origin = crate::core::session::PromptOrigin {
                source: role.source,
                key: role.key.clone(),
                version: prompts::user::find(role, prompts::builtin(), user)
                    .map_or(0, |t| t.version),
                vars: vars.clone(),
                system_edited: false,
            };
            Session::new(new_id(), now_ms(), Some(origin), Vec::new())
        }
        Err(_) if *role != default_role() => fresh_session(&default_role(), &Vars::new(), user),
        Err(_) => Session::new(new_id(), now_ms(), None, Vec::new()),
    }
}

/// Render `role` with `vars` for the start of a chat (for the setup panel and sending).
pub fn start_check(role: &RoleRef, vars: &Vars, user: &UserPrompts) -> Result<(), PromptError> {
    prompts::user::start(role, vars, prompts::builtin(), user, String::new).map(|_| ())
}

impl AppState {
    /// Load everything from storage. Corrupt records are reported, never fatal.
    pub fn load() -> Self {
        let s = store();
        let mut problems: Vec<String> = Vec::new();
        if !s.is_available() {
            problems.push(describe_storage(&StorageError::Unavailable));
        }
        let mut index = match s.get(persist::KEY_INDEX) {
            Ok(Some(text)) => persist::decode_index(&text).unwrap_or_else(|e| {
                problems.push(format!(
                    "The chat list could not be read ({e}); it was rebuilt from the stored chats."
                ));
                Index::default()
            }),
            Ok(None) => Index::default(),
            Err(e) => {
                problems.push(describe_storage(&e));
                Index::default()
            }
        };
        // Rebuild index entries for session records the index does not know (e.g. after a
        // crash between the two writes).
        if let Ok(keys) = s.keys("satori.session.") {
            for key in keys {
                let id = key.trim_start_matches("satori.session.");
                if index.sessions.iter().all(|e| e.id != id) {
                    if let Ok(Some(text)) = s.get(&key) {
                        if let Ok(sess) = persist::decode_session(&text) {
                            index.upsert(&sess);
                        }
                    }
                }
            }
        }
        let (settings, saved) = match s.get(persist::KEY_SETTINGS) {
            Ok(Some(text)) => match persist::decode_settings(&text).map(|st| st.validated()) {
                Ok(Ok(st)) => (st, true),
                Ok(Err(e)) => {
                    problems.push(format!(
                        "Saved settings are not valid ({e}); defaults are in use until you save Settings again."
                    ));
                    (Settings::default(), false)
                }
                Err(e) => {
                    problems.push(format!(
                        "Saved settings could not be read ({e}); defaults are in use."
                    ));
                    (Settings::default(), false)
                }
            },
            _ => (Settings::default(), false),
        };
        // The key is used only with the base URL it was saved for.
        let api_key = match s.get(persist::KEY_API_KEY) {
            Ok(Some(text)) => match persist::decode_api_key(&text) {
                Ok(record) => record
                    .key_for(&settings.base_url)
                    .unwrap_or_default()
                    .to_string(),
                Err(e) => {
                    problems.push(format!(
                        "The saved API key could not be read ({e}); enter it again in Settings."
                    ));
                    String::new()
                }
            },
            _ => String::new(),
        };

        let mut session = None;
        let wanted: Vec<String> = index
            .active
            .iter()
            .cloned()
            .chain(index.sessions.iter().map(|e| e.id.clone()))
            .collect();
        for id in wanted {
            match s.get(&persist::session_key(&id)) {
                Ok(Some(text)) => match persist::decode_session(&text) {
                    Ok(sess) => {
                        session = Some(sess);
                        break;
                    }
                    Err(e) => problems.push(format!(
                        "A stored chat could not be read ({e}); it was left untouched in storage."
                    )),
                },
                Ok(None) => index.remove(&id),
                Err(e) => problems.push(describe_storage(&e)),
            }
        }
        let (user_prompts, prompts_problem) = match s.get(persist::KEY_PROMPTS) {
            Ok(Some(text)) => match persist::decode_prompts(&text) {
                Ok(p) => (p, None),
                Err(e) => {
                    let why = format!("Your prompt templates could not be read ({e}); they were left untouched in storage, and changes to them cannot be saved until this is fixed.");
                    problems.push(why.clone());
                    (UserPrompts::default(), Some(why))
                }
            },
            Ok(None) => (UserPrompts::default(), None),
            Err(e) => {
                let why = describe_storage(&e);
                problems.push(why.clone());
                (UserPrompts::default(), Some(why))
            }
        };
        let mut session =
            session.unwrap_or_else(|| fresh_session(&default_role(), &Vars::new(), &user_prompts));
        let next_role = session
            .prompt
            .as_ref()
            .map(|o| RoleRef {
                source: o.source,
                key: o.key.clone(),
            })
            .filter(|r| prompts::user::find(r, prompts::builtin(), &user_prompts).is_some())
            .unwrap_or_else(default_role);
        let recovered = session.recover_interrupted();
        index.active = Some(session.id.clone());
        let draft = s
            .get(&persist::draft_key(&session.id))
            .ok()
            .flatten()
            .and_then(|t| persist::decode_draft(&t).ok())
            .unwrap_or_default();

        let state = AppState {
            index: RwSignal::new(index),
            session: RwSignal::new(session),
            settings: RwSignal::new(settings),
            settings_saved: RwSignal::new(saved),
            api_key: RwSignal::new(api_key),
            live: RwSignal::new(None),
            alert: RwSignal::new(None),
            dialog: RwSignal::new(None),
            draft: RwSignal::new(draft),
            status: RwSignal::new(String::new()),
            markdown_ready: RwSignal::new(false),
            prompts: RwSignal::new(user_prompts),
            prompts_problem: RwSignal::new(prompts_problem),
            next_role: RwSignal::new(next_role),
        };
        if recovered {
            state.save_session();
        } else {
            state.save_index();
        }
        if !problems.is_empty() {
            state.alert.set(Some(Alert {
                text: problems.join(" "),
                ..Alert::default()
            }));
        }
        state
    }

    /// Show a storage failure (keeps an existing alert about something else).
    fn report_storage(&self, result: Result<(), StorageError>) {
        if let Err(e) = result {
            self.alert.set(Some(Alert {
                text: describe_storage(&e),
                ..Alert::default()
            }));
        }
    }

    /// Write the index record.
    pub fn save_index(&self) {
        let text = self.index.with_untracked(persist::encode_index);
        self.report_storage(store().set(persist::KEY_INDEX, &text));
    }

    /// Write the open session (that record only) and its index entry. A reply that is still
    /// arriving is saved with the text received so far, so no save ever drops it.
    pub fn save_session(&self) {
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
        let text = persist::encode_session(&snapshot);
        self.save_session_text(&snapshot, &text);
    }

    /// Write a snapshot of a session (used for mid-stream checkpoints).
    pub fn save_session_text(&self, session: &Session, text: &str) {
        let result = store().set(&persist::session_key(&session.id), text);
        if result.is_ok() {
            self.index.update(|idx| {
                idx.upsert(session);
                idx.active = Some(self.session.with_untracked(|s| s.id.clone()));
            });
            self.save_index();
        } else {
            self.report_storage(result);
        }
    }

    /// Apply a command to the open session and save it.
    pub fn apply(&self, cmd: Command) -> Result<(), SessionError> {
        let mut result = Ok(());
        self.session.update(|s| result = s.apply(cmd));
        if result.is_ok() {
            self.save_session();
        }
        result
    }

    /// Apply commands to a stored session that is not open (a reply that ended after the user
    /// switched chats). A missing or unreadable record is left alone.
    pub fn apply_to_stored(&self, id: &str, cmds: Vec<Command>) {
        let Ok(Some(text)) = store().get(&persist::session_key(id)) else {
            return;
        };
        let Ok(mut sess) = persist::decode_session(&text) else {
            return;
        };
        for cmd in cmds {
            let _ = sess.apply(cmd);
        }
        self.save_session_text(&sess, &persist::encode_session(&sess));
    }

    /// Save the settings (validated by the caller) and the API key, each in its own record.
    pub fn save_settings(&self, settings: Settings, api_key: String) {
        let s = store();
        let r = s.set(persist::KEY_SETTINGS, &persist::encode_settings(&settings));
        self.report_storage(r);
        let r = if api_key.trim().is_empty() {
            s.remove(persist::KEY_API_KEY)
        } else {
            let record = persist::ApiKeyRecord {
                key: api_key.trim().to_string(),
                base_url: settings.base_url.clone(),
            };
            s.set(persist::KEY_API_KEY, &persist::encode_api_key(&record))
        };
        self.report_storage(r);
        self.settings.set(settings);
        self.api_key.set(api_key.trim().to_string());
        self.settings_saved.set(true);
    }

    /// Persist the draft of the open session.
    pub fn save_draft(&self, text: &str) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let key = persist::draft_key(&id);
        let r = if text.is_empty() {
            store().remove(&key)
        } else {
            store().set(&key, &persist::encode_draft(text))
        };
        self.report_storage(r);
    }

    /// Open another session by id; returns whether it could be opened.
    pub fn open(&self, id: &str) -> bool {
        let s = store();
        let loaded = match s.get(&persist::session_key(id)) {
            Ok(Some(text)) => persist::decode_session(&text).map_err(|e| e.to_string()),
            Ok(None) => Err("it is no longer in storage".into()),
            Err(e) => Err(e.to_string()),
        };
        match loaded {
            Ok(mut sess) => {
                if sess.recover_interrupted() {
                    let _ = s.set(&persist::session_key(id), &persist::encode_session(&sess));
                }
                let draft = s
                    .get(&persist::draft_key(id))
                    .ok()
                    .flatten()
                    .and_then(|t| persist::decode_draft(&t).ok())
                    .unwrap_or_default();
                self.session.set(sess);
                self.draft.set(draft);
                self.index.update(|i| i.active = Some(id.to_string()));
                self.save_index();
                self.alert.set(None);
                true
            }
            Err(why) => {
                self.alert.set(Some(Alert {
                    text: format!("That chat could not be opened: {why}."),
                    ..Alert::default()
                }));
                false
            }
        }
    }

    /// Start a new chat with the role of the "Role" select and open it. An untouched open
    /// chat is reused (started over with that role) instead of piling up empty chats.
    pub fn new_chat(&self) {
        let role = self.next_role.get_untracked();
        if !self.session.with_untracked(Session::started) {
            let same = self.session.with_untracked(|s| {
                s.prompt
                    .as_ref()
                    .is_some_and(|o| o.source == role.source && o.key == role.key)
            });
            if !same {
                self.restart(&role, &Vars::new());
            }
            return;
        }
        let sess = self
            .prompts
            .with_untracked(|p| fresh_session(&role, &Vars::new(), p));
        self.session.set(sess);
        self.draft.set(String::new());
        self.alert.set(None);
        self.save_session();
    }

    /// Start the open, untouched chat over with `role` and `vars`.
    pub fn restart(&self, role: &RoleRef, vars: &Vars) {
        let fresh = self
            .prompts
            .with_untracked(|p| fresh_session(role, vars, p));
        let cmd = Command::Restart {
            origin: fresh.prompt,
            preamble: fresh
                .messages
                .into_iter()
                .map(|m| crate::core::session::Preamble {
                    id: m.id,
                    role: m.role,
                    content: m.content,
                    example: m.example,
                })
                .collect(),
            at: now_ms(),
        };
        if self.apply(cmd).is_ok() {
            self.alert.set(None);
        }
    }

    /// Save the user templates; returns whether they were saved. Refused (with the reason in
    /// the alert) while the stored record is unreadable, so it is never overwritten.
    pub fn save_prompts(&self, prompts: UserPrompts) -> Result<(), String> {
        if let Some(why) = self.prompts_problem.get_untracked() {
            return Err(why);
        }
        store()
            .set(persist::KEY_PROMPTS, &persist::encode_prompts(&prompts))
            .map_err(|e| describe_storage(&e))?;
        self.prompts.set(prompts);
        Ok(())
    }

    /// Delete the open chat (its record, draft and index entry) and open the next one.
    pub fn delete_active(&self) {
        let id = self.session.with_untracked(|s| s.id.clone());
        let s = store();
        self.report_storage(s.remove(&persist::session_key(&id)));
        let _ = s.remove(&persist::draft_key(&id));
        self.index.update(|i| i.remove(&id));
        let next = self.index.with_untracked(|i| i.active.clone());
        let opened = next.is_some_and(|next| self.open(&next));
        if !opened {
            let role = self.next_role.get_untracked();
            let sess = self
                .prompts
                .with_untracked(|p| fresh_session(&role, &Vars::new(), p));
            self.session.set(sess);
            self.draft.set(String::new());
            self.save_session();
        }
        self.save_index();
    }
}
