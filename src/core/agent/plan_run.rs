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

use serde_json::Value;
use std::collections::{HashMap, HashSet};

/// A step of a plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    /// Its id in the plan.
    pub id: i64,
    /// What to do.
    pub action: String,
    /// How to tell it is done.
    pub done_when: String,
    /// The steps it waits for.
    pub depends_on: Vec<i64>,
}

/// A plan ready to run: its goal and its steps in the order they run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// What the plan is for.
    pub goal: String,
    /// In dependency order.
    pub steps: Vec<Step>,
}

/// The marker that starts the tool result the planner left (see `tools::plan_text`).
const PLAN_MARK: &str = "Plan (";
/// The line of that result that carries the plan's JSON.
const JSON_MARK: &str = "\nJSON: ";

/// The plan in a planner result (`None`: not a plan — another tool's result, "Plan
/// unavailable", or text that does not parse), ready to run or with what is wrong with it.
pub fn read(content: &str) -> Option<Result<Plan, String>> {
    if !content.starts_with(PLAN_MARK) {
        return None;
    }
    let json = &content[content.rfind(JSON_MARK)? + JSON_MARK.len()..];
    let value: Value = serde_json::from_str(json.trim()).ok()?;
    Some(order(&value))
}

/// The steps of `plan` (the planner's JSON) in dependency order.
pub fn order(plan: &Value) -> Result<Plan, String> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).unwrap_or("").to_string();
    let listed = plan.get("steps").and_then(Value::as_array);
    let mut steps = Vec::new();
    for (i, s) in listed.into_iter().flatten().enumerate() {
        let Some(id) = s.get("id").and_then(Value::as_i64) else {
            return Err(format!("step {} has no id", i + 1));
        };
        steps.push(Step {
            id,
            action: text(s, "action"),
            done_when: text(s, "done_when"),
            depends_on: s
                .get("depends_on")
                .and_then(Value::as_array)
                .map(|d| d.iter().filter_map(Value::as_i64).collect())
                .unwrap_or_default(),
        });
    }
    if steps.is_empty() {
        return Err("the plan has no steps".into());
    }
    let mut seen = HashSet::new();
    for s in &steps {
        if !seen.insert(s.id) {
            return Err(format!("two steps have the id {}", s.id));
        }
    }
    for s in &steps {
        if let Some(d) = s.depends_on.iter().find(|d| !seen.contains(d)) {
            return Err(format!(
                "step {} depends on step {d}, which is not in the plan",
                s.id
            ));
        }
        if s.depends_on.contains(&s.id) {
            return Err(format!("step {} depends on itself", s.id));
        }
    }
    // Kahn's algorithm, taking the first ready step in the plan's order each time.
    let mut done: HashSet<i64> = HashSet::new();
    let mut left = steps;
    let mut ordered = Vec::with_capacity(left.len());
    while !left.is_empty() {
        let Some(i) = left
            .iter()
            .position(|s| s.depends_on.iter().all(|d| done.contains(d)))
        else {
            let ids: Vec<String> = left.iter().map(|s| s.id.to_string()).collect();
            return Err(format!(
                "steps {} depend on each other in a circle",
                ids.join(", ")
            ));
        };
        let step = left.remove(i);
        done.insert(step.id);
        ordered.push(step);
    }
    Ok(Plan {
        goal: text(plan, "goal"),
        steps: ordered,
    })
}

/// How the user message that runs step `id` starts.
pub fn step_prefix(id: i64) -> String {
    format!("Plan step {id}: ")
}

/// The user message that runs `step` (`number` of the plan's `total`).
pub fn step_prompt(plan: &Plan, step: &Step, number: usize, total: usize) -> String {
    let mut out = format!("{}{}", step_prefix(step.id), step.action.trim());
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
    /// A user message with its text.
    User(&'a str),
    /// An answer: complete (with text) or not.
    Answer(bool),
    /// Anything else (tool calls and results in between).
    Other,
}

/// Which steps of `plan` are done, by id: those whose step message is followed by a complete
/// answer before the next user message.
pub fn progress(plan: &Plan, after: &[After]) -> HashMap<i64, bool> {
    let mut done: HashMap<i64, bool> = plan.steps.iter().map(|s| (s.id, false)).collect();
    let mut current: Option<i64> = None;
    for a in after {
        match *a {
            After::User(text) => {
                current = plan
                    .steps
                    .iter()
                    .find(|s| text.starts_with(&step_prefix(s.id)))
                    .map(|s| s.id);
            }
            After::Answer(true) => {
                if let Some(id) = current.take() {
                    done.insert(id, true);
                }
            }
            After::Answer(false) | After::Other => {}
        }
    }
    done
}

/// The next step to run: the first in order not done (its dependencies come before it, so they
/// are done when it is reached in a run; a step left undone blocks the ones after it).
pub fn next_step<'a>(plan: &'a Plan, done: &HashMap<i64, bool>) -> Option<(usize, &'a Step)> {
    plan.steps
        .iter()
        .enumerate()
        .find(|(_, s)| !done.get(&s.id).copied().unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn plan(steps: Value) -> Value {
        json!({"goal": "Ship it", "steps": steps, "questions": []})
    }

    fn ids(p: &Plan) -> Vec<i64> {
        p.steps.iter().map(|s| s.id).collect()
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
            assert_eq!(ids(&order(&plan(steps.clone())).unwrap()), *want, "{steps}");
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
                order(&plan(steps.clone())),
                Err(want.to_string()),
                "{steps}"
            );
        }
        assert_eq!(
            order(&json!({"goal": "x"})),
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
        let p = order(&plan(
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
        ];
        let done = progress(&p, &after);
        assert_eq!((done[&1], done[&2], done[&3]), (true, false, false));
        let (i, next) = next_step(&p, &done).unwrap();
        assert_eq!((i, next.id), (1, 2));
        let all: HashMap<i64, bool> = [(1, true), (2, true), (3, true)].into();
        assert_eq!(next_step(&p, &all), None);
    }

    #[test]
    fn the_step_message_says_what_and_when_done() {
        let p = order(&plan(
            json!([{"id": 7, "action": " Book the hall ", "done_when": "a booking number"}]),
        ))
        .unwrap();
        assert_eq!(
            step_prompt(&p, &p.steps[0], 1, 1),
            "Plan step 7: Book the hall\nDone when: a booking number\n(Step 1 of 1 of the plan for: Ship it. Do this step only, then say what was done.)"
        );
    }
}
