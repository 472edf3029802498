//! The tools built into Satori, as the model sees them (name, description, JSON Schema of the
//! arguments) and as the shell runs them: [`prepare`] checks a call's arguments against the
//! tool's schema and turns it into a typed [`Call`]; a call that is not valid becomes the text
//! sent back to the model as the tool's result, never an error thrown at the user.
//!
//! The calculator runs here ([`super::calc`]); the clock and the stored chats belong to the
//! shell, which passes them in (`now_text`, [`super::recall`]).

use super::repair::{tool_args, Verdict};
use serde_json::{json, Value};

/// A tool offered to the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Spec {
    /// Function name (`[a-zA-Z0-9_-]`, as the OpenAI API requires).
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of its arguments (an object).
    pub parameters: Value,
}

/// Name of the calculator.
pub const CALCULATOR: &str = "calculator";
/// Name of the clock.
pub const CURRENT_TIME: &str = "current_time";
/// Name of the recall of earlier messages.
pub const SEARCH_CHATS: &str = "search_chats";
/// Name of the planner (a sub-agent with the `planner` template's system prompt).
pub const PLANNER: &str = "planner";

/// Most messages `search_chats` returns.
pub const MAX_RECALL: u64 = 10;

/// The built-in tools.
pub fn builtin() -> Vec<Spec> {
    vec![
        Spec {
            name: CALCULATOR.into(),
            description: "Evaluate an arithmetic expression exactly: + - * / % ^ and parentheses, \
                          integers of any size and decimals. Use it for every calculation."
                .into(),
            parameters: json!({
                "type": "object",
                "required": ["expression"],
                "additionalProperties": false,
                "properties": {"expression": {"type": "string", "description": "For example (1200*3 + 45.5) / 7"}}
            }),
        },
        Spec {
            name: CURRENT_TIME.into(),
            description: "The current local date, time, weekday and time zone of the user.".into(),
            parameters: json!({"type": "object", "additionalProperties": false, "properties": {}}),
        },
        Spec {
            name: SEARCH_CHATS.into(),
            description:
                "Search the user's earlier messages in this chat and other chats (long-term \
                          memory beyond this conversation): the most relevant messages with their \
                          chat and date."
                    .into(),
            parameters: json!({
                "type": "object",
                "required": ["query"],
                "additionalProperties": false,
                "properties": {
                    "query": {"type": "string", "minLength": 1, "description": "Words to look for, in any language"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": MAX_RECALL}
                }
            }),
        },
        Spec {
            name: PLANNER.into(),
            description: "Turn a goal into a step-by-step plan (steps with what each needs done, \
                          when it is done and which steps it depends on, and questions for the \
                          user). Use it before a task of several steps."
                .into(),
            parameters: json!({
                "type": "object",
                "required": ["goal"],
                "additionalProperties": false,
                "properties": {"goal": {"type": "string", "minLength": 1, "description": "The goal, with everything known about it"}}
            }),
        },
    ]
}

/// The `tools` field of a chat completion request offering `specs`.
pub fn wire(specs: &[Spec]) -> Value {
    Value::Array(
        specs
            .iter()
            .map(|s| {
                json!({"type": "function", "function": {
                    "name": s.name, "description": s.description, "parameters": s.parameters
                }})
            })
            .collect(),
    )
}

/// The name of tool `name`'s one string parameter, when that is all it takes (ReAct text may then
/// call it with a bare string: `calculator("6*7")`).
pub fn single_string(specs: &[Spec], name: &str) -> Option<String> {
    let spec = specs.iter().find(|s| s.name == name)?;
    let props = spec.parameters.get("properties")?.as_object()?;
    let (key, schema) = props.iter().next().filter(|_| props.len() == 1)?;
    (schema.get("type").and_then(Value::as_str) == Some("string")).then(|| key.clone())
}

/// A built-in tool call whose arguments passed its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Call {
    /// Evaluate an expression.
    Calculate(String),
    /// Tell the time.
    Now,
    /// Ask the planner for a plan.
    Plan(String),
    /// Recall earlier messages.
    SearchChats {
        /// The words looked for.
        query: String,
        /// How many messages at most.
        limit: usize,
    },
    /// A tool that runs elsewhere (an MCP server's), with its arguments.
    Other(Value),
}

/// The call of `name` with `arguments` (the JSON text the model wrote), checked against the
/// tool's schema; `Err` is the message for the model (unknown tool, invalid arguments).
pub fn prepare(specs: &[Spec], name: &str, arguments: &str) -> Result<Call, String> {
    let Some(spec) = specs.iter().find(|s| s.name == name) else {
        let names: Vec<&str> = specs.iter().map(|s| s.name.as_str()).collect();
        return Err(format!(
            "Error: there is no tool `{name}` (tools: {}).",
            names.join(", ")
        ));
    };
    // A schema Satori cannot apply (an MCP server's) is left to the server to check.
    let any = json!({"type": "object"});
    let schema = match super::schema::check_schema(&spec.parameters) {
        Ok(()) => &spec.parameters,
        Err(_) => &any,
    };
    let args = tool_args(arguments, schema).map_err(|e| format!("Error: calling `{name}`: {e}"))?;
    let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
    Ok(match name {
        CALCULATOR => Call::Calculate(text("expression").to_string()),
        CURRENT_TIME => Call::Now,
        PLANNER => Call::Plan(text("goal").to_string()),
        SEARCH_CHATS => Call::SearchChats {
            query: text("query").to_string(),
            limit: args
                .get("limit")
                .and_then(Value::as_u64)
                .unwrap_or(5)
                .min(MAX_RECALL) as usize,
        },
        _ => Call::Other(args),
    })
}

/// The calculator's answer to the model: the result, or what is wrong with the expression.
pub fn calculate(expression: &str) -> String {
    match super::calc::evaluate(expression) {
        Ok(v) => v,
        Err(e) => format!("Error: {e}"),
    }
}

/// The planner's answer (to the model, and shown in the chat): how the plan was obtained, the
/// plan as a checklist (in the planner's order, each step with the steps it depends on), its
/// questions, then the plan itself as JSON.
pub fn plan_text(plan: &Value, verdict: &Verdict) -> String {
    let how = match verdict {
        Verdict::Valid => "valid".to_string(),
        Verdict::RepairedLocally(fixes) => {
            let labels: Vec<&str> = fixes.iter().map(|f| f.label()).collect();
            format!("repaired locally: {}", labels.join(", "))
        }
        Verdict::RepairedByModel { tries: 1 } => "repaired by the model, 1 try".to_string(),
        Verdict::RepairedByModel { tries } => format!("repaired by the model, {tries} tries"),
        Verdict::Failed { reason } => return format!("Plan unavailable: {reason}"),
    };
    let text = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_string();
    let mut out = format!("Plan ({how}): {}\n", text(plan, "goal"));
    let steps = plan
        .get("steps")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for step in &steps {
        let id = step.get("id").map(Value::to_string).unwrap_or_default();
        out.push_str(&format!(
            "☐ {id}. {} — done when: {}",
            text(step, "action"),
            text(step, "done_when")
        ));
        let after: Vec<String> = step
            .get("depends_on")
            .and_then(Value::as_array)
            .map(|d| d.iter().map(Value::to_string).collect())
            .unwrap_or_default();
        if !after.is_empty() {
            out.push_str(&format!(" (after {})", after.join(", ")));
        }
        out.push('\n');
    }
    let questions = plan
        .get("questions")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    if !questions.is_empty() {
        out.push_str("Questions:\n");
        for q in &questions {
            out.push_str(&format!("- {}\n", q.as_str().unwrap_or_default()));
        }
    }
    out.push_str(&format!("JSON: {plan}"));
    out
}

const WEEKDAYS: [&str; 7] = [
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
    "Monday",
    "Tuesday",
    "Wednesday",
];

/// The clock's answer: the local date and time at `ms` since the epoch in a time zone
/// `offset_min` minutes ahead of UTC (named `zone`, when known), e.g.
/// `2026-12-01 21:05:09 Tuesday, time zone Asia/Shanghai (UTC+08:00)`.
pub fn now_text(ms: i64, offset_min: i32, zone: &str) -> String {
    let local = ms.saturating_add(i64::from(offset_min) * 60_000);
    let iso = crate::transfer::time::iso(local);
    let day = WEEKDAYS[local.div_euclid(86_400_000).rem_euclid(7) as usize];
    let sign = if offset_min < 0 { '-' } else { '+' };
    let off = offset_min.unsigned_abs();
    let utc = format!("UTC{sign}{:02}:{:02}", off / 60, off % 60);
    let date = iso.get(..10).unwrap_or_default();
    let time = iso.get(11..19).unwrap_or_default();
    if zone.is_empty() {
        format!("{date} {time} {day}, time zone {utc}")
    } else {
        format!("{date} {time} {day}, time zone {zone} ({utc})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_schema_is_usable() {
        for s in builtin() {
            assert_eq!(
                super::super::schema::check_schema(&s.parameters),
                Ok(()),
                "{}",
                s.name
            );
            assert!(s
                .name
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'_'));
        }
        let wire = wire(&builtin());
        assert_eq!(wire[0]["function"]["name"], "calculator");
        assert_eq!(wire[2]["function"]["parameters"]["required"][0], "query");
    }

    fn check(name: &str, args: &str, expected: Result<Call, &str>) {
        let got = prepare(&builtin(), name, args);
        match expected {
            Ok(call) => assert_eq!(got, Ok(call), "{name}({args})"),
            Err(start) => {
                let e = got.expect_err(args);
                assert!(e.starts_with(start), "{name}({args}): {e}");
            }
        }
    }

    #[test]
    fn calls_are_checked_against_their_schema() {
        check(
            "calculator",
            r#"{"expression":"1+2"}"#,
            Ok(Call::Calculate("1+2".into())),
        );
        check("current_time", "", Ok(Call::Now));
        check("current_time", "{}", Ok(Call::Now));
        check(
            "search_chats",
            r#"{"query":"订单号"}"#,
            Ok(Call::SearchChats {
                query: "订单号".into(),
                limit: 5,
            }),
        );
        check(
            "search_chats",
            r#"{"query":"order","limit":3}"#,
            Ok(Call::SearchChats {
                query: "order".into(),
                limit: 3,
            }),
        );
        check(
            "search_chats",
            r#"{"query":"order","limit":30}"#,
            Err("Error: calling `search_chats`: invalid arguments:\n- `$.limit`: "),
        );
        check(
            "calculator",
            r#"{"expr":"1+2"}"#,
            Err("Error: calling `calculator`: invalid arguments:\n- `$`: missing required property `expression`"),
        );
        check(
            "calculator",
            r#"{"expression":12}"#,
            Err("Error: calling `calculator`: invalid arguments:\n- `$.expression`: expected string"),
        );
        check(
            "weather",
            "{}",
            Err("Error: there is no tool `weather` (tools: calculator, current_time, search_chats, planner)."),
        );
    }

    #[test]
    fn only_tools_of_one_string_take_a_bare_string() {
        let specs = builtin();
        assert_eq!(
            single_string(&specs, CALCULATOR).as_deref(),
            Some("expression")
        );
        assert_eq!(single_string(&specs, SEARCH_CHATS), None);
        assert_eq!(single_string(&specs, CURRENT_TIME), None);
        assert_eq!(single_string(&specs, "weather"), None);
    }

    #[test]
    fn a_plan_reads_as_a_checklist_with_how_it_was_obtained() {
        let plan = json!({"goal": "Move house", "questions": ["Which date?"], "steps": [
            {"id": 1, "action": "Book a van", "done_when": "a van is booked"},
            {"id": 2, "action": "Pack", "done_when": "all boxes are closed", "depends_on": [1]}
        ]});
        assert_eq!(
            plan_text(&plan, &Verdict::RepairedByModel { tries: 1 }),
            format!(
                "Plan (repaired by the model, 1 try): Move house\n\
                 ☐ 1. Book a van — done when: a van is booked\n\
                 ☐ 2. Pack — done when: all boxes are closed (after 1)\n\
                 Questions:\n- Which date?\nJSON: {plan}"
            )
        );
        assert!(plan_text(&plan, &Verdict::Valid).starts_with("Plan (valid): Move house\n"));
        assert!(plan_text(&plan, &Verdict::RepairedByModel { tries: 2 })
            .starts_with("Plan (repaired by the model, 2 tries)"));
        assert_eq!(
            plan_text(
                &plan,
                &Verdict::Failed {
                    reason: "still invalid".into()
                }
            ),
            "Plan unavailable: still invalid"
        );
    }

    #[test]
    fn the_calculator_answers_with_the_result_or_the_error() {
        assert_eq!(calculate("2^10"), "1024");
        assert!(calculate("1/0").starts_with("Error: division by zero"));
    }

    #[test]
    fn the_clock_tells_local_time_and_weekday() {
        // 2026-12-01T12:59:09Z is a Tuesday.
        let ms = 1_796_129_949_000;
        assert_eq!(
            now_text(ms, 480, "Asia/Shanghai"),
            "2026-12-01 20:59:09 Tuesday, time zone Asia/Shanghai (UTC+08:00)"
        );
        assert_eq!(
            now_text(ms, -300, ""),
            "2026-12-01 07:59:09 Tuesday, time zone UTC-05:00"
        );
        assert_eq!(
            now_text(ms, 660, "Australia/Sydney"),
            "2026-12-01 23:59:09 Tuesday, time zone Australia/Sydney (UTC+11:00)"
        );
        assert_eq!(
            now_text(0, 0, "UTC"),
            "1970-01-01 00:00:00 Thursday, time zone UTC (UTC+00:00)"
        );
    }
}
