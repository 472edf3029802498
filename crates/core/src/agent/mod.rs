//! Agent mode, the pure part: the tools built into Satori, the checks a model's tool arguments
//! and structured output go through, and the ReAct text protocol for servers without function
//! calling. The shell that runs the loop (requests, MCP servers, the clock) lives in
//! `crate::ui`; nothing here does IO.

pub mod calc;
pub mod mcp;
pub mod plan_run;
pub mod react;
pub mod recall;
pub mod repair;
pub mod schema;
pub mod tools;
pub mod trust;

use crate::provider::error::ApiError;
use crate::session::{AgentConfig, Message, MessageId, Role, Status, ToolCall};

/// What agent mode does after a reply.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Plan {
    /// Nothing more: the model answered, or the reply is not one to act on (stopped, broken).
    Done,
    /// The loop ends here; the status line says why.
    Stop(String),
    /// Run `calls` for `reply`; `from_text`: they were read from its ReAct text and are recorded
    /// on it first.
    Run {
        /// The reply that called.
        reply: MessageId,
        /// Its calls, in order.
        calls: Vec<ToolCall>,
        /// Read from the reply's text (ReAct).
        from_text: bool,
    },
}

/// What to do after the reply at the end of `path` in a chat with `agent`: run its calls (read
/// from its text in ReAct mode; `single_arg` names a tool's one string parameter), or stop at
/// the chat's step limit, or at a ReAct reply in neither form.
pub fn plan(
    path: &[&Message],
    agent: &AgentConfig,
    single_arg: &dyn Fn(&str) -> Option<String>,
) -> Plan {
    let Some(last) = path.last() else {
        return Plan::Done;
    };
    if !agent.on || last.role != Role::Assistant || last.status != Status::Complete {
        return Plan::Done;
    }
    let (calls, from_text) = if !last.tool_calls.is_empty() {
        (last.tool_calls.clone(), false)
    } else if agent.react {
        match react::parse(&last.content, single_arg) {
            react::Step::Act {
                tool, arguments, ..
            } => {
                let call = ToolCall {
                    index: 0,
                    id: format!("react-{}", last.id),
                    name: tool,
                    arguments,
                };
                (vec![call], true)
            }
            react::Step::Answer { .. } => return Plan::Done,
            react::Step::Unparsed { reason } => {
                return Plan::Stop(format!(
                    "Agent mode stopped: the model's reply was neither an Action nor a Final Answer ({reason})."
                ))
            }
        }
    } else {
        return Plan::Done;
    };
    let taken = steps(path);
    if taken >= agent.steps() {
        return Plan::Stop(format!(
            "Agent mode stopped after {taken} steps (the chat's Max steps). Send a message to go on."
        ));
    }
    Plan::Run {
        reply: last.id.clone(),
        calls,
        from_text,
    }
}

/// Whether `err` says the server does not take the `tools` of a request (Ollama: "… does not
/// support tools"; llama.cpp: "tools param requires --jinja flag"; vLLM: "\"auto\" tool choice
/// requires …"): a refusal before any reply, whose message speaks of tools. Agent mode then
/// switches the chat to ReAct text.
pub fn refuses_tools(err: &ApiError) -> bool {
    let message = match err {
        ApiError::Http { status, message } | ApiError::Server { status, message }
            if matches!(status, 400 | 422 | 500 | 501) =>
        {
            message.as_deref().unwrap_or_default()
        }
        ApiError::NotFound { message } => message.as_deref().unwrap_or_default(),
        _ => return false,
    };
    message.to_ascii_lowercase().contains("tool")
}

/// Whether `err`, the answer to a request with `response_format` (structured output), may be
/// the server refusing it: any 422 (FastAPI and pydantic servers such as llama-cpp-python: their
/// validation messages, "Extra inputs are not permitted", do not name the field), a 400 that says
/// nothing, or a 400 / 500 / 501 whose message names it (`response_format`, `json_schema`,
/// `json_object`, a schema, structured output, an unrecognized or extra argument). The reply is
/// then asked again once without it; a second refusal is shown.
pub fn refuses_format(err: &ApiError) -> bool {
    let (status, message) = match err {
        ApiError::Http { status, message } | ApiError::Server { status, message } => {
            (*status, message.as_deref())
        }
        _ => return false,
    };
    match (status, message) {
        (422, _) | (400, None) => true,
        (400 | 500 | 501, Some(m)) => {
            let m = m.to_ascii_lowercase();
            [
                "response_format",
                "json_schema",
                "json_object",
                "schema",
                "structured",
                "unrecognized",
                "extra inputs",
                "not permitted",
            ]
            .iter()
            .any(|w| m.contains(w))
        }
        _ => false,
    }
}

/// Model steps taken since the last user message of `path` (the replies after it): agent mode
/// stops at the chat's "Max steps".
pub fn steps(path: &[&Message]) -> u32 {
    let n = path
        .iter()
        .rev()
        .take_while(|m| m.role != Role::User)
        .filter(|m| m.role == Role::Assistant)
        .count();
    u32::try_from(n).unwrap_or(u32::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_refusal_of_structured_output_is_asked_again_without_it() {
        let http = |status, message: Option<&str>| ApiError::Http {
            status,
            message: message.map(str::to_string),
        };
        let server = |status, message: &str| ApiError::Server {
            status,
            message: Some(message.into()),
        };
        let cases = [
            (
                http(
                    400,
                    Some("Unrecognized request argument supplied: response_format"),
                ),
                true,
            ),
            (http(400, Some("'json_schema' is not supported")), true),
            (http(422, None), true),
            // llama-cpp-python (pydantic): the message of `detail`, without the field's name.
            (http(422, Some("Extra inputs are not permitted")), true),
            (
                http(422, Some("Input should be 'text' or 'json_object'")),
                true,
            ),
            (http(400, None), true),
            (server(500, "Invalid JSON Schema"), true),
            (server(501, "structured outputs are not implemented"), true),
            (http(400, Some("context length exceeded")), false),
            (http(401, Some("bad key, response_format")), false),
            (server(500, "out of memory"), false),
            (server(503, "schema"), false),
            (ApiError::Network, false),
        ];
        for (err, want) in cases {
            assert_eq!(refuses_format(&err), want, "{err:?}");
        }
    }

    #[test]
    fn a_refusal_that_speaks_of_tools_switches_to_react() {
        let http = |status, message: &str| ApiError::Http {
            status,
            message: Some(message.into()),
        };
        assert!(refuses_tools(&http(
            400,
            "registry.ollama.ai/library/gemma:2b does not support tools"
        )));
        assert!(refuses_tools(&ApiError::Server {
            status: 500,
            message: Some("tools param requires --jinja flag".into())
        }));
        assert!(refuses_tools(&http(
            400,
            "\"auto\" tool choice requires --enable-auto-tool-choice"
        )));
        assert!(!refuses_tools(&http(400, "context length exceeded")));
        assert!(!refuses_tools(&http(429, "too many tool calls")));
        assert!(!refuses_tools(&ApiError::Http {
            status: 400,
            message: None
        }));
        assert!(!refuses_tools(&ApiError::Network));
    }

    fn reply(content: &str, calls: &[&str]) -> Message {
        let mut m = Message::new("r".into(), None, Role::Assistant, content.into(), 0);
        m.tool_calls = calls
            .iter()
            .map(|id| ToolCall {
                index: 0,
                id: (*id).into(),
                name: "calculator".into(),
                arguments: "{}".into(),
            })
            .collect();
        m
    }

    #[test]
    fn plans_follow_the_reply_the_mode_and_the_step_limit() {
        let on = AgentConfig {
            on: true,
            max_steps: Some(2),
            react: false,
        };
        let react = AgentConfig { react: true, ..on };
        let single = |name: &str| (name == "calculator").then(|| "expression".to_string());
        let user = Message::new("u".into(), None, Role::User, "q".into(), 0);
        let check = |path: &[&Message], agent: &AgentConfig| plan(path, agent, &single);
        let calls = reply("", &["c1"]);
        let run = |from_text| Plan::Run {
            reply: "r".into(),
            calls: if from_text {
                vec![ToolCall {
                    index: 0,
                    id: "react-r".into(),
                    name: "calculator".into(),
                    arguments: r#"{"expression":"6*7"}"#.into(),
                }]
            } else {
                calls.tool_calls.clone()
            },
            from_text,
        };
        assert_eq!(check(&[&user, &calls], &on), run(false));
        assert_eq!(check(&[&user, &calls], &AgentConfig::default()), Plan::Done);
        assert_eq!(check(&[&user, &reply("The end.", &[])], &on), Plan::Done);
        let mut stopped = calls.clone();
        stopped.status = Status::Stopped;
        assert_eq!(check(&[&user, &stopped], &on), Plan::Done);
        assert_eq!(check(&[&user], &on), Plan::Done);
        assert_eq!(check(&[], &on), Plan::Done);
        // The second step of two is the last one.
        let first = reply("", &["c0"]);
        let tool = Message::new("t".into(), None, Role::Tool, "1".into(), 0);
        assert_eq!(
            check(&[&user, &first, &tool, &calls], &on),
            Plan::Stop(
                "Agent mode stopped after 2 steps (the chat's Max steps). Send a message to go on."
                    .into()
            )
        );
        // ReAct text.
        let act = reply("Thought: multiply.\nAction: calculator(\"6*7\")", &[]);
        assert_eq!(check(&[&user, &act], &react), run(true));
        assert_eq!(check(&[&user, &act], &on), Plan::Done);
        let done = reply("Thought: done.\nFinal Answer: 42", &[]);
        assert_eq!(check(&[&user, &done], &react), Plan::Done);
        let Plan::Stop(why) = check(&[&user, &reply("Probably 42.", &[])], &react) else {
            panic!("a reply in neither form stops the loop");
        };
        assert!(
            why.starts_with(
                "Agent mode stopped: the model's reply was neither an Action nor a Final Answer ("
            ),
            "{why}"
        );
        // Calls the server sent count even in ReAct mode.
        assert_eq!(check(&[&user, &calls], &react), run(false));
    }

    #[test]
    fn steps_count_the_replies_since_the_last_user_message() {
        let m = |id: &str, role| Message::new(id.into(), None, role, String::new(), 0);
        let path = [
            m("s", Role::System),
            m("u1", Role::User),
            m("a1", Role::Assistant),
            m("u2", Role::User),
            m("a2", Role::Assistant),
            m("t1", Role::Tool),
            m("t2", Role::Tool),
            m("a3", Role::Assistant),
            m("t3", Role::Tool),
        ];
        let refs: Vec<&Message> = path.iter().collect();
        assert_eq!(steps(&refs), 2);
        assert_eq!(steps(&refs[..4]), 0);
        assert_eq!(steps(&refs[..3]), 1);
        assert_eq!(steps(&[]), 0);
    }
}
