//! When agent mode asks before a tool call leaves the browser. Private data (the user's other
//! chats, read by `search_chats`), untrusted content (what an MCP tool answered, the text of an
//! imported or shared chat) and a way out (a call to an MCP server, which receives its
//! arguments) are the three parts of data exfiltration by prompt injection: a tool's result tells
//! the model to look something up and send it somewhere. Satori keeps the third part behind the
//! user once either of the first two is in the chat; how much it asks is each server's setting
//! ([`Trust`]). The agent module applies [`gate`] before every MCP call.

use super::tools::{CALCULATOR, CURRENT_TIME, PLANNER, SEARCH_CHATS};
use crate::session::{Message, Role};
use serde::{Deserialize, Serialize};

/// How an MCP server's tool calls are let out (its setting in Settings → "MCP servers").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Trust {
    /// "Ask before each call" (the default): every call asks, but for the tools the user
    /// always allows.
    #[default]
    Ask,
    /// "Ask when chat data would be sent": a call asks once the chat has read private data or
    /// taken in untrusted content.
    AskWithData,
    /// "Never ask": every call runs (the user's choice).
    Never,
}

impl Trust {
    /// Every setting, in the order Settings offers them, with its label.
    pub const ALL: [(Trust, &'static str); 3] = [
        (Trust::Ask, "Ask before each call"),
        (Trust::AskWithData, "Ask when chat data would be sent"),
        (Trust::Never, "Never ask"),
    ];

    /// Its label in Settings.
    pub fn label(self) -> &'static str {
        Trust::ALL
            .iter()
            .find(|(t, _)| *t == self)
            .map_or("", |(_, l)| l)
    }
}

/// What a tool is, for the rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// Works in the browser on its arguments alone (the calculator, the clock, the planner,
    /// which asks the chat's own model).
    Local,
    /// Reads the user's stored chats.
    Private,
    /// An MCP server's tool: its arguments go out, and its result is untrusted content.
    External,
}

/// The kind of the tool offered as `name`: a built-in tool's, else an MCP tool's (their names
/// never clash: an MCP tool named like a built-in one is offered as `…_2`). A name no longer
/// offered counts as external: its result is not Satori's own.
pub fn kind(name: &str) -> Kind {
    match name {
        SEARCH_CHATS => Kind::Private,
        CALCULATOR | CURRENT_TIME | PLANNER => Kind::Local,
        _ => Kind::External,
    }
}

/// What the chat's branch has taken in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Exposure {
    /// It read private data (a `search_chats` result).
    pub private: bool,
    /// It took in untrusted content (an MCP tool's result, or the chat came from an import or a
    /// shared link).
    pub untrusted: bool,
}

impl Exposure {
    /// What the branch `path` (the chat as the model is sent it) took in: every tool result on
    /// it, each of the kind of the call it answers, and whether the chat's text came from
    /// outside (`foreign`: an import or a shared link). The whole branch, not only the turn since
    /// the last user message: the latest calls' results, pinned results and summaries (which may
    /// quote tool output) stay in later requests, and "Run plan" writes its steps as user
    /// messages.
    pub fn of_branch(path: &[&Message], foreign: bool) -> Exposure {
        let names: std::collections::HashMap<&str, &str> = path
            .iter()
            .flat_map(|m| &m.tool_calls)
            .map(|c| (c.id.as_str(), c.name.as_str()))
            .collect();
        let mut exposure = Exposure {
            private: false,
            untrusted: foreign,
        };
        for m in path.iter().filter(|m| m.role == Role::Tool) {
            let name = m.tool_call_id.as_deref().and_then(|id| names.get(id));
            // A result whose call is not found is nobody's own: untrusted.
            exposure.took(name.map_or(Kind::External, |n| kind(n)));
        }
        exposure
    }

    /// A call of a tool of `kind` ran: its result is in the branch now.
    pub fn took(&mut self, kind: Kind) {
        match kind {
            Kind::Local => {}
            Kind::Private => self.private = true,
            Kind::External => self.untrusted = true,
        }
    }

    /// Whether anything would make a call carry chat data out.
    pub fn any(self) -> bool {
        self.private || self.untrusted
    }
}

/// Whether a call may run as it is or the user is asked first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// It runs.
    Run,
    /// "Allow tool call" asks.
    Ask,
}

/// The rule, for a call to an external (MCP) tool of a server set to `trust`; `always`: the user
/// chose "Always allow this tool" for it (it then runs, whatever the chat holds); `exposure`:
/// what the chat's branch took in before this call.
/// Local and private tools never ask: they send nothing out.
pub fn gate(trust: Trust, always: bool, exposure: Exposure) -> Gate {
    match trust {
        Trust::Never => Gate::Run,
        _ if always => Gate::Run,
        Trust::Ask => Gate::Ask,
        Trust::AskWithData if exposure.any() => Gate::Ask,
        Trust::AskWithData => Gate::Run,
    }
}

/// What the user answered in "Allow tool call".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Answer {
    /// "Allow once".
    Once,
    /// "Always allow this tool": kept for the tool on its server.
    Always,
    /// "Deny": the model is told.
    Deny,
    /// Stop (or leaving the chat) closed the question.
    Stopped,
}

impl Answer {
    /// The answer named `text` by the dialog (`once`, `always`, `deny`; anything else: stopped).
    pub fn parse(text: &str) -> Answer {
        match text {
            "once" => Answer::Once,
            "always" => Answer::Always,
            "deny" => Answer::Deny,
            _ => Answer::Stopped,
        }
    }

    /// Whether the call runs.
    pub fn runs(self) -> bool {
        matches!(self, Answer::Once | Answer::Always)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ToolCall;

    fn message(role: Role, id: &str) -> Message {
        Message::new(id.into(), None, role, String::new(), 0)
    }

    fn reply(id: &str, calls: &[(&str, &str)]) -> Message {
        let mut m = message(Role::Assistant, id);
        m.tool_calls = calls
            .iter()
            .enumerate()
            .map(|(i, (call, name))| ToolCall {
                index: i as u64,
                id: (*call).into(),
                name: (*name).into(),
                arguments: "{}".into(),
            })
            .collect();
        m
    }

    fn result(id: &str, call: &str) -> Message {
        let mut m = message(Role::Tool, id);
        m.tool_call_id = Some(call.into());
        m
    }

    #[test]
    fn the_rule_asks_when_the_server_says_so_or_the_chat_could_carry_its_data() {
        let clean = Exposure::default();
        let private = Exposure {
            private: true,
            untrusted: false,
        };
        let untrusted = Exposure {
            private: false,
            untrusted: true,
        };
        use Gate::{Ask, Run};
        let cases = [
            // (trust, always allowed, exposure, gate)
            (Trust::Ask, false, clean, Ask),
            (Trust::Ask, false, private, Ask),
            (Trust::Ask, true, clean, Run),
            (Trust::Ask, true, private, Run),
            (Trust::AskWithData, false, clean, Run),
            (Trust::AskWithData, false, private, Ask),
            (Trust::AskWithData, false, untrusted, Ask),
            (Trust::AskWithData, true, untrusted, Run),
            (Trust::Never, false, clean, Run),
            (Trust::Never, false, private, Run),
            (Trust::Never, false, untrusted, Run),
        ];
        for (trust, always, exposure, want) in cases {
            assert_eq!(
                gate(trust, always, exposure),
                want,
                "{trust:?} always={always} {exposure:?}"
            );
        }
    }

    #[test]
    fn a_branch_is_exposed_by_any_result_on_it_and_by_a_foreign_chat() {
        let q = message(Role::User, "q");
        let older = reply("a0", &[("c0", "lookup_order")]);
        let older_result = result("t0", "c0");
        let q2 = message(Role::User, "q2");
        let search = reply("a1", &[("c1", SEARCH_CHATS), ("c2", CALCULATOR)]);
        let (found, sum) = (result("t1", "c1"), result("t2", "c2"));
        let mcp = reply("a2", &[("c3", "lookup_order")]);
        let fetched = result("t3", "c3");
        let orphan = result("t4", "gone");
        let e = |private, untrusted| Exposure { private, untrusted };
        let cases: Vec<(Vec<&Message>, bool, Exposure)> = vec![
            (vec![&q], false, e(false, false)),
            (vec![&q], true, e(false, true)),
            // An MCP result of an earlier round may still be sent (the latest calls' results,
            // pins, summaries): it counts.
            (vec![&q, &older, &older_result, &q2], false, e(false, true)),
            (vec![&q, &older, &older_result], false, e(false, true)),
            (vec![&q2, &search, &sum], false, e(false, false)),
            (vec![&q2, &search, &found, &sum], false, e(true, false)),
            (
                vec![&q2, &search, &found, &sum, &mcp, &fetched],
                false,
                e(true, true),
            ),
            (vec![&q2, &orphan], false, e(false, true)),
        ];
        for (path, foreign, want) in cases {
            let ids: Vec<&str> = path.iter().map(|m| m.id.as_str()).collect();
            assert_eq!(
                Exposure::of_branch(&path, foreign),
                want,
                "{ids:?} {foreign}"
            );
        }
    }

    #[test]
    fn tools_are_told_apart_by_name() {
        let cases = [
            (SEARCH_CHATS, Kind::Private),
            (CALCULATOR, Kind::Local),
            (CURRENT_TIME, Kind::Local),
            (PLANNER, Kind::Local),
            ("lookup_order", Kind::External),
            ("search_chats_2", Kind::External),
        ];
        for (name, want) in cases {
            assert_eq!(kind(name), want, "{name}");
        }
        let mut x = Exposure::default();
        x.took(Kind::Local);
        assert!(!x.any());
        x.took(Kind::External);
        assert_eq!(
            x,
            Exposure {
                private: false,
                untrusted: true
            }
        );
    }

    #[test]
    fn the_dialog_answers_are_read_and_anything_else_is_a_stop() {
        let cases = [
            ("once", Answer::Once, true),
            ("always", Answer::Always, true),
            ("deny", Answer::Deny, false),
            ("", Answer::Stopped, false),
            ("ONCE", Answer::Stopped, false),
        ];
        for (text, want, runs) in cases {
            assert_eq!(Answer::parse(text), want, "{text}");
            assert_eq!(want.runs(), runs, "{text}");
        }
    }
}
