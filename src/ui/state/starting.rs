//! A chat's start: its role's system prompt (built in, or rendered by the dialogs module), a
//! new chat or the open one started over, and waiting for starts under way.

use super::{stop_turns, Alert, AppState, Leave, PAGE};
use crate::adapters::clock::{new_id, now_ms};
use crate::adapters::modules::ModuleError;
use crate::core::chat_start::{self, NewChat};
use crate::core::prompts::catalog::{self, StartAnswer};
use crate::core::prompts::{self, RoleRef, Vars};
use crate::core::session::{Command, Preamble, PromptOrigin, PromptSource, Session, SessionError};
use crate::shell::error_text::{module_problem, role_unusable, role_unusable_here};
use leptos::prelude::*;

/// The default role.
pub fn default_role() -> RoleRef {
    RoleRef {
        source: PromptSource::Builtin,
        key: prompts::DEFAULT_ROLE.to_string(),
    }
}

/// A fresh session with the default role (pre-rendered at build time: no template engine is
/// needed for it).
pub fn fresh_session() -> Session {
    match catalog::builtin_start(prompts::DEFAULT_ROLE, &Vars::new(), new_id) {
        Some((origin, preamble)) => Session::new(new_id(), now_ms(), Some(origin), preamble),
        None => Session::new(new_id(), now_ms(), None, Vec::new()),
    }
}

/// Session messages (with new ids) for the start of a chat.
fn preamble_of(messages: Vec<catalog::StartMessage>) -> Vec<Preamble> {
    messages
        .into_iter()
        .map(|m| Preamble {
            id: new_id(),
            role: m.role,
            content: m.content,
            example: m.example,
        })
        .collect()
}

/// How a chat with `role` and `vars` starts: directly for a built-in role with default values,
/// otherwise asked of the dialogs module.
pub async fn start_of(role: &RoleRef, vars: &Vars) -> StartAnswer {
    if role.source == PromptSource::Builtin {
        if let Some((origin, preamble)) = catalog::builtin_start(&role.key, vars, String::new) {
            return StartAnswer {
                origin: Some(origin),
                messages: preamble
                    .into_iter()
                    .map(|p| catalog::StartMessage {
                        role: p.role,
                        content: p.content,
                        example: p.example,
                    })
                    .collect(),
                ..Default::default()
            };
        }
    }
    let vars_json = serde_json::to_string(vars).unwrap_or_else(|_| "{}".into());
    match crate::adapters::dialogs_module::start(&role.encode(), &vars_json).await {
        Ok(json) => serde_json::from_str(&json).unwrap_or_else(|e| {
            StartAnswer::error(module_problem(&ModuleError::Call(format!(
                "unreadable answer: {e}"
            ))))
        }),
        Err(e) => StartAnswer::error(module_problem(&e)),
    }
}

impl AppState {
    /// Whether a chat start is still waiting for the dialogs module.
    pub fn start_pending(&self) -> bool {
        self.starting.get_untracked() > 0
    }

    /// A chat start (which may wait for the dialogs module) began.
    pub fn start_begun(&self) {
        self.starting.update(|n| *n += 1);
    }

    /// A chat start ended; when none is left, everyone waiting in [`Self::starts_settled`] goes on.
    pub fn start_done(&self) {
        self.starting.update(|n| *n = n.saturating_sub(1));
        if self.starting.get_untracked() == 0 {
            for waiter in PAGE.with(|p| p.start_waiters.take()) {
                let _ = waiter.send(());
            }
        }
    }

    /// Resolves once no chat start is pending.
    pub async fn starts_settled(self) {
        if self.starting.get_untracked() == 0 {
            return;
        }
        let (tx, rx) = futures::channel::oneshot::channel();
        PAGE.with(|p| p.start_waiters.borrow_mut().push(tx));
        let _ = rx.await;
    }

    /// Start a new chat with the role of the "Role" select and open it. An untouched open
    /// chat is reused (started over with that role) instead of piling up empty chats.
    pub fn new_chat(&self) {
        let role = self.next_role.get_untracked();
        match self
            .session
            .with_untracked(|s| chat_start::new_chat(s, &role))
        {
            NewChat::Keep => {}
            NewChat::Restart => {
                stop_turns();
                self.start_chat(role, Vars::new(), true)
            }
            NewChat::Open if self.may_leave(Leave::New) => {
                stop_turns();
                self.start_chat(role, Vars::new(), false)
            }
            NewChat::Open => {}
        }
    }

    /// Start a chat with `role` and `vars`: over the open, untouched chat (`restart`) or as a
    /// new one. Built-in roles with default values start at once; anything else waits for the
    /// dialogs module.
    pub fn start_chat(&self, role: RoleRef, vars: Vars, restart: bool) {
        let app = *self;
        let (session_id, may) = self
            .session
            .with_untracked(|s| (s.id.clone(), chat_start::may_restart(s)));
        // Starting over would discard a system prompt the user edited: open a new chat instead.
        let restart = restart && may;
        self.start_begun();
        leptos::task::spawn_local(async move {
            let answer = start_of(&role, &vars).await;
            app.start_done();
            let (origin, messages, problem) = match answer {
                StartAnswer {
                    origin: Some(origin),
                    error: None,
                    messages,
                    missing,
                } => (origin, messages, missing),
                other => {
                    let e = other.error.unwrap_or_else(|| "no answer".into());
                    app.alert.set(Some(Alert {
                        text: role_unusable(&e),
                        ..Alert::default()
                    }));
                    return;
                }
            };
            if restart {
                // The user may have switched chats meanwhile: only the chat asked about changes.
                if app.session.with_untracked(|s| s.id != session_id) {
                    return;
                }
                match app.restart_with(origin, messages) {
                    Ok(()) => {
                        app.setup_problem.set(problem);
                        app.alert.set(None);
                    }
                    Err(e) => app.alert.set(Some(Alert {
                        text: role_unusable_here(&e),
                        ..Alert::default()
                    })),
                }
            } else {
                app.session.set(Session::new(
                    new_id(),
                    now_ms(),
                    Some(origin),
                    preamble_of(messages),
                ));
                app.setup_problem.set(problem);
                app.draft.set(String::new());
                super::clear_chips();
                app.alert.set(None);
                app.save_session();
            }
        });
    }

    /// Start the open, untouched chat over with `origin` and `messages`.
    pub fn restart_with(
        &self,
        origin: PromptOrigin,
        messages: Vec<catalog::StartMessage>,
    ) -> Result<(), SessionError> {
        self.apply(Command::Restart {
            origin: Some(origin),
            preamble: preamble_of(messages),
            at: now_ms(),
        })
    }

    /// After the user templates changed: an open chat that has not started, comes from a user
    /// template and still has that template's system prompt is started over from the template as
    /// it is now (or from the default role if it was deleted).
    pub fn refresh_untouched(&self) {
        if self.is_streaming() {
            return;
        }
        let follow = self.session.with_untracked(|s| {
            self.catalog
                .with_untracked(|c| chat_start::follow_template(s, c))
        });
        if let Some((role, vars)) = follow {
            self.start_chat(role, vars, true);
        }
    }
}
