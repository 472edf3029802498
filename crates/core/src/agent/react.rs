//! The ReAct text protocol: agent mode for servers that ignore OpenAI `tools`. The system prompt
//! ([`instructions`]) describes the tools and the format; the model answers with
//! `Thought:` / `Action: tool(arguments)` lines, Satori runs the tool and sends back
//! [`observation`], until the model writes `Final Answer:`. [`parse`] reads one reply.
//!
//! Invariants of [`parse`]:
//! - it never panics and never cuts the reply inside a character, whatever the input;
//! - keywords count only at the start of a line (after spaces or tabs), in any ASCII case, with
//!   `:` or the full-width `：`, bare or in markdown bold (`**Thought:**`, `**Thought**:`);
//! - of `Action:` and `Final Answer:`, the first one in the reply decides; the text after an
//!   action (a `Observation:` the model made up, a second action) is ignored;
//! - `Act::arguments` is the text of a JSON object: the model's own object text (not checked
//!   here: the caller repairs and validates it against the tool's schema), or one Satori made
//!   from a string (for tools with one string parameter) or from `name="value"` pairs.

use crate::context::{Sent, Source};
use crate::session::Role;
use serde_json::{Map, Value};

/// A tool as the ReAct instructions describe it.
#[derive(Debug, Clone, Copy)]
pub struct ToolInfo<'a> {
    /// The name the model writes after `Action:`.
    pub name: &'a str,
    /// What the tool does (shown to the model).
    pub description: &'a str,
    /// JSON Schema of the arguments object.
    pub parameters: &'a Value,
}

/// One reply of the model, read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Run `tool` with `arguments` (JSON object text, ready to validate against the tool's schema).
    Act {
        /// The reasoning before the action (empty if the model wrote none).
        thought: String,
        /// The tool's name as written.
        tool: String,
        /// The arguments: the text of a JSON object.
        arguments: String,
    },
    /// The model is done.
    Answer {
        /// The reasoning before the answer (empty if the model wrote none).
        thought: String,
        /// The answer shown to the user: the rest of the reply after `Final Answer:`, trimmed.
        answer: String,
    },
    /// Neither format: the loop ends with this message shown to the user.
    Unparsed {
        /// Why, in a short English sentence without capital or full stop.
        reason: String,
    },
}

/// Stop sequences to send with ReAct requests (so the model does not write its own Observation).
pub const STOP: &[&str] = &["\nObservation:"];

/// What starts the text sent back after a tool ran. Recall skips user messages that start
/// with it: they are tool results.
pub(crate) const OBSERVATION: &str = "Observation:";

/// The system-prompt text describing the format and the tools (names, descriptions, argument
/// schemas as compact JSON).
pub fn instructions(tools: &[ToolInfo]) -> String {
    let mut out = String::from(
        "You can use the tools listed below. Work step by step, in exactly this format:\n\
         \n\
         Thought: what you need to find out or do next\n\
         Action: tool_name({\"argument\": \"value\"})\n\
         \n\
         Write one Action, then stop: the tool runs, and its result comes back as\n\
         \n\
         Observation: the tool's result\n\
         \n\
         Then continue with another Thought and Action. When you know the answer, write:\n\
         \n\
         Thought: I know the answer.\n\
         Final Answer: your answer to the user\n\
         \n\
         Rules:\n\
         - Start each line with its keyword exactly as shown: Thought:, Action:, Final Answer:.\n\
         - The arguments of an Action are one JSON object that follows the tool's argument \
         schema; write tool_name() for a tool without arguments.\n\
         - Never write an Observation yourself.\n\
         \n\
         Tools:\n",
    );
    if tools.is_empty() {
        out.push_str("(none: answer directly with a Final Answer)\n");
    }
    for tool in tools {
        out.push_str("- ");
        out.push_str(tool.name);
        let mut lines = tool.description.trim().lines();
        if let Some(first) = lines.next() {
            out.push_str(": ");
            out.push_str(first);
        }
        for line in lines {
            out.push_str("\n  ");
            out.push_str(line);
        }
        out.push_str("\n  Arguments: ");
        out.push_str(&tool.parameters.to_string());
        out.push('\n');
    }
    out
}

/// The text sent back after a tool ran (as a user message): `Observation: …`.
pub fn observation(result: &str) -> String {
    let result = result.trim();
    if result.is_empty() {
        format!("{OBSERVATION} (no output)")
    } else {
        format!("{OBSERVATION} {result}")
    }
}

/// The request of a chat in ReAct mode, from the messages the context pipeline chose
/// (`messages`) and the tools offered (`tools`, the `tools` field of a chat completion request):
/// the instructions join the system prompt (or become one), a reply's calls stay only as its
/// text (`Action: …`), and each tool result goes back as a user message `Observation: …`. The
/// session keeps calls and results as such; only the wire differs.
pub fn for_react(messages: Vec<Sent>, tools: &Value) -> Vec<Sent> {
    let specs = tools.as_array().map(Vec::as_slice).unwrap_or_default();
    let infos: Vec<ToolInfo> = specs
        .iter()
        .filter_map(|t| {
            let f = t.get("function")?;
            Some(ToolInfo {
                name: f.get("name")?.as_str()?,
                description: f.get("description").and_then(Value::as_str).unwrap_or(""),
                parameters: f.get("parameters")?,
            })
        })
        .collect();
    let text = instructions(&infos);
    let mut out = Vec::with_capacity(messages.len() + 1);
    for mut m in messages {
        match m.role {
            Role::System if out.is_empty() => {
                m.content = format!("{}\n\n{text}", m.content.trim_end());
                out.push(m);
                continue;
            }
            Role::Tool => {
                m.role = Role::User;
                m.content = observation(&m.content);
                m.tool_call_id = None;
            }
            Role::Assistant => m.tool_calls.clear(),
            _ => {}
        }
        if out.is_empty() {
            out.push(Sent {
                source: Source::Agent,
                role: Role::System,
                content: text.clone(),
                tool_calls: Vec::new(),
                tool_call_id: None,
                pinned: true,
                tokens: 0,
                images: Vec::new(),
            });
        }
        // Observations and the user's next message: one user message (templates that want
        // roles to alternate refuse two in a row).
        match out.last_mut() {
            Some(prev) if prev.role == Role::User && m.role == Role::User => {
                prev.content = format!("{}\n\n{}", prev.content, m.content);
                prev.tokens = prev.tokens.saturating_add(m.tokens);
                prev.images.append(&mut m.images);
            }
            _ => out.push(m),
        }
    }
    out
}

/// The keywords of the format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Key {
    Thought,
    Action,
    ActionInput,
    FinalAnswer,
    Observation,
}

/// Keyword spellings, lower case, longer ones before their prefixes.
const KEYS: &[(&str, Key)] = &[
    ("action input", Key::ActionInput),
    ("action", Key::Action),
    ("final answer", Key::FinalAnswer),
    ("thought", Key::Thought),
    ("observation", Key::Observation),
];

/// A line of the reply that starts with a keyword.
#[derive(Debug, Clone, Copy)]
struct Mark {
    key: Key,
    /// Byte offset of the line's start.
    start: usize,
    /// Byte offset of the value, right after the keyword's colon (and closing `**`).
    value: usize,
}

/// The keyword `line` starts with, and the offset of the text after it.
fn keyword(line: &str) -> Option<(Key, usize)> {
    let mut rest = line.trim_start_matches([' ', '\t']);
    let bold = rest.starts_with("**");
    if bold {
        rest = &rest[2..];
    }
    let (key, len) = KEYS.iter().find_map(|&(word, key)| {
        let head = rest.get(..word.len())?;
        head.eq_ignore_ascii_case(word).then_some((key, word.len()))
    })?;
    rest = &rest[len..];
    if bold {
        rest = rest.strip_prefix("**").unwrap_or(rest);
    }
    rest = rest.trim_start_matches([' ', '\t']);
    rest = rest.strip_prefix(':').or_else(|| rest.strip_prefix('：'))?;
    if bold {
        rest = rest.strip_prefix("**").unwrap_or(rest);
    }
    rest = rest.trim_start_matches([' ', '\t']);
    Some((key, line.len() - rest.len()))
}

/// Every keyword line of `reply`, in order.
fn marks(reply: &str) -> Vec<Mark> {
    let mut out = Vec::new();
    let mut start = 0;
    for line in reply.split_inclusive('\n') {
        if let Some((key, value)) = keyword(line.trim_end_matches(['\n', '\r'])) {
            out.push(Mark {
                key,
                start,
                value: start + value,
            });
        }
        start += line.len();
    }
    out
}

/// Parse one reply. `single_arg(tool)` gives the name of a tool's single string parameter when
/// it has exactly one (e.g. "expression" for the calculator), so that `calculator("12*7")`
/// becomes `{"expression":"12*7"}`.
pub fn parse(reply: &str, single_arg: &dyn Fn(&str) -> Option<String>) -> Step {
    let marks = marks(reply);
    let Some(at) = marks
        .iter()
        .position(|m| matches!(m.key, Key::Action | Key::FinalAnswer))
    else {
        let reason = if reply.trim().is_empty() {
            "the reply is empty"
        } else {
            "the reply has neither \"Action:\" nor \"Final Answer:\""
        };
        return Step::Unparsed {
            reason: reason.into(),
        };
    };
    let decides = marks[at];
    let thought = thought(reply, &marks[..at], decides.start);
    if decides.key == Key::FinalAnswer {
        let answer = reply[decides.value..].trim();
        if answer.is_empty() {
            return Step::Unparsed {
                reason: "the \"Final Answer:\" is empty".into(),
            };
        }
        return Step::Answer {
            thought,
            answer: answer.into(),
        };
    }
    match action(reply, &marks[at..], single_arg) {
        Ok((tool, arguments)) => Step::Act {
            thought,
            tool,
            arguments,
        },
        Err(reason) => Step::Unparsed { reason },
    }
}

/// The text before `end` without its `Thought:` keywords, trimmed.
fn thought(reply: &str, before: &[Mark], end: usize) -> String {
    let mut out = String::new();
    let mut at = 0;
    for m in before.iter().filter(|m| m.key == Key::Thought) {
        out.push_str(&reply[at..m.start]);
        at = m.value;
    }
    out.push_str(&reply[at..end]);
    out.trim().to_string()
}

/// Whether `c` may start a tool name.
fn name_start(c: char) -> bool {
    c.is_ascii_alphabetic() || c == '_'
}

/// Whether `c` may continue a tool name.
fn name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

/// The tool and arguments of the action `marks[0]` (the marks after it follow).
fn action(
    reply: &str,
    marks: &[Mark],
    single_arg: &dyn Fn(&str) -> Option<String>,
) -> Result<(String, String), String> {
    let m = marks[0];
    let line_end = reply[m.value..]
        .find('\n')
        .map_or(reply.len(), |n| m.value + n);
    let line = &reply[m.value..line_end];
    // The name may be in backticks (`calculator`).
    let value = line.trim_start_matches([' ', '\t', '`']);
    let value_at = m.value + (line.len() - value.len());
    let name_len = match value.chars().next() {
        Some(c) if name_start(c) => value.find(|c| !name_char(c)).unwrap_or(value.len()),
        _ if value.trim().is_empty() => return Err("the \"Action:\" names no tool".into()),
        _ => return Err("the \"Action:\" does not start with a tool name".into()),
    };
    let tool = &value[..name_len];
    let after = value[name_len..].trim_start_matches([' ', '\t']);
    if after.starts_with('(') {
        let open = value_at + (value.len() - after.len());
        let close = closing(reply, open)
            .or_else(|| reply[open..line_end].rfind(')').map(|i| open + i))
            .ok_or_else(|| format!("the arguments of \"{tool}\" have no closing parenthesis"))?;
        return Ok((
            tool.into(),
            arguments(tool, &reply[open + 1..close], single_arg)?,
        ));
    }
    if !after.trim_matches([' ', '\t', '\r', '`', '*']).is_empty() {
        return Err(format!(
            "the \"Action:\" has text after the tool name \"{tool}\"; \
             it should read {tool}(arguments)"
        ));
    }
    // The LangChain form: the arguments follow on an `Action Input:` line (or there are none).
    let input = match marks.get(1) {
        Some(next) if next.key == Key::ActionInput => {
            let end = marks.get(2).map_or(reply.len(), |m| m.start);
            &reply[next.value..end]
        }
        _ => "",
    };
    Ok((tool.into(), arguments(tool, input, single_arg)?))
}

/// The byte offset of the `)` that closes the `(` at `open`; parentheses inside JSON strings do
/// not count.
fn closing(text: &str, open: usize) -> Option<usize> {
    let (mut depth, mut in_string, mut escaped) = (0usize, false, false);
    for (i, c) in text[open..].char_indices() {
        if in_string {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// `text` without a markdown code fence around it.
fn unfenced(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("```") else {
        return text;
    };
    // The opening fence's line (with its language tag) goes.
    let body = rest.find('\n').map_or("", |n| &rest[n + 1..]);
    body.trim_end().strip_suffix("```").unwrap_or(body).trim()
}

/// The arguments object text for `tool` written as `args` (what stood between the parentheses,
/// or after `Action Input:`).
fn arguments(
    tool: &str,
    args: &str,
    single_arg: &dyn Fn(&str) -> Option<String>,
) -> Result<String, String> {
    let args = unfenced(args.trim());
    if args.is_empty() {
        return Ok("{}".into());
    }
    if args.starts_with('{') {
        return Ok(args.into());
    }
    let single = single_arg(tool);
    let quoted = if args.starts_with('"') {
        serde_json::from_str::<String>(args).ok()
    } else {
        args.strip_prefix('\'')
            .and_then(|a| a.strip_suffix('\''))
            .filter(|a| !a.contains('\''))
            .map(str::to_string)
    };
    if quoted.is_none() {
        if let Some(object) = named(args) {
            // A tool with one string parameter takes `name="…"` pairs only when they name it:
            // `calculator(x=5)` is an expression.
            let names_it = |p: &String| object.len() == 1 && object.contains_key(p.as_str());
            if single.as_ref().is_none_or(names_it) {
                return Ok(Value::Object(object).to_string());
            }
        }
    }
    let text = quoted.unwrap_or_else(|| args.to_string());
    match single {
        Some(param) => {
            let mut object = Map::new();
            object.insert(param, Value::String(text));
            Ok(Value::Object(object).to_string())
        }
        None => Err(format!(
            "the tool \"{tool}\" needs its arguments as a JSON object, \
             like {tool}({{\"name\": \"value\"}})"
        )),
    }
}

/// Arguments written as Python keyword arguments, `query="rust", limit=5` (values JSON or
/// single-quoted strings), as an object; `None` when `args` is anything else.
fn named(args: &str) -> Option<Map<String, Value>> {
    let mut object = Map::new();
    for part in top_level_commas(args) {
        let part = part.trim();
        let name_len = part.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))?;
        let name = &part[..name_len];
        if !name.starts_with(|c: char| name_start(c)) {
            return None;
        }
        let value = part[name_len..].trim_start().strip_prefix('=')?.trim();
        if value.starts_with('=') {
            return None;
        }
        let value = match value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            Some(text) => Value::String(text.into()),
            None => serde_json::from_str(value).ok()?,
        };
        object.insert(name.into(), value);
    }
    Some(object)
}

/// `text` split at the commas outside strings, brackets and braces.
fn top_level_commas(text: &str) -> Vec<&str> {
    let mut parts = Vec::new();
    let (mut depth, mut start) = (0usize, 0);
    let (mut quote, mut escaped) = (None, false);
    for (i, c) in text.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '"' | '\'' => quote = Some(c),
            '[' | '{' | '(' => depth += 1,
            ']' | '}' | ')' => depth = depth.saturating_sub(1),
            ',' if depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    parts.push(&text[start..]);
    parts
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::ToolCall;
    use serde_json::json;

    fn sent(role: Role, content: &str) -> Sent {
        Sent {
            source: Source::History(0),
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            pinned: false,
            tokens: 1,
            images: Vec::new(),
        }
    }

    #[test]
    fn the_react_wire_has_no_function_calling_and_alternates_roles() {
        let tools = json!([{"type": "function", "function": {"name": "calculator",
            "description": "Exact arithmetic.", "parameters": {"type": "object"}}}]);
        let mut call = sent(Role::Assistant, "Action: calculator(\"1+1\")");
        call.tool_calls = vec![ToolCall {
            index: 0,
            id: "react-a".into(),
            name: "calculator".into(),
            arguments: "{}".into(),
        }];
        let mut result = sent(Role::Tool, "2");
        result.tool_call_id = Some("react-a".into());
        let mut stale = sent(Role::Tool, "");
        stale.tool_call_id = Some("react-b".into());
        let wire = for_react(
            vec![
                sent(Role::System, "Be brief."),
                sent(Role::User, "1+1?"),
                call,
                result,
                stale,
                sent(Role::User, "And 2+2?"),
            ],
            &tools,
        );
        let got: Vec<(Role, &str)> = wire.iter().map(|m| (m.role, m.content.as_str())).collect();
        assert_eq!(
            got[1..],
            [
                (Role::User, "1+1?"),
                (Role::Assistant, "Action: calculator(\"1+1\")"),
                (
                    Role::User,
                    "Observation: 2\n\nObservation: (no output)\n\nAnd 2+2?"
                ),
            ]
        );
        assert!(got[0]
            .1
            .starts_with("Be brief.\n\nYou can use the tools listed below."));
        assert!(got[0].1.contains("- calculator: Exact arithmetic."));
        assert!(wire
            .iter()
            .all(|m| m.tool_calls.is_empty() && m.tool_call_id.is_none()));
        // No system prompt: the instructions become one.
        let wire = for_react(vec![sent(Role::User, "hi")], &tools);
        assert_eq!(
            (wire[0].role, &wire[0].source),
            (Role::System, &Source::Agent)
        );
        assert_eq!(wire[1].content, "hi");
    }

    /// The tools of the tests: two with one string parameter, the rest take objects.
    fn single_arg(tool: &str) -> Option<String> {
        match tool {
            "calculator" => Some("expression".into()),
            "search_chats" => Some("query".into()),
            _ => None,
        }
    }

    fn act(thought: &str, tool: &str, arguments: &str) -> Step {
        Step::Act {
            thought: thought.into(),
            tool: tool.into(),
            arguments: arguments.into(),
        }
    }

    fn answer(thought: &str, answer: &str) -> Step {
        Step::Answer {
            thought: thought.into(),
            answer: answer.into(),
        }
    }

    fn unparsed(reason: &str) -> Step {
        Step::Unparsed {
            reason: reason.into(),
        }
    }

    /// Asserts what `reply` parses to.
    fn check(reply: &str, expected: Step) {
        assert_eq!(parse(reply, &single_arg), expected, "reply: {reply:?}");
    }

    const CALC: &str = r#"{"expression":"12*7"}"#;
    const NEITHER: &str = "the reply has neither \"Action:\" nor \"Final Answer:\"";

    #[test]
    fn parses_actions() {
        let cases: Vec<(&str, Step)> = vec![
            // The plain form.
            (
                "Thought: I need to compute the total.\nAction: calculator(\"12*7\")",
                act("I need to compute the total.", "calculator", CALC),
            ),
            // A JSON object is kept as written.
            (
                "Thought: t\nAction: calculator({\"expression\": \"12*7\"})",
                act("t", "calculator", "{\"expression\": \"12*7\"}"),
            ),
            // Bare text for a tool with one string parameter.
            ("Action: calculator(12*7)", act("", "calculator", CALC)),
            // Bare text with balanced parentheses inside.
            (
                "Action: calculator((1+2)*3)",
                act("", "calculator", r#"{"expression":"(1+2)*3"}"#),
            ),
            // A single-quoted string.
            ("Action: calculator('12*7')", act("", "calculator", CALC)),
            // Empty parentheses: no arguments.
            ("Action: current_time()", act("", "current_time", "{}")),
            ("Action: current_time( )", act("", "current_time", "{}")),
            // Parentheses inside a JSON string do not end the arguments.
            (
                "Action: calculator(\"(1+2))*(3\")",
                act("", "calculator", r#"{"expression":"(1+2))*(3"}"#),
            ),
            // Escaped quotes inside the string.
            (
                r#"Action: search_chats("the \"red\" (old) car")"#,
                act("", "search_chats", r#"{"query":"the \"red\" (old) car"}"#),
            ),
            // Nested JSON over several lines.
            (
                "Thought: look it up\nAction: fetch_page({\n  \"url\": \"https://x.test/a(b)\",\n  \"opts\": {\"depth\": [1, 2]}\n})\nObservation: made up",
                act(
                    "look it up",
                    "fetch_page",
                    "{\n  \"url\": \"https://x.test/a(b)\",\n  \"opts\": {\"depth\": [1, 2]}\n}",
                ),
            ),
            // Names with dots, dashes, underscores (MCP tools).
            (
                "Action: fs.read-file_v2({\"path\": \"a\"})",
                act("", "fs.read-file_v2", "{\"path\": \"a\"}"),
            ),
            // Python keyword arguments.
            (
                "Action: fetch_page(url=\"https://x.test\", depth=2)",
                act("", "fetch_page", r#"{"depth":2,"url":"https://x.test"}"#),
            ),
            (
                "Action: calculator(expression='12*7')",
                act("", "calculator", CALC),
            ),
            // …but not for a one-string tool when they do not name its parameter.
            (
                "Action: calculator(x=5)",
                act("", "calculator", r#"{"expression":"x=5"}"#),
            ),
            // A hallucinated observation and everything after it are ignored.
            (
                "Thought: go\nAction: calculator(\"12*7\")\nObservation: 84\nThought: done\nFinal Answer: 84",
                act("go", "calculator", CALC),
            ),
            // Trailing text on the action's line is ignored.
            (
                "Action: calculator(\"12*7\") to get the total",
                act("", "calculator", CALC),
            ),
            // The LangChain form, with a JSON string, a JSON object, bare text, a fenced object.
            (
                "Thought: t\nAction: calculator\nAction Input: \"12*7\"",
                act("t", "calculator", CALC),
            ),
            (
                "Action: fetch_page\nAction Input: {\"url\": \"https://x.test\"}\nObservation: x",
                act("", "fetch_page", "{\"url\": \"https://x.test\"}"),
            ),
            (
                "Action: calculator\nAction Input: 12*7\n",
                act("", "calculator", CALC),
            ),
            (
                "Action: `fetch_page`\nAction Input: ```json\n{\"url\": \"u\"}\n```",
                act("", "fetch_page", "{\"url\": \"u\"}"),
            ),
            // A bare name without input: no arguments.
            (
                "Action: current_time\nObservation: 12:00",
                act("", "current_time", "{}"),
            ),
            // Full-width colons (Chinese models) and Chinese text.
            (
                "Thought：我需要计算总数。\nAction：calculator(\"12*7\")",
                act("我需要计算总数。", "calculator", CALC),
            ),
            (
                "Thought: 查一下订单\nAction: search_chats(\"订单号（旧）\")",
                act("查一下订单", "search_chats", r#"{"query":"订单号（旧）"}"#),
            ),
            // Bold keywords, indentation, other case.
            (
                "**Thought:** I need math.\n**Action:** calculator(\"12*7\")",
                act("I need math.", "calculator", CALC),
            ),
            (
                "**Thought**: I need math.\n  **Action**： calculator(\"12*7\")",
                act("I need math.", "calculator", CALC),
            ),
            ("ACTION: calculator(\"12*7\")", act("", "calculator", CALC)),
            // Multi-line thoughts, text before the first keyword, several Thought lines.
            (
                "Let me see.\nThought: first line\nsecond line\n\nThought: more\nAction: calculator(1)",
                act(
                    "Let me see.\nfirst line\nsecond line\n\nmore",
                    "calculator",
                    r#"{"expression":"1"}"#,
                ),
            ),
            // An action before a final answer wins.
            (
                "Action: calculator(\"12*7\")\nFinal Answer: 84",
                act("", "calculator", CALC),
            ),
            // An unbalanced quote: the last parenthesis of the line closes.
            (
                "Action: search_chats(5\" screen)",
                act("", "search_chats", r#"{"query":"5\" screen"}"#),
            ),
        ];
        for (reply, expected) in cases {
            check(reply, expected);
        }
    }

    #[test]
    fn parses_answers() {
        let cases: Vec<(&str, Step)> = vec![
            (
                "Thought: I know the answer.\nFinal Answer: The total is 84.",
                answer("I know the answer.", "The total is 84."),
            ),
            ("Final Answer: 84", answer("", "84")),
            // Multi-line, trimmed.
            (
                "Thought: ok\nFinal Answer:\n\n- one\n- two\n\n",
                answer("ok", "- one\n- two"),
            ),
            ("**Final Answer:** 84", answer("", "84")),
            ("final answer：总数是 84。", answer("", "总数是 84。")),
            // A final answer before an action wins, and keeps the rest of the reply.
            (
                "Final Answer: 84\nAction: calculator(1)",
                answer("", "84\nAction: calculator(1)"),
            ),
        ];
        for (reply, expected) in cases {
            check(reply, expected);
        }
    }

    #[test]
    fn refuses_other_replies() {
        let cases: Vec<(&str, Step)> = vec![
            ("", unparsed("the reply is empty")),
            ("  \n ", unparsed("the reply is empty")),
            ("The total is 84.", unparsed(NEITHER)),
            ("Thought: I should use a tool.", unparsed(NEITHER)),
            // Keywords count only at the start of a line.
            ("I will do Action: calculator(1)", unparsed(NEITHER)),
            ("Observation: 84", unparsed(NEITHER)),
            ("Actions: many", unparsed(NEITHER)),
            // Missing parentheses: not the LangChain form either.
            (
                "Action: calculator 12*7",
                unparsed(
                    "the \"Action:\" has text after the tool name \"calculator\"; it should read calculator(arguments)",
                ),
            ),
            ("Action:", unparsed("the \"Action:\" names no tool")),
            (
                "Action: 12*7",
                unparsed("the \"Action:\" does not start with a tool name"),
            ),
            (
                "Action: calculator(\"12*7\"\nObservation: 84",
                unparsed("the arguments of \"calculator\" have no closing parenthesis"),
            ),
            // A string for a tool that takes an object.
            (
                "Action: fetch_page(\"https://x.test\")",
                unparsed(
                    "the tool \"fetch_page\" needs its arguments as a JSON object, like fetch_page({\"name\": \"value\"})",
                ),
            ),
            (
                "Action: fetch_page\nAction Input: https://x.test",
                unparsed(
                    "the tool \"fetch_page\" needs its arguments as a JSON object, like fetch_page({\"name\": \"value\"})",
                ),
            ),
            ("Final Answer:   ", unparsed("the \"Final Answer:\" is empty")),
        ];
        for (reply, expected) in cases {
            check(reply, expected);
        }
    }

    #[test]
    fn instructions_describe_the_format_and_every_tool() {
        let calc = json!({"type": "object", "properties": {"expression": {"type": "string"}}});
        let fetch = json!({"type": "object", "required": ["url"]});
        let text = instructions(&[
            ToolInfo {
                name: "calculator",
                description: "Evaluates arithmetic.",
                parameters: &calc,
            },
            ToolInfo {
                name: "fetch_page",
                description: "Fetches a page.\nReturns its text.",
                parameters: &fetch,
            },
        ]);
        for needle in [
            "\nThought: ",
            "\nAction: tool_name({\"argument\": \"value\"})\n",
            "\nObservation: ",
            "\nFinal Answer: ",
            "- calculator: Evaluates arithmetic.\n  Arguments: {\"properties\":{\"expression\":{\"type\":\"string\"}},\"type\":\"object\"}\n",
            "- fetch_page: Fetches a page.\n  Returns its text.\n  Arguments: {\"required\":[\"url\"],\"type\":\"object\"}\n",
        ] {
            assert!(text.contains(needle), "{needle:?} missing from:\n{text}");
        }
        // The example in the instructions parses as an action.
        assert!(matches!(
            parse("Action: tool_name({\"argument\": \"value\"})", &single_arg),
            Step::Act { .. }
        ));
        assert!(instructions(&[]).contains("(none"));
    }

    #[test]
    fn observations_start_with_the_keyword_the_stop_sequence_catches() {
        assert_eq!(observation(" 84\n"), "Observation: 84");
        assert_eq!(observation(""), "Observation: (no output)");
        assert!(format!("\n{}", observation("x")).starts_with(STOP[0]));
        // An observation the model writes itself is not an action.
        check(&observation("84"), unparsed(NEITHER));
    }

    mod props {
        use super::*;
        use proptest::prelude::*;

        /// Replies made of the pieces that matter to the parser.
        fn reply() -> impl Strategy<Value = String> {
            let piece = prop_oneof![
                Just("Thought:"),
                Just("Action:"),
                Just("Action Input:"),
                Just("Final Answer:"),
                Just("Observation:"),
                Just("："),
                Just("**"),
                Just("calculator"),
                Just("fetch_page"),
                Just("("),
                Just(")"),
                Just("\""),
                Just("'"),
                Just("\\"),
                Just("{"),
                Just("}"),
                Just("="),
                Just(","),
                Just("```"),
                Just("\n"),
                Just(" "),
                Just("订单"),
                Just("é"),
                Just("🦀"),
            ];
            proptest::collection::vec(piece, 0..40).prop_map(|p| p.concat())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(500))]
            /// Any text parses to some step; an action names a tool and, when Satori built the
            /// arguments, they are a JSON object.
            #[test]
            fn parse_never_panics(text in any::<String>(), built in reply()) {
                for reply in [text.as_str(), built.as_str()] {
                    if let Step::Act { tool, arguments, .. } = parse(reply, &single_arg) {
                        prop_assert!(tool.starts_with(name_start));
                        prop_assert!(tool.chars().all(name_char));
                        prop_assert!(arguments.starts_with('{'), "arguments {:?}", arguments);
                    }
                }
            }
        }
    }
}
