//! Data-driven tests per stage, and property tests of the pipeline's invariants over random
//! histories (tool-call groups, giant messages, Chinese, emoji, pins, exclusions).

use super::count::{Count, Counter, Estimator, PRIMING};
use super::*;
use crate::session::{Message, Role, Summary, ToolCall};
use proptest::prelude::*;

/// One token per character: easy arithmetic in expectations.
struct Chars;
impl Counter for Chars {
    fn count(&mut self, text: &str) -> Count {
        Count::exact(text.chars().count() as u32)
    }
}

fn msg(id: &str, role: Role, content: &str) -> Message {
    Message::new(id.into(), None, role, content.into(), 0)
}

fn call(id: &str) -> ToolCall {
    ToolCall {
        index: 0,
        id: id.into(),
        name: "f".into(),
        arguments: "{}".into(),
    }
}

fn asst_calls(id: &str, calls: &[&str]) -> Message {
    let mut m = msg(id, Role::Assistant, "");
    m.tool_calls = calls.iter().map(|c| call(c)).collect();
    m
}

fn tool(id: &str, call_id: &str, content: &str) -> Message {
    let mut m = msg(id, Role::Tool, content);
    m.tool_call_id = Some(call_id.into());
    m
}

fn cfg(window: u32) -> Config {
    Config {
        window,
        reply_reserve: 0,
        margin: 0,
        keep_recent_rounds: 2,
        min_keep_rounds: 1,
        summarize: false,
        item_cap: 1000,
        image_rounds: 1,
        images: true,
        images_exact: true,
    }
}

fn run(history: &[Message], summary: Option<&Summary>, config: &Config) -> Context {
    let refs: Vec<&Message> = history.iter().collect();
    build(&refs, summary, config, &mut Chars)
}

/// `id:fate` for every history message, and the ids sent, in order.
fn fates(h: &[Message], ctx: &Context) -> Vec<String> {
    ctx.entries
        .iter()
        .zip(h)
        .map(|(e, m)| format!("{}:{}", m.id, e.fate.as_str()))
        .collect()
}

fn sent_ids(ctx: &Context) -> Vec<String> {
    ctx.messages
        .iter()
        .map(|m| match &m.source {
            Source::History(_) => m.content.chars().take(12).collect::<String>(),
            Source::Summary => "<summary>".into(),
            Source::Repair => format!("<no result {}>", m.tool_call_id.clone().unwrap_or_default()),
            Source::Agent => "<agent>".into(),
        })
        .collect()
}

/// OpenAI's count of a chat request (the cookbook's "How to count tokens with tiktoken", for
/// gpt-4o, gpt-4 and gpt-3.5-turbo-0613): each message's content, 3 tokens per message, 1 per
/// name (a tool message's `tool_call_id` counts as one), 3 priming the reply. `Chars` counts a
/// token per character; the numbers are written out, not taken from the code's constants.
#[test]
fn counts_follow_the_openai_formula() {
    let h = [msg("s", Role::System, "abc"), msg("u", Role::User, "hello")];
    let ctx = run(&h, None, &cfg(1000));
    let tokens = |ctx: &Context| ctx.messages.iter().map(|m| m.tokens).collect::<Vec<_>>();
    // "abc" 3 + 3, "hello" 5 + 3, and 3 for the reply.
    assert_eq!(tokens(&ctx), [6, 8]);
    assert_eq!(ctx.total, 17);
    assert!(ctx.exact);
    assert_eq!(ctx.verdict, Verdict::Fits);
    assert_eq!(fates(&h, &ctx), ["s:kept", "u:kept"]);

    // A tool round: the call costs its JSON as sent, the result its content and its id plus 1.
    let h = [
        msg("u", Role::User, "hi"),
        asst_calls("a", &["c1"]),
        tool("t", "c1", "sunny"),
    ];
    let ctx = run(&h, None, &cfg(1000));
    let json = r#"{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}"#;
    assert_eq!(json.len(), 70);
    // "hi" 2 + 3; no content 0 + 3 + the call 70; "sunny" 5 + 3 + "c1" 2 + 1; 3 for the reply.
    assert_eq!(tokens(&ctx), [5, 73, 11]);
    assert_eq!(ctx.total, 92);
    assert_eq!(fates(&h, &ctx), ["u:kept", "a:kept", "t:kept"]);
}

#[test]
fn excluded_and_empty_messages_are_left_out() {
    let mut ex = msg("u1", Role::User, "secret");
    ex.excluded = true;
    let h = [
        msg("s", Role::System, "  "),
        ex,
        msg("a1", Role::Assistant, ""),
        msg("u2", Role::User, "hi"),
    ];
    let ctx = run(&h, None, &cfg(1000));
    assert_eq!(
        fates(&h, &ctx),
        ["s:empty", "u1:excluded", "a1:empty", "u2:kept"]
    );
    assert_eq!(sent_ids(&ctx), ["hi"]);
    assert_eq!(ctx.log, [Step::Excluded(1)]);
}

#[test]
fn thoughts_leave_every_turn_but_the_latest() {
    let cases: &[(&str, &str)] = &[
        ("<think>plan</think>Answer", "Answer"),
        ("Intro <think>x</think> end", "Intro  end"),
        ("<think>never closed", ""),
        ("reasoning first</think>The answer", "The answer"),
        ("no thoughts here", "no thoughts here"),
        (
            "Thought: I should add.\nAction: calc(1+1)\nObservation: 2\nThought: done\nFinal Answer: 2",
            "Action: calc(1+1)\nObservation: 2\nFinal Answer: 2",
        ),
        ("Thought: just a word, no ReAct", "Thought: just a word, no ReAct"),
    ];
    for (input, expected) in cases {
        assert_eq!(filter::strip_thoughts(input), *expected, "input: {input:?}");
    }
    let h = [
        msg("u1", Role::User, "q1"),
        msg("a1", Role::Assistant, "<think>old</think>A1"),
        msg("u2", Role::User, "q2"),
        msg("a2", Role::Assistant, "<think>new</think>A2"),
        msg("u3", Role::User, "q3"),
    ];
    let ctx = run(&h, None, &cfg(1000));
    assert_eq!(sent_ids(&ctx), ["q1", "A1", "q2", "<think>new</", "q3"]);
    assert_eq!(ctx.entries[1].fate, Fate::Stripped);
}

#[test]
fn older_tool_results_become_placeholders_and_the_latest_are_capped() {
    let big = format!("{}{}", "x".repeat(100), "y".repeat(100));
    let h = [
        msg("u1", Role::User, "q1"),
        asst_calls("a1", &["c1", "c2"]),
        tool("t1", "c1", "0123456789"),
        tool("t2", "c2", "abc"),
        msg("a1b", Role::Assistant, "done"),
        msg("u2", Role::User, "q2"),
        asst_calls("a2", &["c3"]),
        tool("t3", "c3", &big),
    ];
    let mut c = cfg(10_000);
    c.item_cap = 80;
    let ctx = run(&h, None, &c);
    assert_eq!(ctx.messages[2].content, "[tool result omitted: 10 tokens]");
    assert_eq!(ctx.messages[3].content, "[tool result omitted: 3 tokens]");
    let last = &ctx.messages[7].content;
    assert!(last.starts_with("xxx") && last.ends_with("yyy"), "{last}");
    assert!(last.contains("characters cut"), "{last}");
    assert!(last.chars().count() <= 80, "{last}");
    assert_eq!(
        fates(&h, &ctx),
        [
            "u1:kept",
            "a1:kept",
            "t1:placeholder",
            "t2:placeholder",
            "a1b:kept",
            "u2:kept",
            "a2:kept",
            "t3:cut"
        ]
    );
}

#[test]
fn an_agent_run_keeps_every_result_since_the_user_message() {
    // Three steps answering q2: the model still needs what step one found when it writes the
    // answer; the run before q2 is stale.
    let h = [
        msg("u1", Role::User, "q1"),
        asst_calls("a1", &["c1"]),
        tool("t1", "c1", "old result"),
        msg("a1b", Role::Assistant, "done"),
        msg("u2", Role::User, "q2"),
        asst_calls("a2", &["c2", "c3"]),
        tool("t2", "c2", "first step"),
        tool("t3", "c3", "also first step"),
        asst_calls("a3", &["c4"]),
        tool("t4", "c4", "second step"),
    ];
    let ctx = run(&h, None, &cfg(10_000));
    assert_eq!(
        fates(&h, &ctx),
        [
            "u1:kept",
            "a1:kept",
            "t1:placeholder",
            "a1b:kept",
            "u2:kept",
            "a2:kept",
            "t2:kept",
            "t3:kept",
            "a3:kept",
            "t4:kept"
        ]
    );
    assert_eq!(ctx.messages[6].content, "first step");
}

#[test]
fn repair_drops_orphans_and_answers_unanswered_calls() {
    let h = [
        msg("u1", Role::User, "q1"),
        tool("t0", "nobody", "orphan"),
        asst_calls("a1", &["c1", "c2"]),
        tool("t1", "c1", "r1"),
        tool("t1b", "c1", "second answer"),
        msg("u2", Role::User, "q2"),
    ];
    let ctx = run(&h, None, &cfg(10_000));
    assert_eq!(sent_ids(&ctx), ["q1", "", "r1", "<no result c2>", "q2"]);
    assert_eq!(fates(&h, &ctx)[1], "t0:dropped");
    assert_eq!(fates(&h, &ctx)[4], "t1b:dropped");
    assert!(ctx.log.contains(&Step::NoResult("c2".into())));
}

/// A reply of many tool calls whose results come last first, half of them missing: repairing it
/// takes a few steps per call, not a step per waiting call for each result.
#[test]
fn repair_reads_a_reply_of_many_calls_in_linear_steps() {
    let k = 2000;
    let ids: Vec<String> = (0..k).map(|i| format!("c{i}")).collect();
    let mut h = vec![msg("u", Role::User, "q")];
    h.push(asst_calls(
        "a",
        &ids.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    for (i, c) in ids.iter().enumerate().rev().filter(|(i, _)| i % 2 == 1) {
        h.push(tool(&format!("t{i}"), c, "r"));
    }
    let before = crate::calls::STEPS.with(std::cell::Cell::get);
    let ctx = run(&h, None, &cfg(1_000_000));
    let steps = crate::calls::STEPS.with(std::cell::Cell::get) - before;
    let placeholders = ctx
        .log
        .iter()
        .filter(|s| matches!(s, Step::NoResult(_)))
        .count();
    assert_eq!(placeholders, k / 2);
    assert_eq!(ctx.messages.len(), 2 + k);
    assert!((k..=4 * k).contains(&steps), "{steps} steps for {k} calls");
}

/// A history of `n` rounds "u{i}"/"a{i}" after a system prompt; each message 10 characters.
fn rounds(n: usize) -> Vec<Message> {
    let mut h = vec![msg("s", Role::System, "system!!!!")];
    for i in 0..n {
        h.push(msg(
            &format!("u{i}"),
            Role::User,
            &format!("question{i:02}"),
        ));
        h.push(msg(
            &format!("a{i}"),
            Role::Assistant,
            &format!("answer--{i:02}"),
        ));
    }
    h
}

#[test]
fn the_window_drops_oldest_whole_rounds_down_to_the_minimum() {
    let h = rounds(5); // 11 messages of 13 tokens + 3 priming = 146
    let ctx = run(&h, None, &cfg(146));
    assert_eq!(ctx.total, 146);
    assert!(ctx.log.is_empty());
    // Room for the system prompt and two rounds.
    let ctx = run(&h, None, &cfg(3 + 13 * 5));
    assert_eq!(
        sent_ids(&ctx),
        [
            "system!!!!",
            "question03",
            "answer--03",
            "question04",
            "answer--04"
        ]
    );
    assert_eq!(ctx.log, [Step::RoundsDropped(3, 6)]);
    // min_keep_rounds = 3: the window stops there and the hard cap cuts.
    let mut c = cfg(3 + 13 * 5);
    c.min_keep_rounds = 3;
    let ctx = run(&h, None, &c);
    assert_eq!(
        ctx.verdict,
        Verdict::TooLarge {
            need: 94,
            budget: 68
        }
    );
}

#[test]
fn a_pinned_message_survives_the_window_with_its_tool_group() {
    let mut h = rounds(3);
    h[1].pinned = true; // u0
    let mut calls = asst_calls("ac", &["c1"]);
    calls.pinned = true;
    h.insert(3, calls);
    h.insert(4, tool("tc", "c1", "result"));
    // System, the pinned u0, the pinned call group (73 + 12) and the last round.
    let ctx = run(&h, None, &cfg(3 + 13 + 13 + 73 + 12 + 26));
    assert_eq!(ctx.verdict, Verdict::Fits);
    let ids = sent_ids(&ctx);
    assert!(ids.contains(&"question00".to_string()), "{ids:?}");
    assert!(ids.contains(&"result".to_string()), "{ids:?}");
    assert!(!ids.contains(&"answer--00".to_string()), "{ids:?}");
}

#[test]
fn pins_alone_over_budget_are_refused_not_dropped() {
    let mut h = rounds(2);
    h[1].content = "p".repeat(200);
    h[1].pinned = true;
    let ctx = run(&h, None, &cfg(100));
    assert!(matches!(
        ctx.verdict,
        Verdict::PinsOverBudget { budget: 100, .. }
    ));
}

#[test]
fn one_giant_message_is_cut_head_and_tail() {
    let mut h = rounds(1);
    h[1].content = format!("START{}END", "m".repeat(5000));
    let ctx = run(&h, None, &cfg(400));
    assert_eq!(ctx.verdict, Verdict::Fits);
    assert!(ctx.total <= 400);
    let cut = &ctx.messages[1].content;
    assert!(cut.starts_with("START") && cut.ends_with("END") && cut.contains("characters cut"));
    assert_eq!(ctx.entries[1].fate, Fate::Cut);
}

#[test]
fn nothing_fits_a_tiny_window() {
    let h = rounds(1);
    let ctx = run(&h, None, &cfg(10));
    assert!(matches!(ctx.verdict, Verdict::TooLarge { .. }));
    assert_eq!(ctx.log.last(), Some(&Step::Refused));
}

fn summary(through: &str, text: &str) -> Summary {
    Summary {
        id: "sum".into(),
        through: through.into(),
        covers: 0,
        text: text.into(),
        restored: Vec::new(),
        model: String::new(),
        edited: false,
        created_at: 0,
    }
}

#[test]
fn a_stored_summary_replaces_what_it_covers_right_after_the_system_prompt() {
    let h = rounds(4);
    let s = summary("a1", "They met.");
    let mut c = cfg(10_000);
    c.summarize = true;
    let ctx = run(&h, Some(&s), &c);
    assert_eq!(
        sent_ids(&ctx),
        [
            "system!!!!",
            "<summary>",
            "question02",
            "answer--02",
            "question03",
            "answer--03"
        ]
    );
    assert_eq!(ctx.messages[1].role, Role::System);
    assert!(ctx.messages[1].content.ends_with("They met."));
    assert_eq!(
        fates(&h, &ctx)[1..5],
        [
            "u0:summarized",
            "a0:summarized",
            "u1:summarized",
            "a1:summarized"
        ]
    );
    // Switched off: the summary is not used.
    let ctx = run(&h, Some(&s), &cfg(10_000));
    assert_eq!(ctx.messages.len(), 9);
}

#[test]
fn a_summary_is_planned_only_when_over_budget_and_enough_rounds_aged_out() {
    let h = rounds(5);
    let mut c = cfg(3 + 13 * 5);
    c.summarize = true;
    c.keep_recent_rounds = 2;
    let ctx = run(&h, None, &c);
    let job = ctx.summary_job.expect("a job");
    assert_eq!(job.through, "a2");
    assert_eq!(job.rounds, 3);
    assert_eq!(job.covers, 6);
    let refs: Vec<&Message> = h.iter().collect();
    assert_eq!(job.turns(&refs).len(), 6);
    assert!(job.previous.is_none());
    // Within budget: no job.
    let mut big = c;
    big.window = 10_000;
    assert!(run(&h, None, &big).summary_job.is_none());
    // With a summary through a2, one more round aged out is enough (keep 2 → half is 1).
    let s = summary("a1", "Earlier.");
    let mut tight = c;
    tight.window = 3 + 13 + 40 + 13 * 4;
    let ctx = run(&h, Some(&s), &tight);
    let job = ctx.summary_job.expect("an extension");
    assert_eq!(job.through, "a2");
    assert_eq!(job.previous.as_deref(), Some("Earlier."));
    assert_eq!(job.turns(&refs).len(), 2);
    // keep 4 → an extension needs 2 rounds to age out; only 1 has.
    let mut keep4 = tight;
    keep4.keep_recent_rounds = 4;
    keep4.window = 10;
    let h6 = rounds(6);
    let s = summary("a0", "Earlier.");
    let ctx = run(&h6, Some(&s), &keep4);
    assert!(ctx.summary_job.is_none());
}

#[test]
fn the_transcript_labels_turns() {
    let turns = vec![(Role::User, "Hi".into()), (Role::Assistant, "Hello".into())];
    assert_eq!(
        summary::transcript(Some("Old."), &turns),
        "Summary so far:\nOld.\n\nConversation since then:\nUser: Hi\n\nAssistant: Hello"
    );
}

/// Every text of the token corpus (`tests/fixtures/tokens/`: prose in many scripts, code, numbers,
/// base64, emoji sequences, whitespace and punctuation runs), estimated at no less than its exact
/// count in both OpenAI encodings, and not wastefully more (the worst offenders are named when
/// one falls short); then a few estimates written out, and the ratio learned from `usage`.
#[test]
fn the_estimator_is_on_the_high_side() {
    #[derive(serde::Deserialize)]
    struct Case {
        encoding: String,
        text: String,
        count: u32,
        ids: Vec<u32>,
    }
    #[derive(serde::Deserialize)]
    struct Corpus {
        cases: Vec<Case>,
    }
    let corpus: Corpus =
        serde_json::from_str(include_str!("../../../../tests/fixtures/tokens/cases.json")).unwrap();
    let mut low = Vec::new();
    let mut ratios = Vec::new();
    let mut texts = 0;
    for encoding in ["o200k_base", "cl100k_base"] {
        let cases: Vec<&Case> = corpus
            .cases
            .iter()
            .filter(|c| c.encoding == encoding)
            .collect();
        assert!(cases.len() >= 200, "{encoding}: {} texts", cases.len());
        texts += cases.len();
        for case in cases {
            assert_eq!(case.count as usize, case.ids.len(), "{:?}", case.text);
            let estimate = count::estimate(&case.text);
            if estimate < case.count {
                low.push((
                    case.count - estimate,
                    estimate,
                    case.count,
                    encoding,
                    &case.text,
                ));
            }
            if case.count > 0 {
                ratios.push(f64::from(estimate) / f64::from(case.count));
            }
        }
    }
    low.sort_by_key(|l| std::cmp::Reverse(l.0));
    let worst: Vec<String> = low
        .iter()
        .take(15)
        .map(|(_, estimate, exact, encoding, text)| {
            let short: String = text.chars().take(60).collect();
            format!(
                "{estimate} < {exact} ({encoding}, {} chars): {short:?}",
                text.chars().count()
            )
        })
        .collect();
    assert!(
        low.is_empty(),
        "{} of {} texts estimated below their exact count; the worst:\n{}",
        low.len(),
        texts,
        worst.join("\n")
    );
    let mean = ratios.iter().sum::<f64>() / ratios.len() as f64;
    let max = ratios.iter().copied().fold(0.0, f64::max);
    eprintln!("estimate / exact: mean {mean:.3}, max {max:.2}");
    assert!(
        mean <= 1.6,
        "the estimates are {mean:.3} times the exact counts on average"
    );
    assert!(max <= 8.0, "an estimate is {max:.2} times its exact count");
    let cases: &[(&str, u32)] = &[
        ("", 0),
        ("hello", 2),
        ("hello world", 4),
        ("你好", 3),
        ("a, b.", 4),
        ("🦀", 3),
        (" ", 1),
        ("12345", 2),
    ];
    for (text, expected) in cases {
        assert_eq!(count::estimate(text), *expected, "{text:?}");
    }
    let mut e = Estimator { ratio: 2.0 };
    assert_eq!(e.count("hello").tokens, 4);
    assert!((count::corrected_ratio(1.0, 100, 150) - 1.25).abs() < 1e-9);
    assert_eq!(count::corrected_ratio(1.0, 100, 10_000), 3.0);
    assert_eq!(count::corrected_ratio(1.0, 0, 10), 1.0);
}

#[test]
fn the_cache_counts_each_text_once() {
    struct Tally(u32);
    impl Counter for Tally {
        fn count(&mut self, text: &str) -> Count {
            self.0 += 1;
            Count::exact(text.len() as u32)
        }
    }
    let mut c = count::Cached::new(Tally(0));
    for _ in 0..3 {
        c.count("a");
        c.count("bb");
    }
    assert_eq!(c.inner_mut().0, 2);
    assert_eq!(c.len(), 2);
}

// ---------------------------------------------------------------- properties

#[derive(Debug, Clone)]
enum Turn {
    User(String, bool),
    Assistant(String, bool),
    Calls(Vec<(String, bool)>, bool),
    Orphan(String),
}

fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => "[a-z ]{0,40}",
        2 => "[\u{4e00}-\u{4e80}，。]{0,30}",
        1 => "[😀-🙏 a-z]{0,20}",
        1 => "<think>[a-z ]{0,20}</think>[a-z ]{1,20}",
        1 => "[a-z]{0,5}".prop_map(|s| s.repeat(400)),
    ]
}

fn turn() -> impl Strategy<Value = Turn> {
    prop_oneof![
        3 => (text(), any::<bool>()).prop_map(|(t, p)| Turn::User(t, p)),
        3 => (text(), any::<bool>()).prop_map(|(t, p)| Turn::Assistant(t, p)),
        2 => (prop::collection::vec((text(), any::<bool>()), 1..4), any::<bool>())
            .prop_map(|(c, p)| Turn::Calls(c, p)),
        1 => text().prop_map(Turn::Orphan),
    ]
}

fn history(turns: &[Turn], system: &str, excluded: &[bool]) -> Vec<Message> {
    let mut h = vec![msg("sys", Role::System, system)];
    let mut n = 0;
    let mut next = |h: &mut Vec<Message>, mut m: Message| {
        m.id = format!("m{n}");
        m.excluded = excluded.get(n).copied().unwrap_or(false);
        n += 1;
        h.push(m);
    };
    for t in turns {
        match t {
            Turn::User(s, p) => {
                let mut m = msg("", Role::User, if s.is_empty() { "?" } else { s });
                m.pinned = *p;
                next(&mut h, m);
            }
            Turn::Assistant(s, p) => {
                let mut m = msg("", Role::Assistant, s);
                m.pinned = *p;
                next(&mut h, m);
            }
            Turn::Calls(results, p) => {
                let ids: Vec<String> = (0..results.len())
                    .map(|k| format!("c{}_{k}", h.len()))
                    .collect();
                let mut a = msg("", Role::Assistant, "");
                a.tool_calls = ids.iter().map(|i| call(i)).collect();
                a.pinned = *p;
                next(&mut h, a);
                for (id, (r, answered)) in ids.iter().zip(results) {
                    if *answered {
                        next(&mut h, tool("", id, r));
                    }
                }
            }
            Turn::Orphan(s) => next(&mut h, tool("", "ghost", s)),
        }
    }
    h
}

fn check_invariants(h: &[Message], ctx: &Context, config: &Config) -> Result<(), TestCaseError> {
    // The total is what the messages add up to.
    let sum: u32 = ctx.messages.iter().map(|m| m.tokens).sum::<u32>() + PRIMING;
    prop_assert_eq!(ctx.total, sum);
    // Never over budget unless refused.
    if ctx.verdict == Verdict::Fits {
        prop_assert!(
            ctx.total <= config.budget(),
            "{} > {}",
            ctx.total,
            config.budget()
        );
    }
    // The system prompt first (when it is sent at all).
    if let Some(p) = ctx
        .messages
        .iter()
        .position(|m| m.source == Source::History(0))
    {
        prop_assert_eq!(p, 0);
    }
    // Order kept.
    let order: Vec<usize> = ctx
        .messages
        .iter()
        .filter_map(|m| match m.source {
            Source::History(i) => Some(i),
            _ => None,
        })
        .collect();
    prop_assert!(order.windows(2).all(|w| w[0] < w[1]), "order {:?}", order);
    // Tool protocol: each tool message answers a call of the assistant message right before its
    // group, each call is answered exactly once, the body never starts with a tool message.
    let mut open: Vec<String> = Vec::new();
    let mut prev: Option<Role> = None;
    for m in &ctx.messages {
        if m.role == Role::Tool {
            prop_assert!(
                prev.is_some() && prev != Some(Role::System),
                "tool message first"
            );
            let id = m.tool_call_id.clone().unwrap_or_default();
            let p = open.iter().position(|o| *o == id);
            prop_assert!(p.is_some(), "orphan tool message {}", id);
            open.remove(p.unwrap_or(0));
        } else {
            prop_assert!(open.is_empty(), "calls without results: {:?}", open);
            if m.role == Role::Assistant {
                open = m.tool_calls.iter().map(|c| c.id.clone()).collect();
            }
        }
        prev = Some(m.role);
    }
    prop_assert!(
        open.is_empty(),
        "calls without results at the end: {:?}",
        open
    );
    // Excluded messages are never sent; pinned ones always are (unless refused).
    for (i, m) in h.iter().enumerate() {
        let sent = ctx.messages.iter().any(|s| s.source == Source::History(i));
        if m.excluded {
            prop_assert!(!sent);
        }
        if m.pinned
            && !m.excluded
            && ctx.verdict == Verdict::Fits
            && ctx.entries[i].fate != Fate::Empty
        {
            prop_assert!(sent, "pinned {} not sent", m.id);
        }
        prop_assert_eq!(
            ctx.entries[i].fate.sent(),
            sent,
            "fate of {}: {:?}",
            m.id,
            ctx.entries[i].fate
        );
    }
    // Repair adds a result only for a call that has none: never more than the calls left
    // unanswered or whose answer was excluded.
    let unanswered = h
        .iter()
        .flat_map(|m| m.tool_calls.iter())
        .filter(|c| {
            !h.iter()
                .any(|t| t.tool_call_id.as_deref() == Some(c.id.as_str()) && !t.excluded)
        })
        .count();
    let repaired = ctx
        .messages
        .iter()
        .filter(|m| m.source == Source::Repair)
        .count();
    prop_assert!(
        repaired <= unanswered,
        "{} results made up, {} calls unanswered",
        repaired,
        unanswered
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn invariants_hold_for_random_histories(
        turns in prop::collection::vec(turn(), 0..30),
        system in text(),
        excluded in prop::collection::vec(prop::bool::weighted(0.1), 0..80),
        window in 20u32..4000,
        reserve in 0u32..500,
        keep in 0u32..5,
        min_keep in 0u32..4,
        cap in 8u32..400,
        summarize in any::<bool>(),
        through in 0usize..40,
    ) {
        let h = history(&turns, &system, &excluded);
        let before = h.clone();
        let config = Config {
            window,
            reply_reserve: reserve,
            margin: 0,
            keep_recent_rounds: keep,
            min_keep_rounds: min_keep,
            summarize,
            item_cap: cap,
            image_rounds: 1,
            images: true,
            images_exact: false,
        };
        let s = summary(&h[through.min(h.len() - 1)].id, "A summary.");
        let refs: Vec<&Message> = h.iter().collect();
        let ctx = build(&refs, Some(&s), &config, &mut Estimator::default());
        prop_assert_eq!(&h, &before);
        check_invariants(&h, &ctx, &config)?;
        let ctx = build(&refs, None, &config, &mut Chars);
        check_invariants(&h, &ctx, &config)?;
    }
}

#[test]
fn the_round_being_answered_is_always_kept_and_never_summarized() {
    let mut h = rounds(3);
    h.push(msg("q", Role::User, "the question"));
    let mut c = cfg(3 + 13 + 5);
    c.min_keep_rounds = 0;
    c.keep_recent_rounds = 0;
    c.summarize = true;
    let ctx = run(&h, None, &c);
    assert_eq!(
        sent_ids(&ctx).last().map(String::as_str),
        Some("the question")
    );
    let job = ctx.summary_job.expect("a job");
    assert_eq!(job.through, "a2", "the question is not summarized");
}

/// Compares what two builds send and decide.
fn same_request(a: &Context, b: &Context) -> Result<(), TestCaseError> {
    prop_assert_eq!(&a.messages, &b.messages);
    prop_assert_eq!(a.total, b.total);
    prop_assert_eq!(a.verdict, b.verdict);
    prop_assert_eq!(a.exact, b.exact);
    prop_assert_eq!(
        a.summary_job
            .as_ref()
            .map(|j| (&j.through, j.covers, &j.range)),
        b.summary_job
            .as_ref()
            .map(|j| (&j.through, j.covers, &j.range))
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    /// The app sends the turns module a long chat's old turns without their text
    /// (`ask::elide`); a build that then needs none of it must send exactly what a build over the
    /// whole history sends, and one that does need it must say so (`ask::read_from`).
    #[test]
    fn eliding_old_text_never_changes_a_request(
        turns in prop::collection::vec(turn(), 0..30),
        system in text(),
        excluded in prop::collection::vec(prop::bool::weighted(0.1), 0..80),
        window in 20u32..4000,
        keep in 0u32..5,
        min_keep in 0u32..4,
        summarize in any::<bool>(),
        with_summary in any::<bool>(),
        through in 0usize..40,
        elided in 0usize..80,
        estimated in any::<bool>(),
    ) {
        let h = history(&turns, &system, &excluded);
        let config = Config {
            window,
            reply_reserve: 10,
            margin: 0,
            keep_recent_rounds: keep,
            min_keep_rounds: min_keep,
            summarize,
            item_cap: 60,
            image_rounds: 1,
            images: true,
            images_exact: false,
        };
        let s = summary(&h[through.min(h.len() - 1)].id, "A summary.");
        let s = with_summary.then_some(&s);
        let cut = s.map(|s| s.through.as_str());
        let lean_h = ask::elide(&h, elided, cut);
        let refs: Vec<&Message> = h.iter().collect();
        let lean_refs: Vec<&Message> = lean_h.iter().collect();
        let (full, lean) = if estimated {
            (
                build_lean(&refs, s, &config, &mut Estimator::default()),
                build_lean(&lean_refs, s, &config, &mut Estimator::default()),
            )
        } else {
            (build_lean(&refs, s, &config, &mut Chars), build_lean(&lean_refs, s, &config, &mut Chars))
        };
        let needs = ask::read_from(&lean, &lean_h, cut, true).is_some_and(|i| i < elided);
        if !needs {
            same_request(&full, &lean)?;
            // The summarizer would read the same turns.
            prop_assert_eq!(
                full.summary_job.as_ref().map(|j| j.turns(&refs)),
                lean.summary_job.as_ref().map(|j| j.turns(&lean_refs))
            );
        }
        // Nothing elided: nothing can be needed.
        if elided == 0 {
            prop_assert!(!needs);
        }
    }
}

#[test]
fn an_elided_history_keeps_what_the_scan_reads_and_drops_the_text() {
    let mut h = vec![msg("sys", Role::System, "system")];
    h.push(msg("u1", Role::User, "order 1234"));
    h.push(asst_calls("a1", &["c1"]));
    h.push(tool("t1", "c1", "result"));
    let mut pinned = msg("u2", Role::User, "pinned text");
    pinned.pinned = true;
    h.push(pinned);
    h.push(msg("a2", Role::Assistant, ""));
    h.push(msg("u3", Role::User, "newest"));
    let lean = ask::elide(&h, 6, Some("t1"));
    let texts: Vec<&str> = lean.iter().map(|m| m.content.as_str()).collect();
    // The system prompt, the pinned message and the summary's last message stay whole; an empty
    // text stays empty; messages from `elided` on are untouched.
    assert_eq!(
        texts,
        [
            "system",
            ask::ELIDED,
            "",
            "result",
            "pinned text",
            "",
            "newest"
        ]
    );
    assert_eq!(lean[2].tool_calls[0].id, "c1");
    assert_eq!(lean[2].tool_calls[0].arguments, "");
    assert_eq!(
        lean.iter().map(|m| &m.id).collect::<Vec<_>>(),
        h.iter().map(|m| &m.id).collect::<Vec<_>>()
    );
}

/// Texts whose stub counts more than they do (a reply that is only thoughts, a message of
/// spaces): eliding them must not change what is sent.
#[test]
fn eliding_a_text_that_counts_less_than_its_stub_changes_nothing() {
    for (filler, estimated) in [("<think>long plan</think>", false), ("   ", true)] {
        let mut h = vec![msg("S", Role::System, "sys")];
        h.push(msg("q1", Role::User, "q"));
        h.push(msg("a1", Role::Assistant, filler));
        h.push(msg("q2", Role::User, "q"));
        h.push(msg("a2", Role::Assistant, "answer"));
        h.push(msg("q3", Role::User, "q"));
        let mut c = cfg(0);
        c.min_keep_rounds = 1;
        c.keep_recent_rounds = 0;
        let refs: Vec<&Message> = h.iter().collect();
        for window in 1..60 {
            c.window = window;
            let lean_h = ask::elide(&h, 3, None);
            let lean_refs: Vec<&Message> = lean_h.iter().collect();
            let (full, lean) = if estimated {
                (
                    build_lean(&refs, None, &c, &mut Estimator::default()),
                    build_lean(&lean_refs, None, &c, &mut Estimator::default()),
                )
            } else {
                (
                    build_lean(&refs, None, &c, &mut Chars),
                    build_lean(&lean_refs, None, &c, &mut Chars),
                )
            };
            let needs = ask::read_from(&lean, &lean_h, None, true).is_some_and(|i| i < 3);
            if !needs {
                assert_eq!(full.messages, lean.messages, "{filler:?} window {window}");
            }
        }
    }
}

#[test]
fn structured_output_is_asked_for_by_the_templates_name() {
    use crate::context::ask::{format_of, response_format, OutputFormat};
    let schema = serde_json::json!({"type": "object"});
    let cases = [
        ("planner", "planner"),
        ("my template: v2!", "mytemplatev2"),
        ("计划", "output"),
        (&"x".repeat(80)[..], &"x".repeat(64)[..]),
    ];
    for (name, want) in cases {
        let wire = response_format(name, &schema);
        assert_eq!(wire["type"], "json_schema");
        assert_eq!(wire["json_schema"]["name"], want, "{name}");
        assert_eq!(wire["json_schema"]["schema"], schema);
    }
    let format = |schema: &str| OutputFormat {
        name: "t".into(),
        schema: schema.into(),
    };
    assert!(format("{\"type\": \"object\"}").wire().is_some());
    assert_eq!(format("not json").wire(), None);
    // A chat's format is its template's schema, if it kept one.
    let mut s = crate::session::Session::new("s".into(), 0, None, Vec::new());
    assert_eq!(format_of(&s), None);
    s.prompt = Some(crate::session::PromptOrigin {
        source: crate::session::PromptSource::User,
        key: "extract".into(),
        version: 1,
        vars: Default::default(),
        system_edited: false,
        output_schema: Some("{}".into()),
    });
    assert_eq!(
        format_of(&s),
        Some(OutputFormat {
            name: "extract".into(),
            schema: "{}".into()
        })
    );
}

#[test]
fn verdicts_travel_as_written() {
    use super::Verdict;
    for v in [
        Verdict::Fits,
        Verdict::PinsOverBudget {
            pinned: 5000,
            budget: 4000,
        },
        Verdict::TooLarge {
            need: 9000,
            budget: 4000,
        },
    ] {
        let text = serde_json::to_string(&v).unwrap();
        assert_eq!(serde_json::from_str::<Verdict>(&text).unwrap(), v, "{text}");
    }
    assert_eq!(
        serde_json::to_string(&Verdict::Fits).unwrap(),
        "{\"budget\":0}"
    );
}

fn with_image(id: &str, text: &str, name: &str, w: u32, h: u32) -> Message {
    let mut m = msg(id, Role::User, text);
    m.attachments = String::from(crate::attachment::Attachment {
        name: name.into(),
        kind: crate::attachment::Kind::Image,
        mime: "image/png".into(),
        bytes: 10,
        hash: format!("{:0>64}", id.trim_start_matches(char::is_alphabetic)),
        width: w,
        height: h,
        pages: 0,
        text: None,
    });
    m
}

/// Images are sent with the last `image_rounds` rounds (always the latest question's) and cost
/// the tile formula; older ones become a placeholder line in their question's text; a model
/// that does not see images gets only the latest question's (which the turns module refuses).
#[test]
fn images_are_kept_for_the_last_rounds_and_counted() {
    let h = [
        with_image("u1", "first", "old.png", 4000, 3000),
        msg("a1", Role::Assistant, "ok"),
        with_image("u2", "", "mid.png", 512, 512),
        msg("a2", Role::Assistant, "ok"),
        with_image("u3", "now", "new.jpg", 1024, 1024),
    ];
    let config = Config {
        image_rounds: 2,
        ..cfg(100_000)
    };
    let ctx = run(&h, None, &config);
    let imgs: Vec<(usize, &str)> = ctx
        .messages
        .iter()
        .map(|m| (m.images.len(), m.content.as_str()))
        .collect();
    assert_eq!(
        imgs,
        [
            (0, "first\n[image omitted: old.png]"),
            (0, "ok"),
            (1, ""),
            (0, "ok"),
            (1, "now"),
        ]
    );
    let tokens: Vec<u32> = ctx.messages.iter().map(|m| m.tokens).collect();
    // "first\n[image omitted: old.png]": 30 characters.
    assert_eq!(tokens, [30 + 3, 2 + 3, 255 + 3, 2 + 3, 765 + 3 + 3]);
    assert!(ctx.exact);
    assert!(ctx.log.contains(&Step::ImagesOmitted("u1".into(), 1)));
    // The inspector's count of each message as stored has its images.
    assert_eq!(ctx.entries[0].tokens, 5 + 3 + 765);

    // Estimated for a model whose formula is not OpenAI's.
    let ctx = run(
        &h,
        None,
        &Config {
            images_exact: false,
            ..config
        },
    );
    assert!(!ctx.exact);

    // A model that does not see images: only the latest question keeps its image.
    let ctx = run(
        &h,
        None,
        &Config {
            images: false,
            ..config
        },
    );
    let imgs: Vec<usize> = ctx.messages.iter().map(|m| m.images.len()).collect();
    assert_eq!(imgs, [0, 0, 0, 0, 1]);
    assert_eq!(ctx.messages[2].content, "[image omitted: mid.png]");
}
