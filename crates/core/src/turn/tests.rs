//! Data-driven tests of the turn machine: a script of events in, effects and the ending out.

use super::*;
use crate::session::{Message, Role, Session};

fn data(json: &str) -> String {
    format!("data: {json}\n\n")
}

fn delta(content: &str) -> String {
    data(&format!(
        r#"{{"choices":[{{"index":0,"delta":{{"content":{}}}}}]}}"#,
        serde_json::to_string(content).unwrap()
    ))
}

fn finish(reason: &str) -> String {
    data(&format!(
        r#"{{"choices":[{{"index":0,"delta":{{}},"finish_reason":"{reason}"}}]}}"#
    ))
}

const DONE: &str = "data: [DONE]\n\n";

fn bytes(s: &str) -> Event {
    Event::Bytes(s.as_bytes().to_vec())
}

/// Runs `events` (each at time 10 ms after the previous) and returns the turn and every effect.
fn run(events: Vec<Event>) -> (Turn, Vec<Effect>) {
    let (mut turn, mut effects) = Turn::new("r".into(), TurnConfig::new(60), 0);
    for (i, e) in events.into_iter().enumerate() {
        effects.extend(turn.on(e, (i as i64 + 1) * 10));
    }
    (turn, effects)
}

fn ending(effects: &[Effect]) -> &Ending {
    let endings: Vec<&Ending> = effects
        .iter()
        .filter_map(|e| match e {
            Effect::Finish(end) => Some(end),
            _ => None,
        })
        .collect();
    assert_eq!(endings.len(), 1, "exactly one ending in {effects:?}");
    endings[0]
}

/// (name, events, status, note, discard, content)
type Case = (
    &'static str,
    Vec<Event>,
    Status,
    Option<Note>,
    bool,
    &'static str,
);

#[test]
fn endings_table() {
    let cases: Vec<Case> = vec![
        (
            "a normal reply",
            vec![
                bytes(&delta("Hel")),
                bytes(&delta("lo")),
                bytes(&finish("stop")),
                bytes(DONE),
            ],
            Status::Complete,
            None,
            false,
            "Hello",
        ),
        (
            "finish reason but no [DONE]: the end of the body completes it",
            vec![bytes(&delta("Hi")), bytes(&finish("stop")), Event::End],
            Status::Complete,
            None,
            false,
            "Hi",
        ),
        (
            "a last event without its blank line is still read at the end",
            vec![
                bytes(&delta("Hi")),
                bytes(r#"data: {"choices":[{"delta":{},"finish_reason":"length"}]}"#),
                Event::End,
            ],
            Status::Complete,
            Some(Note::Truncated),
            false,
            "Hi",
        ),
        (
            "content filter",
            vec![
                bytes(&delta("x")),
                bytes(&finish("content_filter")),
                bytes(DONE),
            ],
            Status::Complete,
            Some(Note::Filtered),
            false,
            "x",
        ),
        (
            "a proper end with no visible text",
            vec![bytes(&finish("stop")), bytes(DONE)],
            Status::Complete,
            Some(Note::NoAnswer),
            false,
            "",
        ),
        (
            "the body ends without a finish reason: cut",
            vec![bytes(&delta("Par")), Event::End],
            Status::Incomplete,
            Some(Note::Failed(ApiError::Cut)),
            false,
            "Par",
        ),
        (
            "an error before any text: discarded",
            vec![Event::Failed(ApiError::Network)],
            Status::Incomplete,
            Some(Note::Failed(ApiError::Network)),
            true,
            "",
        ),
        (
            "an error inside the stream keeps the partial text",
            vec![
                bytes(&delta("Part")),
                bytes(&data(r#"{"error":{"message":"overloaded"}}"#)),
            ],
            Status::Incomplete,
            Some(Note::Failed(ApiError::InStream {
                message: "overloaded".into(),
            })),
            false,
            "Part",
        ),
        (
            "an unreadable chunk",
            vec![bytes(&delta("A")), bytes("data: {nope\n\n")],
            Status::Incomplete,
            Some(Note::Failed(ApiError::BadChunk(
                "stream chunk is not valid JSON: {nope".into(),
            ))),
            false,
            "A",
        ),
        (
            "the user stops: stopped, whatever error the abort produces",
            vec![
                bytes(&delta("Some")),
                Event::Stop,
                Event::Failed(ApiError::Cut),
            ],
            Status::Stopped,
            None,
            false,
            "Some",
        ),
        (
            "the request is aborted (chat switch): stopped",
            vec![bytes(&delta("Some")), Event::Aborted],
            Status::Stopped,
            None,
            false,
            "Some",
        ),
        (
            "stopped during a rate-limit wait: stopped, nothing sent again",
            vec![
                Event::Failed(ApiError::RateLimited {
                    retry_after: Some(1),
                    message: None,
                }),
                Event::Stop,
                Event::Waited,
            ],
            Status::Stopped,
            None,
            false,
            "",
        ),
        (
            "reasoning only, then cut: kept (reasoning is text)",
            vec![
                bytes(&data(
                    r#"{"choices":[{"delta":{"reasoning_content":"thinking"}}]}"#,
                )),
                Event::Failed(ApiError::Stalled { seconds: 60 }),
            ],
            Status::Incomplete,
            Some(Note::Failed(ApiError::Stalled { seconds: 60 })),
            false,
            "",
        ),
    ];
    for (name, events, status, note, discard, content) in cases {
        let (turn, effects) = run(events);
        let end = ending(&effects);
        assert_eq!(end.status, status, "{name}");
        assert_eq!(end.note, note, "{name}");
        assert_eq!(end.discard, discard, "{name}");
        assert_eq!(turn.content(), content, "{name}");
        assert_eq!(
            end.offer_retry, discard,
            "{name}: retry offered exactly when nothing is kept"
        );
    }
}

#[test]
fn rate_limit_retries_then_gives_up() {
    let limited = || {
        Event::Failed(ApiError::RateLimited {
            retry_after: None,
            message: None,
        })
    };
    let (mut turn, first) = Turn::new("r".into(), TurnConfig::new(60), 0);
    assert_eq!(first, vec![Effect::Request]);
    let mut waits = Vec::new();
    for _ in 0..RATE_LIMIT_RETRIES {
        match turn.on(limited(), 0).as_slice() {
            [Effect::Wait {
                seconds,
                attempt,
                of,
            }] => waits.push((*seconds, *attempt, *of)),
            other => panic!("expected a wait, got {other:?}"),
        }
        assert_eq!(turn.on(Event::Waited, 0), vec![Effect::Request]);
    }
    assert_eq!(waits, vec![(2, 1, 3), (4, 2, 3), (8, 3, 3)]);
    let last = turn.on(limited(), 0);
    let end = ending(&last);
    assert_eq!(end.status, Status::Incomplete);
    assert!(end.discard && end.offer_retry && !end.offer_settings);
    // A server's Retry-After wins over the backoff.
    let (mut t2, _) = Turn::new("r".into(), TurnConfig::new(60), 0);
    let after = t2.on(
        Event::Failed(ApiError::RateLimited {
            retry_after: Some(7),
            message: None,
        }),
        0,
    );
    assert_eq!(
        after,
        vec![Effect::Wait {
            seconds: 7,
            attempt: 1,
            of: 3
        }]
    );
}

#[test]
fn a_rate_limit_after_text_arrived_is_not_retried() {
    let (_, effects) = run(vec![
        bytes(&delta("x")),
        Event::Failed(ApiError::RateLimited {
            retry_after: None,
            message: None,
        }),
    ]);
    assert!(!effects.iter().any(|e| matches!(e, Effect::Wait { .. })));
    assert_eq!(ending(&effects).status, Status::Incomplete);
}

#[test]
fn a_stall_aborts_the_request_before_finishing() {
    let (_, effects) = run(vec![
        bytes(&delta("x")),
        Event::Failed(ApiError::Stalled { seconds: 5 }),
    ]);
    let tail: Vec<_> = effects
        .iter()
        .skip_while(|e| **e != Effect::Abort)
        .collect();
    assert_eq!(tail.len(), 2, "{effects:?}");
    assert!(matches!(tail[1], Effect::Finish(_)));
}

#[test]
fn stop_asks_for_an_abort_and_the_turn_ends_once() {
    let (mut turn, _) = Turn::new("r".into(), TurnConfig::new(60), 0);
    turn.on(bytes(&delta("a")), 1);
    assert_eq!(turn.on(Event::Stop, 2), vec![Effect::Abort]);
    let end = turn.on(Event::Aborted, 3);
    assert_eq!(ending(&end).status, Status::Stopped);
    assert!(turn.ended());
    for e in [
        bytes(&delta("late")),
        Event::End,
        Event::Failed(ApiError::Cut),
        Event::Waited,
    ] {
        assert_eq!(turn.on(e, 4), Vec::<Effect>::new(), "nothing after the end");
    }
    assert_eq!(turn.content(), "a");
}

#[test]
fn settings_are_offered_for_errors_a_setting_can_fix() {
    let cases = [
        (
            ApiError::Auth {
                status: 401,
                message: None,
            },
            true,
        ),
        (ApiError::NotFound { message: None }, true),
        (ApiError::Network, true),
        (ApiError::Redirected, true),
        (
            ApiError::Http {
                status: 400,
                message: None,
            },
            true,
        ),
        (
            ApiError::NotAStream {
                content_type: "text/html".into(),
                snippet: String::new(),
            },
            true,
        ),
        (
            ApiError::Server {
                status: 502,
                message: None,
            },
            false,
        ),
        (ApiError::Cut, false),
        (ApiError::Stalled { seconds: 1 }, false),
    ];
    for (err, want) in cases {
        let (_, effects) = run(vec![Event::Failed(err.clone())]);
        assert_eq!(ending(&effects).offer_settings, want, "{err:?}");
    }
}

#[test]
fn render_and_checkpoint_effects() {
    let (mut turn, _) = Turn::new("r".into(), TurnConfig::new(60), 0);
    // A comment (keep-alive) changes nothing: no render.
    assert_eq!(turn.on(bytes(": ping\n\n"), 10), vec![]);
    assert_eq!(turn.on(bytes(&delta("a")), 20), vec![Effect::Render]);
    // Half an event: nothing yet.
    assert_eq!(turn.on(bytes("data: {\"choices\":[{\"delta\""), 30), vec![]);
    assert_eq!(
        turn.on(bytes(":{\"content\":\"b\"}}]}\n\n"), 1000),
        vec![Effect::Render, Effect::Checkpoint]
    );
    assert_eq!(turn.on(bytes(&delta("c")), 1500), vec![Effect::Render]);
    assert_eq!(
        turn.on(bytes(&delta("d")), 2000),
        vec![Effect::Render, Effect::Checkpoint]
    );
    assert_eq!(turn.unrendered(), ("abcd", ""));
    turn.on(bytes(&delta("é")), 2001);
    assert_eq!(turn.unrendered(), ("é", ""));
    assert_eq!(turn.unrendered(), ("", ""));
}

#[test]
fn calls_without_an_id_of_their_own_get_one() {
    let (turn, _) = run(vec![
        bytes(&data(
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"name":"a","arguments":"{}"}},{"index":1,"id":"x","function":{"name":"b","arguments":"{}"}},{"index":2,"id":"x","function":{"name":"c","arguments":"{}"}}]}}]}"#,
        )),
        bytes(DONE),
    ]);
    let Command::SetReply { id, .. } = turn.snapshot() else {
        panic!("a reply")
    };
    let ids: Vec<String> = turn.tool_calls.iter().map(|c| c.id.clone()).collect();
    assert_eq!(
        ids,
        [format!("call-{id}-0"), "x".into(), format!("call-{id}-2")]
    );
}

#[test]
fn the_ending_records_text_usage_and_tool_calls_in_the_session() {
    let mut s = Session::new("s".into(), 0, None, Vec::new());
    s.apply(Command::AddUser {
        attachments: String::new(),
        id: "u".into(),
        text: "weather?".into(),
        at: 1,
    })
    .unwrap();
    s.apply(Command::StartReply {
        id: "r".into(),
        parent: "u".into(),
        model: "m".into(),
        at: 2,
    })
    .unwrap();
    let (turn, effects) = run(vec![
        bytes(&data(
            r#"{"choices":[{"delta":{"content":"Checking.","tool_calls":[{"index":0,"id":"call_1","function":{"name":"get_weather","arguments":"{\"ci"}}]}}]}"#,
        )),
        bytes(&data(
            r#"{"choices":[{"delta":{"tool_calls":[{"index":0,"function":{"arguments":"ty\":\"上海\"}"}}]}}]}"#,
        )),
        bytes(&data(
            r#"{"choices":[{"delta":{},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":12,"completion_tokens":8,"total_tokens":20}}"#,
        )),
        bytes(DONE),
    ]);
    let end = ending(&effects);
    // What the turns module hands the app (as JSON) records the same.
    let outcome = Outcome::of(&turn, end, None, None);
    let back: Outcome = serde_json::from_str(&serde_json::to_string(&outcome).unwrap()).unwrap();
    assert_eq!(
        back.commands(&"r".into(), 99),
        end.commands(&turn, None, 99)
    );
    for cmd in end.commands(&turn, None, 99) {
        s.apply(cmd).unwrap();
    }
    let m: &Message = s.get("r").unwrap();
    assert_eq!(m.role, Role::Assistant);
    assert_eq!(m.content, "Checking.");
    assert_eq!(m.status, Status::Complete);
    assert_eq!(m.finish_reason.as_deref(), Some("tool_calls"));
    assert_eq!(
        m.tool_calls,
        vec![ToolCall {
            index: 0,
            id: "call_1".into(),
            name: "get_weather".into(),
            arguments: r#"{"city":"上海"}"#.into(),
        }]
    );
    assert_eq!(
        m.usage,
        Some(Usage {
            prompt_tokens: Some(12),
            completion_tokens: Some(8),
            total_tokens: Some(20),
        })
    );
    // A reply that failed empty is removed, not kept.
    let mut s2 = s.clone();
    s2.apply(Command::StartReply {
        id: "r2".into(),
        parent: "u".into(),
        model: "m".into(),
        at: 3,
    })
    .unwrap();
    let (mut t2, _) = Turn::new("r2".into(), TurnConfig::new(60), 0);
    let effects = t2.on(Event::Failed(ApiError::Network), 5);
    for cmd in ending(&effects).commands(&t2, Some("network".into()), 5) {
        s2.apply(cmd).unwrap();
    }
    assert!(s2.get("r2").is_none());
}

/// A real stream recorded from llama-cpp-python serving SmolLM2 (see
/// `tests/fixtures/sse/record-llama.mjs`), cut inside the first `\u00e9` escape (Python's JSON
/// writer escapes non-ASCII): the turn ends complete with the reply the server generated,
/// truncated at the token limit it was asked for.
#[test]
fn a_recorded_llama_cpp_stream_gives_its_reply() {
    let bytes: &[u8] =
        include_bytes!("../../../../tests/fixtures/sse/llama-cpp-python-smollm2.sse");
    let escape = br"\u00e9";
    let cut = bytes
        .windows(escape.len())
        .position(|w| w == escape)
        .expect("an escaped é in the reply")
        + 3;
    let (turn, effects) = run(vec![
        Event::Bytes(bytes[..cut].to_vec()),
        Event::Bytes(bytes[cut..].to_vec()),
        Event::End,
    ]);
    assert_eq!(
        turn.content(),
        "Bonjour, je ne sais qua le plus. Je ne suis pas désolé à l'esp"
    );
    let end = ending(&effects);
    assert_eq!(end.status, Status::Complete);
    assert_eq!(end.finish_reason.as_deref(), Some("length"));
    assert_eq!(end.note, Some(Note::Truncated));
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// At any byte split the ending's text is every content delta joined, and there is one ending.
        #[test]
        fn any_split_gives_the_same_text(
            pieces in proptest::collection::vec("[a-z 上海🦀\"\\\\]{0,6}", 0..12),
            cuts in proptest::collection::vec(0usize..400, 0..8),
        ) {
            let mut wire = String::new();
            for p in &pieces {
                wire.push_str(&delta(p));
            }
            wire.push_str(&finish("stop"));
            wire.push_str(DONE);
            let bytes = wire.as_bytes();
            let mut at: Vec<usize> = cuts.into_iter().map(|c| c % (bytes.len() + 1)).collect();
            at.push(0);
            at.push(bytes.len());
            at.sort_unstable();
            at.dedup();
            let (mut turn, _) = Turn::new("r".into(), TurnConfig::new(60), 0);
            let mut effects = Vec::new();
            let mut shown = String::new();
            for w in at.windows(2) {
                effects.extend(turn.on(Event::Bytes(bytes[w[0]..w[1]].to_vec()), 0));
                shown.push_str(turn.unrendered().0);
            }
            effects.extend(turn.on(Event::End, 0));
            let want: String = pieces.concat();
            prop_assert_eq!(turn.content(), want.as_str());
            prop_assert_eq!(shown, want);
            prop_assert_eq!(ending(&effects).status, Status::Complete);
        }
    }
}

// What a reply cost, reckoned when it ends (crate::reply_meta).
#[test]
fn the_cost_is_reckoned_at_the_end_and_kept() {
    use crate::provider::stream::Usage;
    use crate::reply_meta::{cost_nanos, Count};
    use crate::session::Command;
    let usage = |p: Option<u64>, c: Option<u64>| {
        Some(Usage {
            prompt_tokens: p,
            completion_tokens: c,
            total_tokens: None,
        })
    };
    let price = || crate::settings::Price {
        input: 0.15,
        output: 0.6,
        currency: "USD".into(),
    };
    let set_counts = |o: &Outcome| {
        o.commands(&"r".to_string(), 0)
            .into_iter()
            .find_map(|c| match c {
                Command::SetCounts {
                    prompt,
                    reply,
                    cost,
                    ..
                } => Some((prompt, reply, cost)),
                _ => None,
            })
    };
    // A million tokens each way: 0.15 + 0.6 = 0.75 USD; the server's counts win, so Satori's
    // are not recorded.
    let mut outcome = Outcome::not_sent(None);
    outcome.usage = usage(Some(1_000_000), Some(1_000_000));
    let priced = outcome.clone().counted((5, true), Some(&price()));
    assert_eq!(
        set_counts(&priced),
        Some((None, None, Some((750_000_000, "USD".to_string()))))
    );
    // No usage: Satori's count of the request, the reply (text and reasoning) estimated, and
    // the cost from those.
    outcome.usage = None;
    outcome.content = "Hello there, this is a reply.".into();
    outcome.reasoning = "Some thinking first.".into();
    let estimate = crate::context::count::estimate;
    let written = u64::from(estimate(&outcome.content)) + u64::from(estimate(&outcome.reasoning));
    let estimated = outcome.clone().counted((2_000, false), Some(&price()));
    let want = ((2_000.0 * 0.15 + written as f64 * 0.6) * 1_000.0_f64).round() as u64;
    assert_eq!(
        set_counts(&estimated),
        Some((
            Some((2_000, false)),
            Some(written),
            Some((want, "USD".to_string()))
        ))
    );
    // No price: no cost.
    let unpriced = outcome.counted((42, true), None);
    assert_eq!(
        set_counts(&unpriced),
        Some((Some((42, true)), Some(written), None))
    );
    // Nothing received (a failed request): nothing counted, nothing priced.
    let failed = Outcome::not_sent(None).counted((42, true), Some(&price()));
    assert_eq!(set_counts(&failed), None);
    // A tiny cost is not rounded away: 12 tokens in at 0.15 per million is 1.8 millionths.
    let twelve = Count {
        tokens: 12,
        exact: true,
    };
    let none = Count {
        tokens: 0,
        exact: true,
    };
    assert_eq!(cost_nanos(&price(), twelve, none), 1_800);
}
