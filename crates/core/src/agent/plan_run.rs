//! "Run plan": the steps of a plan the planner made, run one by one as turns of the chat — a
//! prompt chain the user watches and can stop. Each step goes out as a user message that starts
//! with [`step_prefix`]; a step is checked off once such a message has a complete answer in the
//! branch after the plan ([`progress`]), so the checklist is read from the conversation itself
//! (it survives a reload, an export and an import) and the next step is always the first one
//! whose dependencies are done ([`next_step`]).
//!
//! Invariants: [`read`] accepts only a plan whose steps have unique ids and whose dependencies
//! name listed steps without a cycle (a bad plan is an error that says which step is wrong); the
//! order is a topological order that keeps the plan's own order where it can. Pure: no IO.

use crate::session::{Message, Role, Status};
use serde_json::Value;

/// A step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its id in the plan (`None`: missing or not a whole number, which [`order`] refuses).
    pub id: Option<i64>,
    /// What to do.
    pub action: String,
    /// How to tell it is done.
    pub done_when: String,
    /// The steps it waits for.
    pub depends_on: Vec<i64>,
}

impl Step {
    /// Its id (0 if it has none; [`order`] refuses such a step).
    pub fn id(&self) -> i64 {
        self.id.unwrap_or_default()
    }
}

/// A plan: its goal and its steps (in the order they run, once [`order`]ed).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What the plan is for.
    pub goal: String,
    /// Its steps.
    pub steps: Vec<Step>,
}

/// A whole number as JSON Schema counts one (`3` and `3.0`).
fn whole(v: &Value) -> Option<i64> {
    v.as_i64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9.0e15)
            .map(|f| f as i64)
    })
}

/// The plan the planner's JSON describes (its shape was checked against the schema already).
pub fn from_value(plan: &Value) -> Plan {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let steps = plan
        .get("steps")
        .and_then(Value::as_array)
        .map(|steps| {
            steps
                .iter()
                .map(|s| Step {
                    id: s.get("id").and_then(whole),
                    action: text(s, "action"),
                    done_when: text(s, "done_when"),
                    depends_on: s
                        .get("depends_on")
                        .and_then(Value::as_array)
                        .map(|d| d.iter().filter_map(whole).collect())
                        .unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default();
    Plan {
        goal: text(plan, "goal"),
        steps,
    }
}

/// The marker that starts the tool result the planner left (see `tools::plan_text`).
const PLAN_MARK: &str = "Plan (";
/// The line of that result that carries the plan's JSON.
const JSON_MARK: &str = "\nJSON: ";

/// The plan in a planner result (`None`: not a plan — another tool's result, "Plan
/// unavailable", or text that does not parse as one), ready to run or with what is wrong with it.
pub fn read(content: &str) -> Option<Result<Plan, String>> {
    if !content.starts_with(PLAN_MARK) {
        return None;
    }
    let json = &content[content.rfind(JSON_MARK)? + JSON_MARK.len()..];
    let value: Value = serde_json::from_str(json.trim()).ok()?;
    Some(order(from_value(&value)))
}

/// `plan` with its steps in dependency order (Kahn's algorithm, taking the first ready step in
/// the plan's own order each time), or what is wrong with it.
pub fn order(plan: Plan) -> Result<Plan, String> {
    if plan.steps.is_empty() {
        return Err("the plan has no steps".into());
    }
    if let Some(i) = plan.steps.iter().position(|s| s.id.is_none()) {
        return Err(format!("step {} has no id", i + 1));
    }
    let ids: Vec<i64> = plan.steps.iter().map(Step::id).collect();
    for (i, id) in ids.iter().enumerate() {
        if ids[..i].contains(id) {
            return Err(format!("two steps have the id {id}"));
        }
    }
    for s in &plan.steps {
        if let Some(d) = s.depends_on.iter().find(|d| !ids.contains(d)) {
            return Err(format!(
                "step {} depends on step {d}, which is not in the plan",
                s.id()
            ));
        }
        if s.depends_on.contains(&s.id()) {
            return Err(format!("step {} depends on itself", s.id()));
        }
    }
    let mut done: Vec<i64> = Vec::new();
    let mut left = plan.steps;
    let mut ordered = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let Some(i) = left
            .iter()
            .position(|s| s.depends_on.iter().all(|d| done.contains(d)))
        else {
            let ids: Vec<String> = left.iter().map(|s| s.id().to_string()).collect();
            return Err(format!(
                "steps {} depend on each other in a circle",
                ids.join(", ")
            ));
        };
        let step = left.remove(i);
        done.push(step.id());
        ordered.push(step);
    }
    Ok(Plan {
        goal: plan.goal,
        steps: ordered,
    })
}

/// How the user message that runs step `id` starts.
pub fn step_prefix(id: i64) -> String {
    format!("Plan step {id}: ")
}

/// The user message that runs `step` (`number` of the plan's `total`).
pub fn step_prompt(plan: &Plan, step: &Step, number: usize, total: usize) -> String {
    let mut out = format!("{}{}", step_prefix(step.id()), step.action.trim());
    if !step.done_when.trim().is_empty() {
        out.push_str(&format!("\nDone when: {}", step.done_when.trim()));
    }
    out.push_str(&format!(
        "\n(Step {number} of {total} of the plan for: {}. Do this step only, then say what was done.)",
        plan.goal.trim()
    ));
    out
}

/// A message after the plan in the branch, as [`progress`] reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum After<'a> {
    /// A user message with its text (empty if it cannot be a step's message).
    User(&'a str),
    /// An answer: complete (with text) or not.
    Answer(bool),
    /// A complete reply of a chat in ReAct text: an answer unless it asks for a tool.
    React(&'a str),
    /// Anything else (tool calls and results in between).
    Other,
}

/// Which steps of `plan` (in dependency order) are done, in the order of its steps: those whose
/// step message — exactly the one [`step_prompt`] makes for this plan, so neither another plan's
/// step nor a message typed by hand counts — is followed by a complete answer before the next
/// user message (a plan made inside a step is part of that step's turn).
pub fn progress(plan: &Plan, after: &[After]) -> Vec<bool> {
    let total = plan.steps.len();
    let prompts: Vec<String> = plan
        .steps
        .iter()
        .enumerate()
        .map(|(i, s)| step_prompt(plan, s, i + 1, total))
        .collect();
    let mut done = vec![false; total];
    let mut current: Option<usize> = None;
    for a in after {
        let answered = match *a {
            After::User(text) => {
                current = prompts.iter().position(|p| p == text);
                false
            }
            After::Answer(ok) => ok,
            // An answer unless it asks for a tool (read as ReAct, or with an `Action` line the
            // reader could not take apart).
            After::React(text) => {
                let acts = matches!(
                    super::react::parse(text, &|_| None),
                    super::react::Step::Act { .. }
                );
                let action_line = text.lines().any(|l| {
                    l.trim_start_matches(['*', ' ', '\t'])
                        .get(..6)
                        .is_some_and(|w| w.eq_ignore_ascii_case("action"))
                });
                !acts && !action_line
            }
            After::Other => false,
        };
        if answered {
            if let Some(i) = current.take() {
                done[i] = true;
            }
        }
    }
    done
}

/// The next step to run: the first in order not done (its dependencies come before it, so they
/// are done when it is reached in a run; a step left undone blocks the ones after it).
pub fn next_step<'a>(plan: &'a Plan, done: &[bool]) -> Option<(usize, &'a Step)> {
    plan.steps
        .iter()
        .enumerate()
        .find(|(i, _)| !done.get(*i).copied().unwrap_or(false))
}

/// `text` safe inside HTML.
pub fn escape_html(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    crate::markdown::push_escaped(&mut out, text);
    out
}

/// The checklist of `plan` as HTML (every text escaped): its steps, ☑ for those `done`, and how
/// many are done.
pub fn checklist_html(plan: &Plan, done: &[bool]) -> String {
    let mut out = String::from("<ol class=\"plan-steps\">");
    for (i, step) in plan.steps.iter().enumerate() {
        let d = done.get(i).copied().unwrap_or(false);
        out.push_str(if d {
            "<li class=\"done\"><span aria-hidden=\"true\">☑ </span>"
        } else {
            "<li><span aria-hidden=\"true\">☐ </span>"
        });
        out.push_str(&format!("{}. {}", step.id(), escape_html(&step.action)));
        out.push_str(if d {
            "<span class=\"visually-hidden\"> (done)</span></li>"
        } else {
            "<span class=\"visually-hidden\"> (to do)</span></li>"
        });
    }
    let count = done.iter().filter(|d| **d).count();
    out.push_str(&format!(
        "</ol><p class=\"hint\">{count} of {} steps done</p>",
        plan.steps.len()
    ));
    out
}

/// The messages of the branch after the plan, as [`progress`] reads them, in a plain form that
/// crosses to the agent module cheaply: a user message is `u` with its text if it may be a
/// step's message (else just `u`), a complete answer `a` (in a chat in ReAct text, `r` with its
/// text), an answer cut short `x`, anything else `o`.
pub fn after_of(messages: &[&Message], react: bool) -> Vec<String> {
    messages
        .iter()
        .map(|m| match m.role {
            Role::User if m.content.starts_with("Plan step ") => format!("u{}", m.content),
            Role::User => "u".into(),
            Role::Assistant if m.tool_calls.is_empty() => {
                match (
                    m.status == Status::Complete && !m.content.trim().is_empty(),
                    react,
                ) {
                    (true, true) => format!("r{}", m.content),
                    (true, false) => "a".into(),
                    (false, _) => "x".into(),
                }
            }
            _ => "o".into(),
        })
        .collect()
}

/// What the app hands the agent module about a plan (as JSON, [`PlanRead`] on the other side):
/// the plan's text (a tool result), the branch after it, whether the chat's replies are ReAct
/// text, and the step a run sent last (`None` outside a run).
#[derive(serde::Serialize)]
pub struct PlanAsk<'a> {
    pub plan: &'a str,
    pub after: &'a [&'a Message],
    pub react: bool,
    pub last: Option<i64>,
}

/// [`PlanAsk`] as the agent module reads it.
#[derive(Debug, serde::Deserialize)]
pub struct PlanRead {
    pub plan: String,
    pub after: Vec<Message>,
    pub react: bool,
    pub last: Option<i64>,
}

impl PlanRead {
    /// The branch after the plan as [`progress`] reads it ([`after_of`], then [`read_after`]).
    pub fn after(&self) -> Vec<String> {
        after_of(&self.after.iter().collect::<Vec<_>>(), self.react)
    }
}

/// [`after_of`]'s form read back.
pub fn read_after(items: &[String]) -> Vec<After<'_>> {
    items
        .iter()
        .map(|i| match i.as_bytes().first() {
            Some(b'u') => After::User(&i[1..]),
            Some(b'a') => After::Answer(true),
            Some(b'x') => After::Answer(false),
            Some(b'r') => After::React(&i[1..]),
            _ => After::Other,
        })
        .collect()
}

/// The plan in tool result `plan_msg` of the branch `path`, with which of its steps are done
/// (`None`: not in the branch, or not a plan that can run).
pub fn state(path: &[&Message], plan_msg: &str) -> Option<(Plan, Vec<bool>)> {
    let at = path.iter().position(|m| m.id == plan_msg)?;
    let plan = read(&path[at].content)?.ok()?;
    let items = after_of(&path[at + 1..], false);
    let done = progress(&plan, &read_after(&items));
    Some((plan, done))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// [`order`] of a plan written as JSON.
    fn order_json(plan: &Value) -> Result<Plan, String> {
        order(from_value(plan))
    }

    fn plan(steps: Value) -> Value {
        json!({"goal": "Ship it", "steps": steps, "questions": []})
    }

    fn ids(p: &Plan) -> Vec<i64> {
        p.steps.iter().map(Step::id).collect()
    }

    #[test]
    fn steps_run_in_dependency_order_keeping_the_plan_order_where_free() {
        let cases: &[(Value, &[i64])] = &[
            (
                json!([{"id": 1, "action": "a", "done_when": "x"}, {"id": 2, "action": "b", "done_when": "y"}]),
                &[1, 2],
            ),
            (
                json!([{"id": 1, "action": "a", "done_when": "", "depends_on": [3]}, {"id": 2, "action": "b", "done_when": ""}, {"id": 3, "action": "c", "done_when": ""}]),
                &[2, 3, 1],
            ),
            (
                json!([{"id": 4, "action": "", "done_when": "", "depends_on": [2, 3]}, {"id": 3, "action": "", "done_when": "", "depends_on": [1]}, {"id": 2, "action": "", "done_when": ""}, {"id": 1, "action": "", "done_when": ""}]),
                &[2, 1, 3, 4],
            ),
        ];
        for (steps, want) in cases {
            assert_eq!(
                ids(&order_json(&plan(steps.clone())).unwrap()),
                *want,
                "{steps}"
            );
        }
    }

    #[test]
    fn bad_plans_say_which_step_is_wrong() {
        let cases = [
            (json!([]), "the plan has no steps"),
            (json!([{"action": "a"}]), "step 1 has no id"),
            (json!([{"id": 1}, {"id": 1}]), "two steps have the id 1"),
            (
                json!([{"id": 1, "depends_on": [9]}]),
                "step 1 depends on step 9, which is not in the plan",
            ),
            (
                json!([{"id": 1, "depends_on": [1]}]),
                "step 1 depends on itself",
            ),
            (
                json!([{"id": 1}, {"id": 2, "depends_on": [3]}, {"id": 3, "depends_on": [2]}]),
                "steps 2, 3 depend on each other in a circle",
            ),
        ];
        for (steps, want) in cases {
            assert_eq!(
                order_json(&plan(steps.clone())),
                Err(want.to_string()),
                "{steps}"
            );
        }
        assert_eq!(
            order_json(&json!({"goal": "x"})),
            Err("the plan has no steps".into())
        );
    }

    #[test]
    fn a_planner_result_is_read_back() {
        let value = plan(json!([{"id": 1, "action": "Collect", "done_when": "listed"}]));
        let text = super::super::tools::plan_text(&value, &super::super::repair::Verdict::Valid);
        let p = read(&text).unwrap().unwrap();
        assert_eq!(
            (p.goal.as_str(), p.steps[0].action.as_str()),
            ("Ship it", "Collect")
        );
        assert_eq!(read("Plan unavailable: no"), None);
        assert_eq!(read("42"), None);
        assert_eq!(read("Plan (valid): x\nJSON: {broken"), None);
        assert!(read("Plan (valid): x\nJSON: {\"steps\": []}")
            .unwrap()
            .is_err());
    }

    #[test]
    fn progress_is_read_from_the_conversation() {
        let p = order_json(&plan(
            json!([{"id": 1}, {"id": 2, "depends_on": [1]}, {"id": 3}]),
        ))
        .unwrap();
        let one = step_prompt(&p, &p.steps[0], 1, 3);
        let two = step_prompt(&p, &p.steps[1], 2, 3);
        assert!(one.starts_with("Plan step 1: "));
        let after = [
            After::User(&one),
            After::Other,
            After::Other,
            After::Answer(true),
            After::User(&two),
            After::Answer(false),
            After::User("Plan step 3 is next?"),
            After::Answer(true),
            // Typed by hand, the prefix alone: not step 3's message.
            After::User("Plan step 3: Clean up"),
            After::Answer(true),
        ];
        let done = progress(&p, &after);
        assert_eq!(done, [true, false, false]);
        let (i, next) = next_step(&p, &done).unwrap();
        assert_eq!((i, next.id()), (1, 2));
        assert_eq!(next_step(&p, &[true, true, true]), None);
    }

    #[test]
    fn state_reads_the_branch_after_the_plan() {
        let value = plan(json!([{"id": 1}, {"id": 2}]));
        let text = super::super::tools::plan_text(&value, &super::super::repair::Verdict::Valid);
        let p = order_json(&value).unwrap();
        let msg = |id: &str, role: Role, content: &str| {
            Message::new(id.into(), None, role, content.into(), 0)
        };
        let mut call = msg("a1", Role::Assistant, "");
        call.tool_calls.push(crate::session::ToolCall {
            index: 0,
            id: "c".into(),
            name: "planner".into(),
            arguments: "{}".into(),
        });
        let mut stopped = msg("a3", Role::Assistant, "half");
        stopped.status = Status::Stopped;
        let msgs = [
            msg("u0", Role::User, "Plan step 1: before the plan"),
            msg("a0", Role::Assistant, "done?"),
            call,
            msg("t1", Role::Tool, &text),
            msg("a2", Role::Assistant, "Here is the plan."),
            msg("u1", Role::User, &step_prompt(&p, &p.steps[0], 1, 2)),
            msg("a2b", Role::Assistant, "Step one done."),
            msg("u2", Role::User, &step_prompt(&p, &p.steps[1], 2, 2)),
            stopped,
        ];
        let path: Vec<&Message> = msgs.iter().collect();
        let (_, done) = state(&path, "t1").unwrap();
        assert_eq!(done, [true, false]);
        assert!(state(&path[..3], "t1").is_none(), "not in the branch");
        assert!(state(&path, "a2").is_none(), "not a plan");
    }

    #[test]
    fn another_plan_and_react_replies_are_read_right() {
        let p = order_json(&plan(
            json!([{"id": 1, "action": "a"}, {"id": 2, "action": "b"}]),
        ))
        .unwrap();
        let one = step_prompt(&p, &p.steps[0], 1, 2);
        let two = step_prompt(&p, &p.steps[1], 2, 2);
        // Another plan with the same goal and step 1 but another action: its step is not ours.
        let other = order_json(&plan(json!([{"id": 1, "action": "z"}]))).unwrap();
        let theirs = step_prompt(&other, &other.steps[0], 1, 1);
        let after = [
            After::User(&theirs),
            After::Answer(true),
            After::User(&one),
            After::React("Thought: need a tool\nAction: calculator(1+1)"),
            After::User(&two),
            After::React("Final Answer: packed"),
        ];
        assert_eq!(progress(&p, &after), [false, true]);
        // A step whose turn calls a tool (the planner, say) is done by its answer after that.
        let after = [
            After::User(&one),
            After::Other,
            After::Other,
            After::Answer(true),
        ];
        assert_eq!(progress(&p, &after), [true, false]);
        // Prose read as ReAct text (the mode switched on later) still counts as an answer.
        let after = [After::User(&one), After::React("Packed the van.")];
        assert_eq!(progress(&p, &after), [true, false]);
    }

    #[test]
    fn whole_number_ids_written_as_floats_are_read() {
        let p = order_json(&plan(
            json!([{"id": 1.0}, {"id": 2, "depends_on": [1.0]}, {"id": 2.5}]),
        ));
        assert_eq!(p, Err("step 3 has no id".into()));
        let p = order_json(&plan(json!([{"id": 1.0}, {"id": 2, "depends_on": [1.0]}]))).unwrap();
        assert_eq!(p.steps[1].depends_on, [1]);
    }

    #[test]
    fn the_checklist_is_escaped_html() {
        let p = order_json(&plan(json!([
            {"id": 1, "action": "Book <b>a</b> van & \"go\""},
            {"id": 2, "action": "Pack"}
        ])))
        .unwrap();
        assert_eq!(
            checklist_html(&p, &[true, false]),
            "<ol class=\"plan-steps\"><li class=\"done\"><span aria-hidden=\"true\">☑ </span>1. Book &lt;b&gt;a&lt;/b&gt; van &amp; &quot;go&quot;<span class=\"visually-hidden\"> (done)</span></li>\
             <li><span aria-hidden=\"true\">☐ </span>2. Pack<span class=\"visually-hidden\"> (to do)</span></li></ol><p class=\"hint\">1 of 2 steps done</p>"
        );
    }

    #[test]
    fn the_step_message_says_what_and_when_done() {
        let p = order_json(&plan(
            json!([{"id": 7, "action": " Book the hall ", "done_when": "a booking number"}]),
        ))
        .unwrap();
        assert_eq!(
            step_prompt(&p, &p.steps[0], 1, 1),
            "Plan step 7: Book the hall\nDone when: a booking number\n(Step 1 of 1 of the plan for: Ship it. Do this step only, then say what was done.)"
        );
    }

    /// What the app sends about a plan is what the agent module reads: the branch after it in
    /// the form [`progress`] reads, whichever way replies are written.
    #[test]
    fn a_plan_crosses_to_the_agent_module_whole() {
        use crate::session::Message;
        let step = Message::new("u".into(), None, Role::User, "Plan step 7: Book".into(), 1);
        let mut answer = Message::new("a".into(), None, Role::Assistant, "Booked.".into(), 2);
        answer.status = Status::Complete;
        let mut cut = Message::new("x".into(), None, Role::Assistant, "Boo".into(), 3);
        cut.status = Status::Incomplete;
        let after = [&step, &answer, &cut];
        for react in [false, true] {
            let ask = PlanAsk {
                plan: "Plan (2 steps)",
                after: &after,
                react,
                last: Some(7),
            };
            let read: PlanRead =
                serde_json::from_str(&serde_json::to_string(&ask).unwrap()).unwrap();
            assert_eq!(read.plan, "Plan (2 steps)");
            assert_eq!(read.last, Some(7));
            assert_eq!(read.after(), after_of(&after, react), "react {react}");
        }
    }
}
