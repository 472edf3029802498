use super::*;
use proptest::prelude::*;
use serde_json::json;

/// The planner's schema (prompts/agents.yaml).
fn planner() -> Value {
    json!({"type":"object","required":["goal","steps","questions"],"additionalProperties":false,
     "properties":{"goal":{"type":"string"},
       "steps":{"type":"array","items":{"type":"object","required":["id","action","done_when"],"additionalProperties":false,
          "properties":{"id":{"type":"integer","minimum":1},"action":{"type":"string"},"done_when":{"type":"string"},
                        "depends_on":{"type":"array","items":{"type":"integer"}}}}},
       "questions":{"type":"array","items":{"type":"string"}}}})
}

/// What one output should come to through a fresh [`Repairer`].
#[derive(Debug)]
enum Want {
    /// Done, valid as sent; the plan's `goal`.
    Valid(&'static str),
    /// Done after these local fixes; the plan's `goal` (it survives byte for byte).
    Local(&'static [Fix], &'static str),
    /// A retry with exactly these errors.
    Retry(&'static [&'static str]),
    /// With no model repairs allowed: failed for this reason.
    Failed(&'static str),
}

#[track_caller]
fn check(name: &str, output: &str, want: &Want) {
    let max = match want {
        Want::Failed(_) => 0,
        _ => Repairer::DEFAULT_MODEL_REPAIRS,
    };
    let step = Repairer::new(planner(), max).step(output);
    let goal = |value: &Value| value["goal"].as_str().map(str::to_owned);
    match (want, &step) {
        (
            Want::Valid(g),
            Step::Done {
                value,
                verdict: Verdict::Valid,
            },
        ) => assert_eq!(goal(value).as_deref(), Some(*g), "{name}"),
        (
            Want::Local(fixes, g),
            Step::Done {
                value,
                verdict: Verdict::RepairedLocally(got),
            },
        ) => {
            assert_eq!(got, fixes, "{name}");
            assert_eq!(goal(value).as_deref(), Some(*g), "{name}");
        }
        (Want::Retry(errors), Step::Retry { errors: got, .. }) => {
            assert_eq!(got, errors, "{name}")
        }
        (
            Want::Failed(reason),
            Step::Failed {
                verdict: Verdict::Failed { reason: got },
                ..
            },
        ) => assert_eq!(got, reason, "{name}"),
        _ => panic!("{name}: want {want:?}, got {step:?}"),
    }
}

const PLAN: &str = r#"{"goal":"Book a table for two","steps":[{"id":1,"action":"Find three restaurants near the office","done_when":"three options are listed"},{"id":2,"action":"Book the best one","done_when":"a table is booked","depends_on":[1]}],"questions":["Which evening?"]}"#;

/// Outputs that small models actually produce, and what each comes to.
const CORPUS: &[(&str, &str, Want)] = &[
    ("strict", PLAN, Want::Valid("Book a table for two")),
    (
        "pretty printed, an id written 1.0",
        "{\n  \"goal\": \"Plan a trip\",\n  \"steps\": [\n    {\"id\": 1.0, \"action\": \"Pick dates\", \"done_when\": \"dates chosen\"}\n  ],\n  \"questions\": []\n}\n",
        Want::Valid("Plan a trip"),
    ),
    (
        "a chatty preface, a fence and a closing remark",
        "Sure! Here's a plan for your request:\n\n```json\n{\"goal\": \"Book a table for two\", \"steps\": [{\"id\": 1, \"action\": \"Find restaurants\", \"done_when\": \"three listed\"}], \"questions\": []}\n```\n\nLet me know if you'd like me to adjust anything!",
        Want::Local(&[Fix::Fence, Fix::Prose], "Book a table for two"),
    ),
    (
        "a fence without a language",
        "```\n{\"goal\": \"g\", \"steps\": [], \"questions\": []}\n```",
        Want::Local(&[Fix::Fence], "g"),
    ),
    (
        "Chinese prose around the JSON",
        "好的！以下是计划：\n{\"goal\": \"预订周五晚上两人的餐桌\", \"steps\": [{\"id\": 1, \"action\": \"查找附近的餐厅\", \"done_when\": \"列出三家\"}], \"questions\": [\"几点？\"]}\n如有需要请告诉我。",
        Want::Local(&[Fix::Prose], "预订周五晚上两人的餐桌"),
    ),
    (
        "trailing commas",
        r#"{"goal": "g", "steps": [{"id": 1, "action": "a", "done_when": "d",},], "questions": [],}"#,
        Want::Local(&[Fix::TrailingComma], "g"),
    ),
    (
        "a Python dict with an apostrophe inside",
        r#"{'goal': 'Plan Bob's birthday party', 'steps': [{'id': 1, 'action': 'Ask Bob's friends', 'done_when': 'five replies'}], 'questions': []}"#,
        Want::Local(&[Fix::SingleQuotes], "Plan Bob's birthday party"),
    ),
    (
        "Python None where a list belongs",
        r#"{'goal': 'g', 'steps': [{'id': 1, 'action': 'a', 'done_when': 'd', 'depends_on': None}], 'questions': []}"#,
        Want::Retry(&["`$.steps[0].depends_on`: expected array, got null"]),
    ),
    (
        "JS comments",
        "{\n  // what the user wants\n  \"goal\": \"g\",\n  /* the plan */\n  \"steps\": [],\n  \"questions\": [] // none\n}",
        Want::Local(&[Fix::Comments], "g"),
    ),
    (
        "cut off in a string, a required property never came",
        r#"{"goal": "Book a table", "steps": [{"id": 1, "action": "Find restaurants", "done_when": "three options li"#,
        Want::Retry(&["`$`: missing required property `questions`"]),
    ),
    (
        "cut off in a fence, only the closing brackets missing",
        "```json\n{\"goal\": \"g\", \"steps\": [], \"questions\": [\"Which evening?\"",
        Want::Local(&[Fix::Fence, Fix::Unclosed], "g"),
    ),
    (
        "cut off in a key",
        r#"{"goal": "g", "steps": [], "quest"#,
        Want::Retry(&["`$`: missing required property `questions`"]),
    ),
    (
        "cut off in a number",
        r#"{"goal": "g", "questions": [], "steps": [{"id": 1, "action": "a", "done_when": "d"}, {"id": 2"#,
        Want::Retry(&[
            "`$.steps[1]`: missing required property `id`",
            "`$.steps[1]`: missing required property `action`",
            "`$.steps[1]`: missing required property `done_when`",
        ]),
    ),
    (
        "an id as a string",
        r#"{"goal": "g", "steps": [{"id": "1", "action": "a", "done_when": "d"}], "questions": []}"#,
        Want::Retry(&[r#"`$.steps[0].id`: expected integer, got string "1""#]),
    ),
    (
        "an id of 0",
        r#"{"goal": "g", "steps": [{"id": 0, "action": "a", "done_when": "d"}], "questions": []}"#,
        Want::Retry(&["`$.steps[0].id`: must be >= 1, got 0"]),
    ),
    (
        "a missing required property",
        r#"{"goal": "g", "steps": [{"id": 1, "action": "a"}], "questions": []}"#,
        Want::Retry(&["`$.steps[0]`: missing required property `done_when`"]),
    ),
    (
        "an extra property",
        r#"{"goal": "g", "steps": [], "questions": [], "notes": "I kept it short."}"#,
        Want::Retry(&["`$`: unknown property `notes` (allowed: goal, questions, steps)"]),
    ),
    (
        "questions as a string",
        r#"{"goal": "g", "steps": [], "questions": "none"}"#,
        Want::Retry(&[r#"`$.questions`: expected array, got string "none""#]),
    ),
    ("an empty reply", "", Want::Retry(&["no JSON found"])),
    ("white space only", " \n\t ", Want::Retry(&["no JSON found"])),
    (
        "prose only",
        "I'm sorry, but I can't help with planning that.",
        Want::Retry(&["no JSON found"]),
    ),
    (
        "prose with brackets but no JSON",
        "The plan [draft] is {pending}.",
        Want::Retry(&["invalid JSON: key must be a string at line 1 column 2"]),
    ),
    (
        "JSON that cannot be repaired",
        r#"{"goal" = "g", "steps": [], "questions": []}"#,
        Want::Retry(&["invalid JSON: expected `:` at line 1 column 9"]),
    ),
    (
        "two JSON objects: the first is taken",
        "{\"goal\": \"first\", \"steps\": [], \"questions\": []}\n{\"goal\": \"second\", \"steps\": [], \"questions\": []}",
        Want::Local(&[Fix::Prose], "first"),
    ),
    (
        "an array instead of an object",
        r#"[{"goal": "g", "steps": [], "questions": []}]"#,
        Want::Retry(&["`$`: expected object, got array"]),
    ),
    (
        "stringified JSON",
        r#""{\"goal\": \"g\", \"steps\": [], \"questions\": []}""#,
        Want::Retry(&[
            r#"`$`: expected object, got string "{\"goal\": \"g\", \"steps\": [], \"questions\": …""#,
        ]),
    ),
    (
        "nested fences",
        "```json\n```json\n{\"goal\": \"g\", \"steps\": [], \"questions\": []}\n```\n```",
        Want::Local(&[Fix::Fence], "g"),
    ),
    (
        "a Python fence before the JSON fence",
        "```python\nplan = {'goal': 1}\n```\nAs JSON:\n```json\n{\"goal\": \"g\", \"steps\": [], \"questions\": []}\n```",
        Want::Local(&[Fix::Fence, Fix::Prose], "g"),
    ),
    (
        "typographic quotes",
        "{“goal”: “Write the “intro” first”, “steps”: [], “questions”: [‘When?’]}",
        Want::Local(&[Fix::SmartQuotes], "Write the “intro” first"),
    ),
    (
        "unquoted keys",
        r#"{goal: "g", steps: [{id: 1, action: "a", done_when: "d"}], questions: []}"#,
        Want::Local(&[Fix::UnquotedKeys], "g"),
    ),
    (
        "a JS object literal",
        "{\n  goal: 'Ship v2', // the goal\n  steps: [{id: 1, action: 'Tag it', done_when: 'tag pushed',},],\n  questions: [],\n}",
        Want::Local(
            &[
                Fix::Comments,
                Fix::TrailingComma,
                Fix::SingleQuotes,
                Fix::UnquotedKeys,
            ],
            "Ship v2",
        ),
    ),
    (
        "a BOM, and zero-width spaces outside and inside a string",
        "\u{feff}{\"goal\": \"zero\u{200b}width\",\u{200b} \"steps\": [], \"questions\": []}",
        Want::Local(&[Fix::Invisible], "zero\u{200b}width"),
    ),
    (
        "an ideographic space between tokens",
        "{\"goal\":\u{3000}\"g\", \"steps\": [], \"questions\": []}",
        Want::Local(&[Fix::Invisible], "g"),
    ),
    (
        "HTML-escaped quotes",
        "{&quot;goal&quot;: &quot;g&quot;, &quot;steps&quot;: [], &quot;questions&quot;: []}",
        Want::Local(&[Fix::HtmlQuotes], "g"),
    ),
    (
        "missing commas between lines",
        "{\n\"goal\": \"g\"\n\"steps\": [{\"id\": 1 \"action\": \"a\" \"done_when\": \"d\"}]\n\"questions\": []\n}",
        Want::Local(&[Fix::MissingComma], "g"),
    ),
    (
        "a raw line break inside a string",
        "{\"goal\": \"Line one\nline two\", \"steps\": [], \"questions\": []}",
        Want::Local(&[Fix::ControlChars], "Line one\nline two"),
    ),
    (
        "a reasoning block with braces before the JSON",
        "<think>\nThe user wants {goal, steps}. Output JSON only.\n</think>\n{\"goal\": \"g\", \"steps\": [], \"questions\": []}",
        Want::Local(&[Fix::Prose], "g"),
    ),
    (
        "Chinese in strings, a fence and a trailing comma",
        "```json\n{\"goal\": \"整理本周的会议记录，并发给团队（含附件）🦀\", \"steps\": [{\"id\": 1, \"action\": \"汇总\", \"done_when\": \"完成\"}], \"questions\": [],}\n```",
        Want::Local(
            &[Fix::Fence, Fix::TrailingComma],
            "整理本周的会议记录，并发给团队（含附件）🦀",
        ),
    ),
    (
        "strings that look like repairs stay as they are",
        r#"{"goal": "it's // not a comment, True, None, 'x', “y”, {a: 1,}", "steps": [], "questions": [],}"#,
        Want::Local(
            &[Fix::TrailingComma],
            "it's // not a comment, True, None, 'x', “y”, {a: 1,}",
        ),
    ),
    (
        "no tries allowed: failed",
        r#"{"goal": 1, "steps": [], "questions": []}"#,
        Want::Failed("invalid: `$.goal`: expected string, got number 1"),
    ),
    (
        "no tries allowed, several errors",
        "{}",
        Want::Failed("invalid: `$`: missing required property `goal` (and 2 more)"),
    ),
    (
        "no tries allowed, no JSON",
        "Sorry!",
        Want::Failed("invalid: no JSON found"),
    ),
];

#[test]
fn the_corpus() {
    assert!(CORPUS.len() >= 25);
    for (name, output, want) in CORPUS {
        check(name, output, want);
    }
}

#[test]
fn parse_lenient_cases() {
    let cases: &[(&str, Result<Value, &str>, &[Fix])] = &[
        (r#"{"a": 1}"#, Ok(json!({"a": 1})), &[]),
        ("  [1, 2]\n", Ok(json!([1, 2])), &[]),
        ("\"just a string\"", Ok(json!("just a string")), &[]),
        ("42", Ok(json!(42)), &[]),
        (
            r#"{'a': 'say "hi"', 'b': 'it\'s'}"#,
            Ok(json!({"a": "say \"hi\"", "b": "it's"})),
            &[Fix::SingleQuotes],
        ),
        (
            "{\"a\": True, \"b\": False, \"c\": None, \"d\": undefined, \"e\": NaN, \"f\": -Infinity}",
            Ok(json!({"a": true, "b": false, "c": null, "d": null, "e": null, "f": null})),
            &[Fix::PythonLiterals],
        ),
        (
            "{\"a\": \"tab\there\"}",
            Ok(json!({"a": "tab\there"})),
            &[Fix::ControlChars],
        ),
        (
            "{\"a\": \"bell\u{7}\"}",
            Ok(json!({"a": "bell\u{7}"})),
            &[Fix::ControlChars],
        ),
        // cut off: in an escape, after a colon, after a comma, in a literal
        (r#"{"a": "x\u12"#, Ok(json!({"a": "x"})), &[Fix::Unclosed]),
        (r#"{"a": "x\"#, Ok(json!({"a": "x"})), &[Fix::Unclosed]),
        (r#"{"a": "x\\"#, Ok(json!({"a": "x\\"})), &[Fix::Unclosed]),
        (r#"{"a": 1, "b":"#, Ok(json!({"a": 1})), &[Fix::Unclosed]),
        (r#"[1, 2,"#, Ok(json!([1, 2])), &[Fix::Unclosed]),
        (r#"{"a": [true, fa"#, Ok(json!({"a": [true]})), &[Fix::Unclosed]),
        (r#"{"a": {"b": [{"#, Ok(json!({"a": {"b": [{}]}})), &[Fix::Unclosed]),
        ("[", Ok(json!([])), &[Fix::Unclosed]),
        // a stray bracket in prose before the JSON
        (
            "Use { to start: {\"a\": 1}",
            Ok(json!({"a": 1})),
            &[Fix::Prose],
        ),
        // a whole fenced block on one line
        ("```json {\"a\": 1} ```", Ok(json!({"a": 1})), &[Fix::Fence]),
        ("", Err("no JSON found"), &[]),
        ("```json\n```", Err("no JSON found"), &[]),
        (
            "{\"a\": tru}",
            Err("invalid JSON: expected ident at line 1 column 10"),
            &[],
        ),
    ];
    for (input, want, fixes) in cases {
        let got = parse_lenient(input);
        let want = want
            .clone()
            .map(|v| (v, fixes.to_vec()))
            .map_err(str::to_owned);
        assert_eq!(got, want, "{input:?}");
    }
}

#[test]
fn every_fix_has_a_label() {
    let labels: Vec<&str> = ALL_FIXES.iter().map(|f| f.label()).collect();
    assert_eq!(labels[0], "removed a markdown code fence");
    let mut unique = labels.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), ALL_FIXES.len());
}

const BAD_ID: &str =
    r#"{"goal": "g", "steps": [{"id": "1", "action": "a", "done_when": "d"}], "questions": []}"#;
const GOOD: &str = r#"{"goal": "g", "steps": [], "questions": []}"#;

#[test]
fn invalid_then_valid_is_repaired_by_the_model() {
    let mut r = Repairer::new(planner(), Repairer::DEFAULT_MODEL_REPAIRS);
    let Step::Retry { prompt, errors } = r.step(BAD_ID) else {
        panic!("want a retry");
    };
    assert_eq!(
        errors,
        [r#"`$.steps[0].id`: expected integer, got string "1""#]
    );
    assert_eq!(
        prompt,
        "Your reply does not match the required JSON Schema:\n\
         - `$.steps[0].id`: expected integer, got string \"1\"\n\
         Reply with the corrected JSON object only: no prose, no code fence."
    );
    assert_eq!(r.tries(), 1);
    // The fixed reply may itself need local repairs: it still counts as the model's repair.
    let step = r.step(&format!("```json\n{GOOD}\n```"));
    assert_eq!(
        step,
        Step::Done {
            value: json!({"goal": "g", "steps": [], "questions": []}),
            verdict: Verdict::RepairedByModel { tries: 1 },
        }
    );
}

#[test]
fn invalid_three_times_fails_after_exactly_three_outputs() {
    let mut r = Repairer::new(planner(), 2);
    assert!(matches!(r.step(BAD_ID), Step::Retry { .. }));
    let Step::Retry { prompt, .. } = r.step("not JSON at all") else {
        panic!("want a second retry");
    };
    assert_eq!(
        prompt,
        "Your reply could not be read as JSON:\n- no JSON found\n\
         Reply with the corrected JSON object only: no prose, no code fence."
    );
    let step = r.step(BAD_ID);
    assert_eq!(
        step,
        Step::Failed {
            verdict: Verdict::Failed {
                reason: "still invalid after 2 repair attempts: `$.steps[0].id`: expected integer, got string \"1\"".into()
            },
            errors: vec![r#"`$.steps[0].id`: expected integer, got string "1""#.into()],
        }
    );
    let mut once = Repairer::new(planner(), 1);
    once.step("");
    let Step::Failed {
        verdict: Verdict::Failed { reason },
        ..
    } = once.step("")
    else {
        panic!("want failed");
    };
    assert_eq!(
        reason,
        "still invalid after 1 repair attempt: no JSON found"
    );
}

#[test]
fn a_retry_prompt_quotes_at_most_ten_errors() {
    let steps: Vec<Value> = (0..15)
        .map(|i| json!({"id": i + 1, "action": "a"}))
        .collect();
    let output = json!({"goal": "g", "steps": steps, "questions": []}).to_string();
    let Step::Retry { prompt, errors } = Repairer::new(planner(), 2).step(&output) else {
        panic!("want a retry");
    };
    assert_eq!(errors.len(), 15);
    let lines: Vec<&str> = prompt.lines().collect();
    assert_eq!(lines.len(), 1 + 10 + 1 + 1, "{prompt}");
    assert_eq!(
        lines[1],
        "- `$.steps[0]`: missing required property `done_when`"
    );
    assert_eq!(
        lines[10],
        "- `$.steps[9]`: missing required property `done_when`"
    );
    assert_eq!(lines[11], "- … and 5 more");
}

#[test]
fn a_retry_prompt_names_what_the_schema_wants() {
    let array = json!({"type": "array", "items": {"type": "integer"}});
    let Step::Retry { prompt, .. } = Repairer::new(array, 1).step(r#"["1"]"#) else {
        panic!("want a retry");
    };
    assert!(prompt.ends_with("Reply with the corrected JSON array only: no prose, no code fence."));
}

#[test]
fn tool_arguments() {
    let schema = json!({"type": "object", "required": ["city"], "additionalProperties": false,
        "properties": {"city": {"type": "string", "minLength": 1},
                       "metric": {"type": "boolean"},
                       "days": {"type": "integer", "minimum": 1, "maximum": 7}}});
    let cases: &[(&str, Result<Value, &str>)] = &[
        (r#"{"city": "Paris"}"#, Ok(json!({"city": "Paris"}))),
        (
            "{'city': '上海', 'metric': True}",
            Ok(json!({"city": "上海", "metric": true})),
        ),
        (
            r#""{\"city\": \"Oslo\"}""#,
            Ok(json!({"city": "Oslo"})),
        ),
        (
            "",
            Err("invalid arguments:\n- `$`: missing required property `city`"),
        ),
        (
            r#"{"city": "", "days": 9, "units": "c"}"#,
            Err("invalid arguments:\n- `$.city`: must be at least 1 character long, got 0\n- `$.days`: must be <= 7, got 9\n- `$`: unknown property `units` (allowed: city, days, metric)"),
        ),
        ("city=Paris", Err("the arguments are not JSON: no JSON found")),
    ];
    for (arguments, want) in cases {
        assert_eq!(
            tool_args(arguments, &schema),
            want.clone().map_err(str::to_owned),
            "{arguments:?}"
        );
    }
    assert_eq!(tool_args("  ", &json!({"type": "object"})), Ok(json!({})));
}

/// Any JSON value (integers only: floats may not round-trip through text exactly).
fn json_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        "[a-z 上海🦀\"\\\\'“”‘’{}\\[\\],:/*#\n\t\u{200b}]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 32, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::btree_map("[a-z_ 键'\"]{0,5}", inner, 0..6)
                .prop_map(|m| Value::Object(m.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn parse_lenient_never_panics(text in "[{}\\[\\]\"'“”‘’:,a-zA-Z0-9 \n\\\\/*`\u{feff}\u{200b}上海&;.-]{0,80}") {
        let _ = parse_lenient(&text);
    }

    #[test]
    fn strict_json_comes_back_unchanged(value in json_value(), pretty in any::<bool>()) {
        let text = if pretty {
            serde_json::to_string_pretty(&value).unwrap_or_default()
        } else {
            value.to_string()
        };
        prop_assert_eq!(parse_lenient(&text), Ok((value, Vec::new())));
    }

    #[test]
    fn repairs_leave_strings_alone(value in json_value()) {
        // A trailing comma sends the text through the repairs: the value must come out whole.
        let text = format!("Here it is: {{\"k\": {value},}}");
        prop_assert_eq!(
            parse_lenient(&text),
            Ok((json!({"k": value}), vec![Fix::Prose, Fix::TrailingComma]))
        );
    }

    #[test]
    fn any_cut_of_json_never_panics(value in json_value(), cut in any::<prop::sample::Index>()) {
        let text = value.to_string();
        let at = cut.index(text.len() + 1);
        if let Some(prefix) = text.get(..at) {
            let _ = parse_lenient(prefix);
            let _ = Repairer::new(planner(), 1).step(prefix);
        }
    }
}

#[test]
fn verdicts_as_a_reply_records_them() {
    use crate::session::Structured;
    let failed = || Verdict::Failed {
        reason: "invalid: x".into(),
    };
    let cases = [
        (
            Verdict::Valid,
            false,
            Structured::VALID,
            "Valid JSON: matches the template's schema",
        ),
        (
            Verdict::RepairedLocally(vec![Fix::Fence, Fix::TrailingComma]),
            false,
            Structured::REPAIRED,
            "JSON repaired locally: removed a markdown code fence, removed trailing commas",
        ),
        (
            Verdict::RepairedByModel { tries: 1 },
            false,
            Structured::REPAIRED_BY_MODEL,
            "JSON repaired by the model (1 try)",
        ),
        (
            Verdict::RepairedByModel { tries: 2 },
            true,
            Structured::REPAIRED_BY_MODEL,
            "JSON repaired by the model (2 tries)",
        ),
        (
            failed(),
            false,
            Structured::FAILED,
            "Output unavailable: invalid: x",
        ),
        (
            failed(),
            true,
            Structured::FAILED,
            "Plan unavailable: invalid: x",
        ),
    ];
    for (verdict, plan, outcome, line) in cases {
        let s = verdict.structured(plan);
        assert_eq!(
            (s.outcome.as_str(), s.line.as_str()),
            (outcome, line),
            "{verdict:?}"
        );
        assert_eq!(s.original, None);
        assert_eq!(s.failed(), outcome == Structured::FAILED);
    }
}

#[test]
fn a_repair_request_carries_the_templates_messages_and_the_question() {
    use crate::session::{Message, Role};
    let m = |id: &str, role, example| {
        let mut m = Message::new(id.into(), None, role, id.into(), 0);
        m.example = example;
        m
    };
    let (sys, ex_q, ex_a) = (
        m("sys", Role::System, false),
        m("exq", Role::User, true),
        m("exa", Role::Assistant, true),
    );
    let (q1, a1, q2, a2) = (
        m("q1", Role::User, false),
        m("a1", Role::Assistant, false),
        m("q2", Role::User, false),
        m("a2", Role::Assistant, false),
    );
    let mut empty_sys = m("empty", Role::System, false);
    empty_sys.content = "  ".into();
    let mut q2_excluded = m("q2x", Role::User, false);
    q2_excluded.excluded = true;
    let ids = |path: &[&Message]| {
        repair_context(path).map(|v| v.iter().map(|m| m.id.clone()).collect::<Vec<_>>())
    };
    let cases: Vec<(Vec<&Message>, Option<Vec<&str>>)> = vec![
        (
            vec![&sys, &ex_q, &ex_a, &q1, &a1],
            Some(vec!["sys", "exq", "exa", "q1"]),
        ),
        // Later turns: the question is the last one; earlier turns stay out.
        (
            vec![&sys, &ex_q, &ex_a, &q1, &a1, &q2, &a2],
            Some(vec!["sys", "exq", "exa", "q2"]),
        ),
        (vec![&q1, &a1], Some(vec!["q1"])),
        // Never what the user excluded, nor an empty system prompt.
        (
            vec![&empty_sys, &ex_q, &ex_a, &q1, &a1, &q2_excluded, &a2],
            Some(vec!["exq", "exa", "q1"]),
        ),
        // Not a reply, or nothing it answers.
        (vec![&sys, &q1], None),
        (vec![&sys, &ex_q, &ex_a], None),
        (vec![], None),
    ];
    for (path, want) in cases {
        let want = want.map(|w| w.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(
            ids(&path),
            want,
            "{:?}",
            path.iter().map(|m| &m.id).collect::<Vec<_>>()
        );
    }
}
