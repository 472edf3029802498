//! When a chat is started over and when a new one is opened.
//!
//! Rules (each tested below):
//! - "New chat" on a chat where nothing was sent reuses it: it keeps it if it already has the
//!   chosen role, else starts it over with that role; only a started chat leads to a new one;
//! - a chat whose system prompt the user edited is never started over (that would discard the
//!   edit): a new chat opens instead;
//! - after the user templates change, an open chat that was not started, comes from a user
//!   template and still has that template's system prompt follows the template as it is now, or
//!   the default role if the template was deleted.

use crate::prompts::catalog::Catalog;
use crate::prompts::{RoleRef, Vars, DEFAULT_ROLE};
use crate::session::{PromptSource, Session};

/// What "New chat" (or picking a role) does with the open chat.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewChat {
    /// Nothing: the open chat is untouched and already has this role.
    Keep,
    /// Start the open, untouched chat over with the role.
    Restart,
    /// Open a new chat with the role.
    Open,
}

/// Whether the open chat may be started over (nothing sent, system prompt not edited).
pub fn may_restart(session: &Session) -> bool {
    !session.started() && !session.prompt.as_ref().is_some_and(|o| o.system_edited)
}

/// "New chat" with `role` while `session` is open.
pub fn new_chat(session: &Session, role: &RoleRef) -> NewChat {
    if session.started() {
        return NewChat::Open;
    }
    let same = session
        .prompt
        .as_ref()
        .is_some_and(|o| o.source == role.source && o.key == role.key);
    match (same, may_restart(session)) {
        (true, _) => NewChat::Keep,
        (false, true) => NewChat::Restart,
        (false, false) => NewChat::Open,
    }
}

/// After the user templates changed: the role and values the open chat should be started over
/// with, if it follows its template.
pub fn follow_template(session: &Session, catalog: &Catalog) -> Option<(RoleRef, Vars)> {
    let o = session.prompt.as_ref()?;
    if session.started() || o.source != PromptSource::User || o.system_edited {
        return None;
    }
    Some(if catalog.find(PromptSource::User, &o.key).is_some() {
        (
            RoleRef {
                source: o.source,
                key: o.key.clone(),
            },
            o.vars.clone(),
        )
    } else {
        (
            RoleRef {
                source: PromptSource::Builtin,
                key: DEFAULT_ROLE.to_string(),
            },
            Vars::new(),
        )
    })
}

/// Where a chat's model runs, in words: in this browser, on this computer (a local server), or
/// at a provider (its host).
pub fn place(base_url: &str) -> String {
    if crate::settings::in_browser(base_url) {
        return "Runs in this browser".into();
    }
    if crate::key_binding::on_this_machine(base_url) {
        return "Runs on this computer (a local server)".into();
    }
    let rest = base_url.split_once("://").map_or(base_url, |(_, r)| r);
    // The user's part of an address (`user:password@`, a password perhaps holding a `/`) is
    // never shown.
    let rest = rest.rsplit_once('@').map_or(rest, |(_, r)| r);
    let host = rest.split(['/', '?', '#']).next().unwrap_or(rest);
    format!("Runs at {host}")
}

/// How many roles a new chat offers to start with.
pub const STARTERS: usize = 4;

/// The welcome of a chat not yet started, as markup: its model and where it runs, and
/// [`STARTERS`] roles of the prompt library to start with instead of `current` (each button names
/// its role, `data-role`). Every text from a record is escaped; the user's own never translated.
pub fn welcome_html(model: &str, base_url: &str, catalog: &Catalog, current: &RoleRef) -> String {
    use crate::markdown::push_escaped;
    let mut out = String::from("<h2 class=\"welcome-title\">What can I help with?</h2><p class=\"welcome-model\"><span translate=\"no\">");
    push_escaped(&mut out, model);
    out += "</span> · <span>";
    push_escaped(&mut out, &place(base_url));
    out += "</span></p><div class=\"starters\" role=\"group\" aria-label=\"Start with a role\">";
    let others = catalog
        .roles
        .iter()
        .filter(|r| !(r.source == current.source && r.key == current.key))
        .take(STARTERS);
    for r in others {
        let role = RoleRef {
            source: r.source,
            key: r.key.clone(),
        };
        out += "<button type=\"button\" class=\"starter\" data-role=\"";
        push_escaped(&mut out, &role.encode());
        out += "\"";
        if r.source == PromptSource::User {
            out += " translate=\"no\"";
        }
        out += "><strong>";
        push_escaped(&mut out, &r.key);
        out += "</strong><span>";
        push_escaped(&mut out, &r.description);
        out += "</span></button>";
    }
    out += "</div>";
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::{Command, Preamble, PromptOrigin};

    fn role(source: PromptSource, key: &str) -> RoleRef {
        RoleRef {
            source,
            key: key.into(),
        }
    }

    fn chat(source: PromptSource, key: &str, started: bool, edited: bool) -> Session {
        let origin = PromptOrigin {
            source,
            key: key.into(),
            version: 1,
            vars: [("lang".to_string(), "Rust".to_string())].into(),
            system_edited: edited,
            output_schema: None,
        };
        let mut s = Session::new(
            "s".into(),
            0,
            Some(origin),
            vec![Preamble::system("sys", "Hi")],
        );
        if started {
            s.apply(Command::AddUser {
                attachments: String::new(),
                id: "u".into(),
                text: "hello".into(),
                at: 1,
            })
            .unwrap();
        }
        s
    }

    #[test]
    fn new_chat_cases() {
        use PromptSource::{Builtin as B, User as U};
        let cases = [
            (
                chat(B, "coder", false, false),
                role(B, "coder"),
                NewChat::Keep,
            ),
            (
                chat(B, "coder", false, false),
                role(B, "planner"),
                NewChat::Restart,
            ),
            (
                chat(B, "coder", false, false),
                role(U, "coder"),
                NewChat::Restart,
            ),
            (
                chat(B, "coder", true, false),
                role(B, "coder"),
                NewChat::Open,
            ),
            (
                chat(B, "coder", false, true),
                role(B, "planner"),
                NewChat::Open,
            ),
            (
                chat(B, "coder", false, true),
                role(B, "coder"),
                NewChat::Keep,
            ),
        ];
        for (s, r, want) in cases {
            assert_eq!(new_chat(&s, &r), want, "{:?} → {r:?}", s.prompt);
        }
    }

    #[test]
    fn only_untouched_unedited_chats_may_restart() {
        use PromptSource::Builtin as B;
        assert!(may_restart(&chat(B, "a", false, false)));
        assert!(!may_restart(&chat(B, "a", true, false)));
        assert!(!may_restart(&chat(B, "a", false, true)));
    }

    #[test]
    fn following_template_edits() {
        use PromptSource::{Builtin as B, User as U};
        let record = r#"{"v":1,"templates":[{"source":"mine:\n  version: 1\n  description: Mine.\n  system: Hi\n","template":{"key":"mine","version":1,"description":"Mine."}}]}"#;
        let (with_mine, problem) = Catalog::load(Some(record));
        assert_eq!(problem, None);
        assert!(
            with_mine.find(U, "mine").is_some(),
            "fixture has the user template"
        );
        let (without, _) = Catalog::load(None);
        let vars: Vars = [("lang".to_string(), "Rust".to_string())].into();
        assert_eq!(
            follow_template(&chat(U, "mine", false, false), &with_mine),
            Some((role(U, "mine"), vars))
        );
        assert_eq!(
            follow_template(&chat(U, "mine", false, false), &without),
            Some((role(B, DEFAULT_ROLE), Vars::new()))
        );
        assert_eq!(
            follow_template(&chat(U, "mine", true, false), &with_mine),
            None
        );
        assert_eq!(
            follow_template(&chat(U, "mine", false, true), &with_mine),
            None
        );
        assert_eq!(
            follow_template(&chat(B, "coder", false, false), &with_mine),
            None
        );
    }

    #[test]
    fn where_a_model_runs() {
        let cases = [
            (crate::settings::IN_BROWSER_URL, "Runs in this browser"),
            (
                "http://127.0.0.1:8080/v1",
                "Runs on this computer (a local server)",
            ),
            (
                "http://localhost:11434/v1",
                "Runs on this computer (a local server)",
            ),
            ("https://api.deepseek.com/v1", "Runs at api.deepseek.com"),
            (
                "https://user:secret@proxy.example.org:8443/v1?x=1",
                "Runs at proxy.example.org:8443",
            ),
            (
                "https://user:pa/ss@proxy.example.org/v1",
                "Runs at proxy.example.org",
            ),
        ];
        for (url, want) in cases {
            assert_eq!(place(url), want, "{url}");
        }
    }

    #[test]
    fn the_welcome_offers_other_roles_escaped() {
        let (catalog, _) = Catalog::load(Some(
            r#"{"v":1,"templates":[{"template":{"key":"<b>mine</b>","version":1,"description":"x \" onclick=\"y"}}]}"#,
        ));
        let current = RoleRef {
            source: PromptSource::Builtin,
            key: DEFAULT_ROLE.into(),
        };
        let html = welcome_html("gpt<4>", "https://api.openai.com/v1", &catalog, &current);
        assert!(html.contains("gpt&lt;4&gt;"), "{html}");
        assert!(html.contains("Runs at api.openai.com"));
        assert_eq!(html.matches("class=\"starter\"").count(), STARTERS);
        assert!(
            !html.contains(&format!("data-role=\"builtin:{DEFAULT_ROLE}\"")),
            "not the current role"
        );
        // Five built-in roles: the four starters are built-in, the user's would come after them.
        assert!(!html.contains("<b>"));
        let all = welcome_html(
            "m",
            crate::settings::IN_BROWSER_URL,
            &catalog,
            &RoleRef {
                source: PromptSource::Builtin,
                key: "coder".into(),
            },
        );
        assert!(all.contains("data-role=\"builtin:assistant\""), "{all}");
        let theirs = welcome_html(
            "m",
            crate::settings::IN_BROWSER_URL,
            &Catalog {
                roles: catalog
                    .roles
                    .iter()
                    .filter(|r| r.source == PromptSource::User)
                    .cloned()
                    .collect(),
            },
            &current,
        );
        assert!(
            theirs.contains("translate=\"no\"><strong>&lt;b&gt;mine&lt;/b&gt;</strong>"),
            "{theirs}"
        );
        assert!(!theirs.contains("onclick=\"y"), "{theirs}");
    }
}
