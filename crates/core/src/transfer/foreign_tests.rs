//! Other apps' exports read as they really are (files in `tests/fixtures/import/`, written from
//! the published shapes of each format): every chat rendered as text — each message with its
//! parent, role, status, model, time, tool calls or the call it answers, and content — with the
//! skipped conversations and the reports, compared whole.

use super::import::{read, Incoming};
use super::time::iso;
use std::fmt::Write;

fn render(incoming: &Incoming) -> String {
    let mut out = String::new();
    for s in &incoming.chats {
        let _ = writeln!(
            out,
            "chat {} {:?} {} .. {} leaf={}",
            s.id,
            s.title,
            iso(s.created_at),
            iso(s.updated_at),
            s.leaf.as_deref().unwrap_or("-")
        );
        for m in &s.messages {
            let _ = write!(
                out,
                "  {} <- {} {} {} {}",
                m.id,
                m.parent.as_deref().unwrap_or("-"),
                m.role.as_str(),
                m.status.as_str(),
                &iso(m.created_at)[11..19],
            );
            if let Some(model) = &m.model {
                let _ = write!(out, " model={model}");
            }
            for c in &m.tool_calls {
                let _ = write!(out, " call={}:{}({})", c.id, c.name, c.arguments);
            }
            if let Some(id) = &m.tool_call_id {
                let _ = write!(out, " answers={id}");
            }
            if !m.reasoning.is_empty() {
                let _ = write!(out, " thinking={:?}", m.reasoning);
            }
            if let Some(note) = &m.note {
                let _ = write!(out, " note={note:?}");
            }
            let _ = writeln!(out, " {:?}", m.content);
        }
    }
    for s in &incoming.skipped {
        let _ = writeln!(out, "skipped {:?}: {}", s.name, s.reason);
    }
    for r in &incoming.reports {
        let _ = writeln!(
            out,
            "report {}: {}",
            r.chat,
            r.sentence().unwrap_or_default()
        );
    }
    out
}

/// The fixtures, compiled in (the core reads no files, even in tests).
fn fixture(name: &str) -> &'static str {
    macro_rules! files {
        ($($f:literal),*) => {
            match name {
                $($f => include_str!(concat!("../../../../tests/fixtures/import/", $f)),)*
                other => panic!("no fixture {other}"),
            }
        };
    }
    files!(
        "chatgpt-tools-citations.json",
        "claude-conversations.json",
        "openwebui-export.json",
        "librechat-tree.json",
        "librechat-flat.json",
        "chatgpt-no-mapping.json",
        "chatgpt-no-id.json",
        "chatgpt-cycle.json",
        "chatgpt-not-object.json"
    )
}

fn check(file: &str, want: &str) {
    let got = render(&read(fixture(file)).unwrap_or_else(|e| panic!("{file}: {e}")));
    let want = want
        .lines()
        .map(str::trim_start)
        .filter(|l| !l.is_empty())
        .map(|l| {
            if l.starts_with("chat ") || l.starts_with("skipped ") || l.starts_with("report ") {
                format!("{l}\n")
            } else {
                format!("  {l}\n")
            }
        })
        .collect::<String>();
    assert_eq!(got, want, "{file}:\n{got}");
}

/// ChatGPT's browsing steps are tool rounds (two outputs of one call are one result), citation
/// markers are numbered links by their character offsets (Chinese text and an emoji before
/// them), a marker without a citation goes, images and files are named, hidden nodes and the
/// custom instructions are left out, the interrupted reply is incomplete and the chat opens at
/// it; a broken entry and an untitled one are skipped by name, the rest come in; a chat whose
/// `current_node` is not in its mapping opens at its newest leaf, and the newer
/// `\u{e200}cite…` markers are linked from `content_references`.
#[test]
fn chatgpt_as_it_really_is() {
    check(
        "chatgpt-tools-citations.json",
        r##"
        chat chatgpt-cg-0001 "东京天气 Tokyo weather" 2025-12-01T09:30:00.500Z .. 2025-12-01T09:30:10.500Z leaf=a2
        u1 <- - user complete 09:30:01 "东京明天天气怎么样？"
        c1 <- u1 assistant complete 09:30:02 model=gpt-4o call=call_c1:browser({"code":"search(\"东京 明天 天气\")"}) ""
        t1 <- c1 tool complete 09:30:03 answers=call_c1 "# 【0†Tokyo forecast†weather.example】\nCloudy, 12°C."
        c2 <- t1 assistant complete 09:30:04 model=gpt-4o call=call_c2:browser({"code":"mclick([0, 3, 7])"}) ""
        t2 <- c2 tool complete 09:30:05 answers=call_c2 "Tokyo forecast 东京天气\nhttps://weather.example/tokyo\n\nTomorrow: cloudy, high 12°C.\n\nRain\nhttps://news.example/rain (weekend)\n\nRain expected on the weekend."
        a1 <- t2 assistant complete 09:30:07 model=gpt-4o "东京明天多云，最高气温12°C[1](https://weather.example/tokyo)。周末有雨🌧\u{fe0f}[2](https://news.example/rain%20%28weekend%29)，请带伞[1](https://weather.example/tokyo)。"
        u2 <- a1 user complete 09:30:08 "[image: receipt.png]\n\n这张收据呢？\n\n[file: invoice 2025.pdf]"
        a2 <- u2 assistant incomplete 09:30:09 model=gpt-4o "收据上的金额是"
        a3 <- u2 assistant complete 09:30:10 model=gpt-4o-mini "The receipt shows ¥1,280."
        chat chatgpt-cg-0003 "Lost current node" 2025-12-01T09:31:40.000Z .. 2025-12-01T09:31:44.000Z leaf=new
        q <- - user complete 09:31:40 "Weather?"
        old <- q assistant complete 09:31:42 model=gpt-4o "Sunny[1](https://weather.example/today) and warm."
        new <- q assistant incomplete 09:31:43 model=gpt-4o "Sunny."
        skipped "Broken one": mapping: missing, or not an object
        skipped "untitled chat #4": mapping: missing, or not an object
        report chatgpt-cg-0001: "东京天气 Tokyo weather": 2 tool calls and 2 results kept as tool steps, 3 citations linked, 1 citation marker removed, 2 attachments shown by name only, 1 interrupted reply marked incomplete, 1 hidden message left out.
        report chatgpt-cg-0003: "Lost current node": 1 citation linked, 1 citation marker removed, 1 interrupted reply marked incomplete, 2 hidden messages left out.
        "##,
    );
}

/// Claude's content blocks: thinking is the reply's reasoning, `tool_use`/`tool_result` a tool
/// round (the reply's last part keeps its id, so the next question follows it), attachments and
/// files are named; `parent_message_uuid` keeps the edited question as a branch and the chat
/// opens at the newest leaf; a conversation without its uuid is skipped by name.
#[test]
fn claude_export() {
    check(
        "claude-conversations.json",
        r##"
        chat claude-c-0001 "Reading a file in Rust" 2025-12-01T09:30:00.000Z .. 2025-12-01T09:40:00.000Z leaf=a3
        h1 <- - user complete 09:30:01 "How do I read a file?\n\n[file: main.rs]"
        a1-1 <- h1 assistant complete 09:30:05 call=toolu_01:web_search({"query":"rust read file to string"}) thinking="The user wants fs." "Let me check the docs."
        a1-2 <- a1-1 tool complete 09:30:05 answers=toolu_01 "fs::read_to_string reads a whole file."
        a1 <- a1-2 assistant complete 09:30:05 "Use `fs::read_to_string(\"main.rs\")?`."
        h2 <- a1 user complete 09:31:00 "And line by line?\n\n[image: screenshot.png]"
        a2 <- h2 assistant complete 09:31:05 "Use BufRead::lines."
        h3 <- a1 user complete 09:35:00 "And in bytes?"
        a3 <- h3 assistant complete 09:35:05 "Use fs::read."
        chat claude-c-0003 "" 2025-12-03T09:30:00.000Z .. 2025-12-03T09:30:00.000Z leaf=x2
        x1 <- - user complete 09:30:01 "Hi"
        x2 <- x1 assistant complete 09:30:02 "Hello!"
        skipped "No id": uuid: missing
        report claude-c-0001: "Reading a file in Rust": 1 tool call and 1 result kept as tool steps, 2 attachments shown by name only.
        "##,
    );
}

/// Open WebUI's history: both regenerated replies kept as branches, the chat opens at
/// `currentId`, each reply's model, times in seconds, an unfinished reply and one that failed
/// (its error as the note) incomplete, an image named; the older plain list read too; a chat
/// that is not an object skipped by its title.
#[test]
fn open_webui_export() {
    check(
        "openwebui-export.json",
        r##"
        chat openwebui-ow-0001 "Rust ownership" 2025-12-01T09:30:00.000Z .. 2025-12-01T09:30:05.000Z leaf=a2
        u1 <- - user complete 09:30:01 "Summarise Rust ownership."
        a1 <- u1 assistant complete 09:30:02 model=llama3.1:8b "Each value has one owner."
        a1b <- u1 assistant complete 09:30:03 model=qwen2.5:7b "One owner; borrows are checked."
        u2 <- a1b user complete 09:30:04 "What about this diagram?\n\n[image: ownership.png]"
        a2 <- u2 assistant incomplete 09:30:05 model=qwen2.5:7b "The diagram shows"
        chat openwebui-ow-0003 "Old format" 2025-12-01T09:30:10.000Z .. 2025-12-01T09:30:11.000Z leaf=o2
        o1 <- - user complete 09:30:10 "Hi"
        o2 <- o1 assistant incomplete 09:30:11 model=mistral:7b note="Ollama: connection refused" "Hello"
        skipped "Broken chat": chat: missing, or not an object
        report openwebui-ow-0001: "Rust ownership": 1 attachment shown by name only, 1 interrupted reply marked incomplete.
        report openwebui-ow-0003: "Old format": 1 interrupted reply marked incomplete.
        "##,
    );
}

/// LibreChat's two shapes: the nested tree (both first replies kept as branches, the newest leaf
/// on screen, an unfinished reply incomplete) and the flat list out of order (parents by
/// `parentMessageId`, the root's all-zero parent none; an agent's thinking, tool call and its
/// output a tool round; a failed reply's error text its note; a file named).
#[test]
fn librechat_exports() {
    check(
        "librechat-tree.json",
        r##"
        chat librechat-lc-0001 "Kyoto trip" 2025-12-01T09:30:00.000Z .. 2025-12-01T09:33:00.000Z leaf=m5
        m1 <- - user complete 09:30:01 "Plan a trip to Kyoto."
        m2 <- m1 assistant complete 09:30:05 model=gpt-4o "Day 1: Fushimi Inari."
        m3 <- m1 assistant complete 09:31:00 model=gpt-4o-mini "Day 1: Kiyomizu-dera."
        m4 <- m3 user complete 09:32:00 "And day 2?"
        m5 <- m4 assistant incomplete 09:32:05 model=gpt-4o "Day 2: Arashi"
        report librechat-lc-0001: "Kyoto trip": 1 interrupted reply marked incomplete.
        "##,
    );
    check(
        "librechat-flat.json",
        r##"
        chat librechat-lc-0002 "Powers of two" 2025-12-02T09:30:00.000Z .. 2025-12-02T09:31:05.000Z leaf=f4
        f1 <- - user complete 09:30:01 "What is 2^10?\n\n[file: notes.txt]"
        f2-1 <- f1 assistant complete 09:30:05 model=claude-sonnet-4 call=call_a:calculator({"input":"2^10"}) thinking="Use the calculator." ""
        f2-2 <- f2-1 tool complete 09:30:05 answers=call_a "1024"
        f2 <- f2-2 assistant complete 09:30:05 model=claude-sonnet-4 "2^10 = 1024."
        f3 <- f2 user complete 09:31:00 "And 2^20?"
        f4 <- f3 assistant incomplete 09:31:05 model=gpt-4o note="Error: rate limit reached" ""
        report librechat-lc-0002: "Powers of two": 1 tool call and 1 result kept as tool steps, 1 attachment shown by name only, 1 interrupted reply marked incomplete.
        "##,
    );
}

/// The older ChatGPT corpus files, each with one bad conversation: the good ones come in, the bad
/// one is named with its reason (by its place when it has no title). See: the issue "one bad
/// conversation blocks the whole ChatGPT export".
#[test]
fn one_bad_conversation_no_longer_blocks_the_others() {
    /// A file, how many chats come in, and the (name, reason) of each skipped.
    type Case<'a> = (&'a str, usize, &'a [(&'a str, &'a str)]);
    let cases: &[Case] = &[
        (
            "chatgpt-no-mapping.json",
            1,
            &[("Empty one", "mapping: missing, or not an object")],
        ),
        (
            "chatgpt-no-id.json",
            1,
            &[("Order status 订单", "conversation_id: missing")],
        ),
        (
            "chatgpt-cycle.json",
            1,
            &[("Order status 订单", "the parent links go round in a circle")],
        ),
        (
            "chatgpt-not-object.json",
            2,
            &[("untitled chat #3", "not an object")],
        ),
    ];
    for (file, chats, skipped) in cases {
        let incoming = read(fixture(file)).unwrap();
        assert_eq!(incoming.chats.len(), *chats, "{file}");
        let got: Vec<(&str, &str)> = incoming
            .skipped
            .iter()
            .map(|s| (s.name.as_str(), s.reason.as_str()))
            .collect();
        assert_eq!(got, *skipped, "{file}");
    }
}

/// What is refused whole, and the sentence says what was recognised and what was not.
#[test]
fn refusals_say_what_was_recognised() {
    let cases: &[(&str, &str)] = &[
        (
            r#"[{"title": "A"}, {"title": "B", "mapping": 5}]"#,
            "the file is ChatGPT's export, but none of its 2 chats can be read (the first, \"A\": mapping: missing, or not an object)",
        ),
        (
            r#"[{"uuid": "", "name": "X", "chat_messages": []}]"#,
            "the file is Claude's export, but none of its 1 chats can be read (the first, \"X\": uuid: missing)",
        ),
        (
            r#"[{"id": "a", "title": "T", "chat": {"history": {"messages": []}}}]"#,
            "the file is an Open WebUI export, but none of its 1 chats can be read (the first, \"T\": chat.history.messages: missing, or not an object)",
        ),
        (
            r#"{"conversationId": "c", "title": "T"}"#,
            "messages: missing, or not a list (a LibreChat export holds `messages` or `messagesTree`)",
        ),
        (
            r#"[{"a": 1}]"#,
            "Satori does not recognise this file (it is a list, but not of ChatGPT, Claude or Open WebUI chats: none of its items has a `mapping`, `chat_messages` or `chat.history`)",
        ),
        ("[]", "Satori does not recognise this file (it is an empty list)"),
    ];
    for (text, want) in cases {
        let err = read(text).unwrap_err().to_string();
        assert!(err.starts_with(want), "{text}: {err}");
    }
    // A message that repeats an id (a duplicate uuid) fails the chat's own check: that chat is
    // skipped, the other comes in.
    let text = r#"[
        {"uuid": "a", "name": "Twice", "chat_messages": [
            {"uuid": "m", "sender": "human", "text": "1"},
            {"uuid": "m", "sender": "assistant", "text": "2"}]},
        {"uuid": "b", "name": "Fine", "chat_messages": []},
        {"uuid": "b", "name": "Fine again", "chat_messages": []}
    ]"#;
    let incoming = read(text).unwrap();
    assert_eq!(incoming.chats.len(), 1);
    let got: Vec<String> = incoming
        .skipped
        .iter()
        .map(|s| format!("{}: {}", s.name, s.reason))
        .collect();
    assert_eq!(
        got,
        [
            "Twice: messages[1].id: the message id \"m\" appears twice in this chat",
            "Fine again: the chat id \"claude-b\" appears twice in the file"
        ]
    );
}

/// The plan carries the skipped conversations into its sentence and each added chat's report
/// (a copy's under its new id); an identical chat's report is dropped with it.
#[test]
fn the_plan_says_what_was_skipped_and_converted() {
    use super::import::plan;
    use crate::prompts::user::UserPrompts;
    let incoming = read(fixture("chatgpt-tools-citations.json")).unwrap();
    let mut taken = incoming.chats[0].clone();
    taken.title = "Mine".into();
    taken.messages.clear();
    let p = plan(&[taken], &[], &UserPrompts::default(), incoming, || {
        "copy-1".into()
    });
    assert_eq!(
        p.summary(false),
        "2 chats to import (12 messages), 1 as a copy (the id was taken); 2 chats could not be read and were skipped: \"Broken one\" (mapping: missing, or not an object), untitled chat #4 (mapping: missing, or not an object)."
    );
    let chats: Vec<&str> = p.reports.iter().map(|r| r.chat.as_str()).collect();
    assert_eq!(chats, ["copy-1", "chatgpt-cg-0003"]);
    assert_eq!(
        p.report_lines()[1],
        "\"Lost current node\": 1 citation linked, 1 citation marker removed, 1 interrupted reply marked incomplete, 2 hidden messages left out."
    );
    // Importing the same file again: nothing to add, and no reports.
    let again = read(fixture("chatgpt-tools-citations.json")).unwrap();
    let p2 = plan(&p.add, &[], &UserPrompts::default(), again, || "x".into());
    assert!(p2.add.is_empty() && p2.reports.is_empty());
}

/// Reading is deterministic: ids come from the file, so the same file reads the same twice.
#[test]
fn the_same_file_reads_the_same() {
    for f in [
        "chatgpt-tools-citations.json",
        "claude-conversations.json",
        "openwebui-export.json",
        "librechat-tree.json",
        "librechat-flat.json",
    ] {
        assert_eq!(read(fixture(f)).unwrap(), read(fixture(f)).unwrap(), "{f}");
    }
}

/// A LibreChat message without an id is left out; the replies that followed it start the chat
/// anew instead of failing its check (which would refuse the whole file: it holds one chat).
#[test]
fn a_librechat_message_without_an_id_leaves_its_replies_in() {
    let text = r#"{
        "conversationId": "lc-9", "title": "Gap",
        "messages": [
            {"messageId": "", "parentMessageId": "00000000-0000-0000-0000-000000000000",
             "isCreatedByUser": true, "text": "lost", "createdAt": "2025-12-01T09:30:00Z"},
            {"messageId": "b", "parentMessageId": "missing-a", "isCreatedByUser": false,
             "text": "Answer.", "createdAt": "2025-12-01T09:30:01Z"},
            {"messageId": "c", "parentMessageId": "b", "isCreatedByUser": true,
             "text": "More?", "createdAt": "2025-12-01T09:30:02Z"}
        ]
    }"#;
    let incoming = read(text).expect("read");
    let chat = &incoming.chats[0];
    let parents: Vec<(&str, Option<&str>)> = chat
        .messages
        .iter()
        .map(|m| (m.id.as_str(), m.parent.as_deref()))
        .collect();
    assert_eq!(parents, [("b", None), ("c", Some("b"))]);
    assert_eq!(incoming.reports[0].left_out, 1);
}

#[test]
fn a_chatgpt_question_with_a_picture_wants_it_from_the_export() {
    let conv = serde_json::json!({
        "title": "Photo", "create_time": 1_700_000_000.0, "conversation_id": "conv-1",
        "mapping": {
            "root": {"parent": null, "message": null},
            "q": {"parent": "root", "message": {
                "author": {"role": "user"},
                "content": {"content_type": "multimodal_text", "parts": [
                    {"content_type": "image_asset_pointer", "asset_pointer": "sediment://file_00ab?shared=1",
                     "width": 1536, "height": 1024, "size_bytes": 9},
                    "What is this?"
                ]},
                "metadata": {"attachments": [{"id": "file_00ab?shared=1", "name": "cat.png"}]}
            }},
            "a": {"parent": "q", "message": {
                "author": {"role": "assistant"},
                "content": {"content_type": "multimodal_text", "parts": [
                    {"content_type": "image_asset_pointer", "asset_pointer": "file-service://file-drawn"}
                ]},
                "recipient": "all"
            }}
        }
    });
    let (chat, _) = super::chatgpt::item(0, &conv).unwrap();
    let of = |role| chat.messages.iter().find(|m| m.role == role).unwrap();
    let question = of(crate::session::Role::User);
    assert_eq!(question.content, "[image: cat.png]\n\nWhat is this?");
    assert_eq!(question.attachments, "?file file_00ab 1536x1024 cat.png");
    // Only questions carry attachments: a picture in a reply stays a line of text.
    assert_eq!(of(crate::session::Role::Assistant).attachments, "");
    // Read again, it is the same chat as the one imported with its picture.
    let mut imported = chat.clone();
    let at = chat
        .messages
        .iter()
        .position(|m| !m.attachments.is_empty())
        .unwrap();
    super::archive::resolve(
        &mut imported,
        &[(
            "file_00ab".to_string(),
            format!("{} image image/png 9 1536x1024 0 - cat.png", "a".repeat(64)),
        )]
        .into(),
    );
    assert_ne!(
        imported.messages[at].attachments,
        chat.messages[at].attachments
    );
    assert_eq!(
        super::import::fingerprint(&imported),
        super::import::fingerprint(&chat)
    );
}
