//! Generated hostile files, round trips and merge plans (the corpus of files is
//! `tests/import.rs`).

use super::format::{export, file_name};
use super::import::{plan, read, ImportError, MAX_BYTES};
use super::markdown::markdown;
use crate::prompts::user::UserPrompts;
use crate::session::{ChatModel, Command, Message, Role, Session, Status, Summary, ToolCall};

#[test]
fn generated_hostile_files() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    assert!(matches!(
        read(&deep),
        Err(ImportError::TooDeep { line: 1, .. })
    ));
    let deep_object = format!(
        r#"{{"format":"satori-export","version":1,"exported_at":"2026-12-01T00:00:00Z","chats":[{{"id":"x","created_at":"2026-12-01T00:00:00Z","updated_at":"2026-12-01T00:00:00Z","messages":[],"context":{}{}}}]}}"#,
        r#"{"a":"#.repeat(5_000),
        "}".repeat(5_000)
    );
    assert!(matches!(
        read(&deep_object),
        Err(ImportError::TooDeep { .. })
    ));
    let huge = format!(
        r#"{{"format":"satori-export","x":"{}"}}"#,
        "a".repeat(60_000_000)
    );
    let err = read(&huge).unwrap_err();
    assert_eq!(
        err,
        ImportError::TooLarge {
            bytes: huge.len(),
            limit: MAX_BYTES
        }
    );
    assert_eq!(
        err.to_string(),
        "the file is 60.0 MB, larger than the 50.0 MB Satori imports"
    );
}

fn message(id: &str, parent: Option<&str>, role: Role, content: &str, at: i64) -> Message {
    Message::new(id.into(), parent.map(Into::into), role, content.into(), at)
}

/// A chat with branches, a tool round, a summary, pins and odd text.
fn rich_chat(id: &str) -> Session {
    let mut s = Session::new(id.into(), 1_764_581_400_000, None, Vec::new());
    s.title = "Orders <b>& 订单</b>".into();
    s.role = "assistant".into();
    let mut m = vec![
        message("m0", None, Role::System, "Be brief.", 1_764_581_400_001),
        message(
            "m1",
            Some("m0"),
            Role::User,
            "订单 ORD-2024-00042 在哪？ 🚀",
            1_764_581_400_002,
        ),
        message("m2", Some("m1"), Role::Assistant, "", 1_764_581_400_003),
        message(
            "m3",
            Some("m2"),
            Role::Tool,
            "{\"status\":\"shipped\"}",
            1_764_581_400_004,
        ),
        message(
            "m4",
            Some("m3"),
            Role::Assistant,
            "Shipped.\n\n```rust\nfn main() {}\n```",
            1_764_581_400_005,
        ),
        message(
            "m5",
            Some("m1"),
            Role::Assistant,
            "Another branch",
            1_764_581_400_006,
        ),
    ];
    m[2].tool_calls = vec![ToolCall {
        index: 0,
        id: "call_1".into(),
        name: "order_status".into(),
        arguments: "{\"id\":\"ORD-2024-00042\"}".into(),
    }];
    m[2].status = Status::Complete;
    m[3].tool_call_id = Some("call_1".into());
    m[4].model = Some("gpt-4o".into());
    m[4].reasoning = "thinking…".into();
    m[5].status = Status::Stopped;
    m[5].note = Some("Stopped.".into());
    m[1].pinned = true;
    s.messages = m;
    s.leaf = Some("m4".into());
    s.summaries = vec![Summary {
        id: "s1".into(),
        through: "m1".into(),
        covers: 2,
        text: "Asked about ORD-2024-00042.".into(),
        restored: vec!["ORD-2024-00042".into()],
        model: "fake".into(),
        edited: true,
        created_at: 1_764_581_400_010,
    }];
    s.context.window = Some(4096);
    s.updated_at = 1_764_581_400_020;
    s
}

#[test]
fn long_parent_chains_are_checked_in_linear_time() {
    // 50 000 messages in one chain, listed leaf first: each walk stops at the first message
    // already checked (this took minutes when every walk kept a list of what it had seen).
    let n = 50_000;
    let mut s = Session::new("long".into(), 0, None, Vec::new());
    s.messages = (0..n)
        .rev()
        .map(|i| {
            let parent = (i > 0).then(|| format!("m{}", i - 1));
            message(&format!("m{i}"), parent.as_deref(), Role::User, "x", 0)
        })
        .collect();
    let back = read(&export(&[&s], None, None, Vec::new(), 0)).unwrap();
    assert_eq!(back.chats[0].messages.len(), n);
    // And a cycle at the end of a long chain is still found.
    s.messages[n - 1].parent = Some("m0".into()); // m0 → … → m0
    s.messages[n - 1].id = "m0".into();
    let err = read(&export(&[&s], None, None, Vec::new(), 0))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("appears twice") || err.contains("circle"),
        "{err}"
    );
    let mut t = Session::new("cyc".into(), 0, None, Vec::new());
    t.messages = (0..n)
        .map(|i| {
            message(
                &format!("c{i}"),
                Some(&format!("c{}", (i + 1) % n)),
                Role::User,
                "x",
                0,
            )
        })
        .collect();
    let err = read(&export(&[&t], None, None, Vec::new(), 0))
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("the parent links go round in a circle"),
        "{err}"
    );
}

#[test]
fn a_reply_still_arriving_is_exported_as_incomplete() {
    let mut s = rich_chat("a");
    s.messages[4].status = Status::Streaming;
    let back = read(&export(&[&s], None, None, Vec::new(), 0)).unwrap();
    assert_eq!(back.chats[0].messages[4].status, Status::Incomplete);
}

#[test]
fn round_trip_keeps_everything() {
    let a = rich_chat("a");
    let mut b = Session::new("b".into(), 0, None, Vec::new());
    b.apply(Command::Rename {
        title: "Empty".into(),
    })
    .unwrap();
    let text = export(
        &[&a, &b],
        Some(&UserPrompts::default()),
        None,
        Vec::new(),
        1_764_581_400_100,
    );
    assert!(text.contains(r#""format": "satori-export""#));
    assert!(
        text.contains(r#""created_at": "2025-12-01T09:30:00.001Z""#),
        "ISO timestamps"
    );
    let back = read(&text).unwrap();
    assert_eq!(back.chats, vec![a, b]);
    assert!(!back.settings);
}

#[test]
fn merging_never_overwrites_and_twice_adds_nothing() {
    let a = rich_chat("a");
    let mut a_changed = rich_chat("a");
    a_changed.title = "Changed".into();
    let c = rich_chat("c"); // same content as `a`, another id
                            // `new` has the content of `a`: identical content under any id is skipped.
    let incoming = read(&export(
        &[&a_changed, &rich_chat("new")],
        None,
        None,
        Vec::new(),
        0,
    ))
    .unwrap();
    let mut n = 0;
    let ids = || {
        n += 1;
        format!("copy-{n}")
    };
    let p = plan(
        std::slice::from_ref(&a),
        &[],
        &UserPrompts::default(),
        incoming,
        ids,
    );
    assert_eq!(p.identical.len(), 1, "`new`, which has a's content");
    assert_eq!(p.copies, vec!["copy-1".to_string()]);
    assert_eq!(p.add.len(), 1);
    assert_eq!(p.add[0].id, "copy-1");
    assert_eq!(p.add[0].title, "Changed");
    assert!(
        p.add[0].foreign,
        "an imported chat's text is not the user's own"
    );
    assert_eq!(
        p.summary(true),
        "Imported 1 chat (6 messages), 1 skipped as identical, 1 as a copy (the id was taken)."
    );
    // The same file again, after the first import: nothing.
    let mut now = vec![a, p.add[0].clone()];
    let again = read(&export(
        &[&a_changed, &rich_chat("new")],
        None,
        None,
        Vec::new(),
        0,
    ))
    .unwrap();
    let p2 = plan(&now, &[], &UserPrompts::default(), again, || "never".into());
    assert!(p2.is_empty());
    assert_eq!(
        p2.summary(false),
        "0 chats to import, 2 skipped as identical."
    );
    // A chat with a fresh id and new content comes in as it is.
    now.push(c);
    let mut d = rich_chat("d");
    d.messages[1].content = "different".into();
    let file = || read(&export(&[&d], None, None, Vec::new(), 0)).unwrap();
    let p3 = plan(&now, &[], &UserPrompts::default(), file(), || "x".into());
    assert_eq!((p3.add.len(), p3.copies.len()), (1, 0));
    assert_eq!(p3.add[0].id, "d");
    assert!(p3.add[0].foreign);
    // The id of a stored chat that cannot be read is taken too.
    let p4 = plan(&now, &["d".into()], &UserPrompts::default(), file(), || {
        "x".into()
    });
    assert_eq!((p4.add.len(), p4.copies.len()), (1, 1));
    assert_eq!(p4.add[0].id, "x");
}

#[test]
fn damaged_records_travel_as_text_and_are_never_imported() {
    use super::format::RawRecord;
    let raw = vec![RawRecord {
        key: "satori.session.broken".into(),
        text: "{\"v\":1,\"id\":\"broken\",\"messa".into(),
    }];
    let text = export(&[&rich_chat("ok")], None, None, raw.clone(), 0);
    let file: super::format::File = serde_json::from_str(&text).unwrap();
    assert_eq!(file.unreadable, raw, "kept byte for byte");
    // Parsed recursively, here in a debug build whose frames are several times those of the
    // release modules (their 8 MB stack, `build.rs`, is what the imports e2e test reads it with).
    let incoming = std::thread::Builder::new()
        .stack_size(128 << 20)
        .spawn(move || read(&text))
        .unwrap()
        .join()
        .unwrap()
        .unwrap();
    assert_eq!(incoming.chats.len(), 1);
    assert_eq!(incoming.damaged, 1);
    let plan = plan(&[], &[], &UserPrompts::default(), incoming, || {
        "new".to_string()
    });
    assert!(
        plan.summary(false).ends_with(
            "; 1 damaged chat record in the file, kept there as text, cannot be imported."
        ),
        "{}",
        plan.summary(false)
    );
    // A file without damaged records does not mention them.
    let text = export(&[&rich_chat("ok")], None, None, Vec::new(), 0);
    assert!(!text.contains("unreadable"));
}

#[test]
fn markdown_shows_the_branch_on_screen() {
    let md = markdown(&rich_chat("a"), 1_764_581_400_000);
    assert!(md.starts_with(
        "# Orders <b>& 订单</b>\n\n*Exported from Satori on 2025-12-01 09:30 UTC.*\n"
    ));
    assert!(md.contains("## You\n\n订单 ORD-2024-00042 在哪？ 🚀\n"));
    assert!(md.contains("Called `order_status` with:\n\n```\n{\"id\":\"ORD-2024-00042\"}\n```\n"));
    assert!(md.contains("## Tool result\n\n```\n{\"status\":\"shipped\"}\n```\n"));
    assert!(md.contains("## Assistant (gpt-4o)\n\nShipped.\n\n```rust\nfn main() {}\n```\n"));
    assert!(!md.contains("Another branch"), "only the branch on screen");
    assert!(!md.contains("thinking"), "reasoning is left out");
}

#[test]
fn file_names_are_dated() {
    assert_eq!(
        file_name("all", 1_764_581_400_000, "json"),
        "satori-all-2025-12-01-0930.json"
    );
    assert_eq!(file_name("chat", 0, "md"), "satori-chat-1970-01-01-0000.md");
}

/// A template in a file comes in as its YAML `source` reads, never as the file's own parsed
/// copy: here the copy claims another version, description, system prompt, user message and
/// output schema, and none of it may survive the import.
#[test]
fn an_imported_template_is_the_one_its_source_defines() {
    use crate::prompts::{Part, Source, Template};
    let text = include_str!("../../../../tests/fixtures/import/template-stale-copy.json");
    let source = "order-helper:\n  version: 1\n  description: Finds orders.\n  \
                  system: You help with orders. Keep every order number exactly.\n";
    assert!(
        text.contains("print the API key"),
        "the file's copy differs"
    );
    let incoming = read(text).unwrap();
    assert_eq!(incoming.chats.len(), 1);
    assert_eq!(incoming.templates.len(), 1);
    let got = &incoming.templates[0];
    assert_eq!(got.source, source);
    assert_eq!(
        got.template,
        Template {
            key: "order-helper".into(),
            version: 1,
            description: "Finds orders.".into(),
            system: vec![Part {
                source: Source::Text(
                    "You help with orders. Keep every order number exactly.".into()
                ),
                when: None,
            }],
            examples: Vec::new(),
            user: None,
            variables: Vec::new(),
            output_schema: None,
        }
    );
    // And a merge adds that template, not the file's copy.
    let plan = plan(&[], &[], &UserPrompts::default(), incoming, || "new".into());
    assert_eq!(plan.templates.len(), 1);
    assert_eq!(plan.templates[0].template.version, 1);
    assert!(!format!("{:?}", plan.templates[0]).contains("API key"));
}

#[test]
fn chatgpt_exports_keep_branches_and_open_at_the_current_node() {
    let text = include_str!("../../../../tests/fixtures/import/chatgpt-conversations.json");
    let chats = read(text).unwrap().chats;
    assert_eq!(chats.len(), 2);
    let c = &chats[0];
    assert_eq!(c.id, "chatgpt-6750a1b2-0000-4000-8000-000000000001");
    assert_eq!(c.title, "Order status 订单");
    assert_eq!(c.created_at, 1_764_581_400_250);
    // The hidden system message is left out; every other message is kept, branches included.
    assert_eq!(c.messages.len(), 7);
    assert!(c.get("sys").is_none());
    assert_eq!(
        c.get("u1").unwrap().parent,
        None,
        "its hidden parents are skipped"
    );
    // The chat opens at current_node (the regenerated branch), not at the last child.
    assert_eq!(c.leaf.as_deref(), Some("a4"));
    let shown: Vec<&str> = c.path().iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        shown,
        [
            "Where is order ORD-1? 订单在哪？",
            "It shipped on Monday (regenerated).",
            "[image: x]\n\nThanks! Here is the receipt.",
            "You're welcome."
        ]
    );
    assert_eq!(
        c.get("a1").unwrap().content,
        "It shipped.",
        "the other branch is kept"
    );
    assert_eq!(c.get("a2").unwrap().model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(c.get("a4").unwrap().created_at, 1_764_581_407_000);
    assert!(chats[1].messages.is_empty());
}

#[test]
fn a_share_link_carries_the_branch_on_screen_and_nothing_else() {
    use super::share::{link, open};
    let chat = rich_chat("c1");
    let url = link(
        "http://127.0.0.1:8080/apps/satori/#old",
        &chat,
        1_764_581_500_000,
    )
    .unwrap();
    assert!(url.starts_with("http://127.0.0.1:8080/apps/satori/#share="));
    let fragment = &url[url.find('#').unwrap()..];
    assert!(fragment[1..]
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_' || b == b'='));
    let back = open(fragment).unwrap().unwrap();
    let ids: Vec<&str> = back.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(
        ids,
        ["m0", "m1", "m2", "m3", "m4"],
        "the other branch stays home"
    );
    assert_eq!(back.title, chat.title);
    assert_eq!(back.leaf.as_deref(), Some("m4"));
    assert!(back.summaries.is_empty());
    assert_eq!(back.context, Default::default());
    for (a, b) in back.messages.iter().zip(&chat.messages) {
        assert_eq!(
            (&a.content, &a.tool_calls, a.role),
            (&b.content, &b.tool_calls, b.role)
        );
    }
    // Attached files stay home: a line names each.
    let mut with_file = rich_chat("c2");
    let first = with_file
        .messages
        .iter_mut()
        .find(|m| m.role == Role::User)
        .unwrap();
    first.attachments = String::from(crate::attachment::Attachment {
        name: "photo.png".into(),
        kind: crate::attachment::Kind::Image,
        mime: "image/png".into(),
        bytes: 9,
        hash: "a".repeat(64),
        width: 2,
        height: 2,
        pages: 0,
        text: None,
    });
    let (id, text) = (first.id.clone(), first.content.clone());
    let url = link("http://127.0.0.1/", &with_file, 0).unwrap();
    let back = open(&url["http://127.0.0.1/".len()..]).unwrap().unwrap();
    let m = back.messages.iter().find(|m| m.id == id).unwrap();
    assert!(m.attachments.is_empty());
    assert_eq!(m.content, format!("{text}\n[image not shared: photo.png]"));
    // A long chat of plain text packs well: 200 messages fit in a link.
    let mut long = Session::new("long".into(), 0, None, Vec::new());
    long.messages = (0..200)
        .map(|i| {
            let parent = (i > 0).then(|| format!("m{}", i - 1));
            let text = format!("Message {i}: the order ORD-{i:05} ships on Monday. 订单已发货。");
            message(&format!("m{i}"), parent.as_deref(), Role::User, &text, i)
        })
        .collect();
    long.leaf = Some("m199".into());
    let url = link("http://127.0.0.1/", &long, 0).unwrap();
    let back = open(&url["http://127.0.0.1/".len()..]).unwrap().unwrap();
    assert_eq!(back.messages.len(), 200);
}

#[test]
fn share_links_that_cannot_be_made_or_read() {
    use super::share::{link, open, ShareError, MAX_LINK, PREFIX};
    use base64::Engine;
    let b64 = |bytes: &[u8]| base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes);
    let pack = |text: &str| {
        format!(
            "{PREFIX}{}",
            b64(&miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 6))
        )
    };
    assert!(open("").is_none());
    assert!(open("#section-2").is_none());
    // Too much to share: random-looking text does not compress.
    let mut noisy = rich_chat("n");
    let mut x: u64 = 88172645463325252;
    noisy.messages[1].content = (0..80_000)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            char::from(b'!' + (x % 90) as u8)
        })
        .collect();
    assert!(matches!(
        link("http://127.0.0.1/", &noisy, 0),
        Err(ShareError::TooLong {
            limit: MAX_LINK,
            ..
        })
    ));
    let one = export(&[&rich_chat("a")], None, None, Vec::new(), 0);
    let two = export(
        &[&rich_chat("a"), &rich_chat("b")],
        None,
        None,
        Vec::new(),
        0,
    );
    let with_settings = one.replacen('{', r#"{"settings":{"model":"m"},"#, 1);
    let none = export(&[], None, None, Vec::new(), 0);
    // Cut on a whole base64 quantum: the text decodes, the DEFLATE stream ends too soon.
    let mut cut = pack(&one);
    cut.truncate(PREFIX.len() + (cut.len() - PREFIX.len()) / 8 * 4);
    let bomb = format!(
        "{PREFIX}{}",
        b64(&miniz_oxide::deflate::compress_to_vec(
            &vec![b' '; 5_000_000],
            9
        ))
    );
    type Expect = fn(&ShareError) -> bool;
    let cases: [(String, Expect); 9] = [
        ("#share=ab$c".into(), |e| *e == ShareError::Encoding),
        ("#share=A".into(), |e| *e == ShareError::Encoding),
        (cut, |e| matches!(e, ShareError::Unpack(_))),
        (bomb, |e| {
            *e == ShareError::Unpack("it unpacks to more than 4 MB".into())
        }),
        (pack(&two), |e| {
            *e == ShareError::NotOneChat("2 chats".into())
        }),
        (pack(&with_settings), |e| {
            matches!(e, ShareError::NotOneChat(_))
        }),
        (pack(&none), |e| {
            *e == ShareError::NotOneChat("no chat".into())
        }),
        (pack("{\"format\":\"satori-export\""), |e| {
            matches!(e, ShareError::Invalid(ImportError::Syntax { .. }))
        }),
        (pack("[1,2]"), |e| {
            matches!(e, ShareError::Invalid(ImportError::UnknownFormat(_)))
        }),
    ];
    for (fragment, expected) in cases {
        let err = open(&fragment).unwrap().unwrap_err();
        assert!(expected(&err), "{fragment:.60}: {err:?}");
    }
    assert!(open(&pack(&one)).unwrap().is_ok());
}

/// A share link's payload: `text` packed as Satori packs it.
fn share_fragment(text: &str) -> String {
    use base64::Engine;
    let bytes = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 6);
    format!(
        "{}{}",
        super::share::PREFIX,
        base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
    )
}

#[test]
fn a_link_that_names_no_leaf_opens_at_the_newest_leaf() {
    // See: #37. It used to open (and "Save a copy" to store) an empty chat.
    use super::share::open;
    let ids =
        |chat: &Session| -> Vec<String> { chat.messages.iter().map(|m| m.id.clone()).collect() };
    let mut chat = rich_chat("c");
    chat.leaf = None;
    let file = export(&[&chat], None, None, Vec::new(), 0);
    assert!(!file.contains("\"leaf\""));
    let opened = open(&share_fragment(&file)).unwrap().unwrap();
    // m4 ends one branch, m5 (written later) the other.
    assert_eq!(ids(&opened), ["m0", "m1", "m5"]);
    assert_eq!(opened.leaf.as_deref(), Some("m5"));
    // Written at the same moment: the later in the chat's order.
    chat.messages[5].created_at = chat.messages[4].created_at;
    let file = export(&[&chat], None, None, Vec::new(), 0);
    assert_eq!(
        ids(&open(&share_fragment(&file)).unwrap().unwrap()),
        ["m0", "m1", "m5"]
    );
    chat.messages.swap(4, 5);
    let file = export(&[&chat], None, None, Vec::new(), 0);
    assert_eq!(
        ids(&open(&share_fragment(&file)).unwrap().unwrap()),
        ["m0", "m1", "m2", "m3", "m4"]
    );
    // A leaf the link names is kept, even when a newer one exists.
    chat.leaf = Some("m4".into());
    chat.messages[4].created_at += 100;
    let file = export(&[&chat], None, None, Vec::new(), 0);
    assert_eq!(
        open(&share_fragment(&file))
            .unwrap()
            .unwrap()
            .leaf
            .as_deref(),
        Some("m4")
    );
}

#[test]
fn a_link_carries_no_pins_exclusions_or_output_schema() {
    // See: #37. docs/transfer.md: a link carries the title, role, system prompt and messages of
    // the branch on screen; not the chat's context settings (pins and exclusions are) nor how
    // its replies are asked for.
    use super::share::{link, open};
    use crate::session::{PromptOrigin, PromptSource};
    let mut chat = rich_chat("c");
    chat.messages[4].excluded = true;
    chat.prompt = Some(PromptOrigin {
        source: PromptSource::Builtin,
        key: "planner".into(),
        version: 2,
        vars: Default::default(),
        system_edited: false,
        output_schema: Some(r#"{"type":"object"}"#.into()),
    });
    assert!(chat.messages[1].pinned);
    // The chat pinned in the list, with its own model on the sharer's server.
    chat.pinned = true;
    chat.model = Some(crate::session::ChatModel {
        name: "private-model".into(),
        base_url: "http://10.0.0.7:8080/v1".into(),
    });
    let made = link("http://127.0.0.1/", &chat, 0).unwrap();
    // Made by Satori, or crafted with them in: neither brings them.
    let crafted = share_fragment(&export(&[&chat], None, None, Vec::new(), 0));
    for fragment in [&made["http://127.0.0.1/".len()..], crafted.as_str()] {
        let back = open(fragment).unwrap().unwrap();
        assert_eq!(back.messages.len(), 5);
        assert!(
            back.messages.iter().all(|m| !m.pinned && !m.excluded),
            "{fragment:.40}"
        );
        let origin = back.prompt.unwrap();
        assert_eq!((origin.key.as_str(), origin.version), ("planner", 2));
        assert_eq!(origin.output_schema, None);
        assert_eq!(back.title, chat.title);
        assert_eq!(back.role, chat.role);
        assert_eq!(back.messages[0].content, "Be brief.");
        assert!(!back.pinned);
        assert_eq!(back.model, None, "no server address from a link");
    }
}

#[test]
fn a_crafted_link_brings_only_a_branch_on_screen() {
    use super::share::{open, ShareError, MAX_MESSAGES, PREFIX};
    use base64::Engine;
    let pack = |text: &str| {
        let bytes = miniz_oxide::deflate::compress_to_vec(text.as_bytes(), 6);
        format!(
            "{PREFIX}{}",
            base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
        )
    };
    // A chat as a link never carries it: agent mode on, a summary, context settings, two branches.
    let mut crafted = rich_chat("c");
    crafted.agent.on = true;
    let file = export(&[&crafted], None, None, Vec::new(), 0);
    let chat = open(&pack(&file)).unwrap().unwrap();
    assert!(!chat.agent.on, "no agent mode from a link");
    assert!(chat.summaries.is_empty(), "no hidden summary");
    assert_eq!(chat.context, Default::default());
    let ids: Vec<&str> = chat.messages.iter().map(|m| m.id.as_str()).collect();
    assert_eq!(ids, ["m0", "m1", "m2", "m3", "m4"], "no hidden branch");
    // Too many messages to draw at once.
    let mut long = Session::new("long".into(), 0, None, Vec::new());
    long.messages = (0..=MAX_MESSAGES)
        .map(|i| {
            let parent = (i > 0).then(|| format!("m{}", i - 1));
            message(&format!("m{i}"), parent.as_deref(), Role::User, "x", 0)
        })
        .collect();
    long.leaf = Some(format!("m{MAX_MESSAGES}"));
    let file = export(&[&long], None, None, Vec::new(), 0);
    assert_eq!(
        open(&pack(&file)).unwrap().unwrap_err(),
        ShareError::TooLarge("more than 2000 messages".into())
    );
    assert_eq!(
        super::share::link("http://127.0.0.1/", &long, 0).unwrap_err(),
        ShareError::TooLarge("more than 2000 messages".into())
    );
}

/// The export format mirrors the stored chat with types of its own ([`super::format`]). Tied
/// here: the chat, a message and a summary are written out field by field (no `..`), so a field
/// added to `Session`, `Message` or `Summary` does not compile until it is named here, and then
/// fails the round trip until the export format carries it.
#[test]
fn every_field_of_a_chat_survives_export_and_import() {
    use crate::provider::stream::Usage;
    use crate::session::{AgentConfig, ContextOverrides, PromptOrigin, PromptSource, Structured};
    let system = Message {
        id: "m0".into(),
        parent: None,
        role: Role::System,
        content: "Be brief.".into(),
        reasoning: String::new(),
        status: Status::Complete,
        finish_reason: None,
        note: None,
        model: None,
        created_at: 1_764_581_400_001,
        example: false,
        usage: None,
        prompt_tokens: None,
        prompt_exact: false,
        reply_tokens: None,
        cost_nanos: None,
        currency: String::new(),
        tool_calls: Vec::new(),
        tool_call_id: None,
        pinned: false,
        excluded: false,
        structured: None,
        attachments: String::new(),
    };
    let reply = Message {
        id: "m1".into(),
        parent: Some("m0".into()),
        role: Role::Assistant,
        content: "订单 #4417：¥1 280".into(),
        reasoning: "<think>sum it</think>".into(),
        status: Status::Stopped,
        finish_reason: Some("length".into()),
        note: Some("stopped by the user".into()),
        model: Some("qwen-plus".into()),
        created_at: 1_764_581_400_002,
        example: true,
        usage: Some(Usage {
            prompt_tokens: Some(120),
            completion_tokens: Some(34),
            total_tokens: Some(154),
        }),
        prompt_tokens: Some(118),
        prompt_exact: true,
        reply_tokens: Some(33),
        cost_nanos: Some(4_200),
        currency: "CNY".into(),
        tool_calls: vec![ToolCall {
            index: 0,
            id: "call_1".into(),
            name: "calculator".into(),
            arguments: r#"{"expression":"2*640"}"#.into(),
        }],
        tool_call_id: None,
        pinned: true,
        excluded: true,
        structured: Some(Structured {
            outcome: "repaired".into(),
            line: "Repaired locally".into(),
            original: Some("{\"a\":1,}".into()),
        }),
        attachments: String::new(),
    };
    let tool = Message {
        id: "m2".into(),
        parent: Some("m1".into()),
        role: Role::Tool,
        content: "1280".into(),
        reasoning: String::new(),
        status: Status::Complete,
        finish_reason: None,
        note: None,
        model: None,
        created_at: 1_764_581_400_003,
        example: false,
        usage: None,
        prompt_tokens: None,
        prompt_exact: false,
        reply_tokens: None,
        cost_nanos: None,
        currency: String::new(),
        tool_calls: Vec::new(),
        tool_call_id: Some("call_1".into()),
        pinned: false,
        excluded: false,
        structured: None,
        attachments: String::new(),
    };
    let chat = Session {
        id: "all".into(),
        title: "Every field".into(),
        role: "planner".into(),
        prompt: Some(PromptOrigin {
            source: PromptSource::User,
            key: "reviewer".into(),
            version: 3,
            vars: [("lang".to_string(), "中文".to_string())].into(),
            system_edited: true,
            output_schema: Some(r#"{"type":"object"}"#.into()),
        }),
        created_at: 1_764_581_400_000,
        updated_at: 1_764_581_400_009,
        messages: vec![system, reply, tool],
        leaf: Some("m2".into()),
        summaries: vec![Summary {
            id: "s1".into(),
            through: "m1".into(),
            covers: 2,
            text: "The order #4417 came to ¥1 280.".into(),
            restored: vec!["#4417".into()],
            model: "qwen-turbo".into(),
            edited: true,
            created_at: 1_764_581_400_005,
        }],
        context: ContextOverrides {
            window: Some(8192),
            reply_reserve: Some(512),
            keep_recent_rounds: Some(3),
            min_keep_rounds: Some(1),
            summarize: Some(false),
        },
        agent: AgentConfig {
            on: true,
            max_steps: Some(5),
            react: true,
        },
        foreign: false,
        pinned: true,
        model: Some(ChatModel {
            name: "qwen-plus".into(),
            base_url: "https://dashscope.aliyuncs.com/compatible-mode/v1".into(),
        }),
    };
    let back = read(&export(&[&chat], None, None, Vec::new(), 0)).unwrap();
    assert_eq!(back.chats, vec![chat.clone()]);
    // Where a chat came from is not written: the import that reads it says so again.
    let foreign = Session {
        foreign: true,
        ..chat.clone()
    };
    let text = export(&[&foreign], None, None, Vec::new(), 0);
    assert!(!text.contains("foreign"));
    assert_eq!(read(&text).unwrap().chats, vec![chat]);
}

#[test]
fn nesting_is_measured_in_one_pass_outside_strings() {
    use super::import::deeper_than;
    let cases = [
        ("[[[]]]", 3, None),
        ("[[[]]]", 2, Some((1, 3))),
        (r#"{"a":"[[[[{{{{"}"#, 1, None),
        (r#"{"a":"\"[[[","b":[[1]]}"#, 2, Some((1, 19))),
        ("[\n [\n  [", 2, Some((3, 3))),
        ("]]]][", 1, None),
    ];
    for (text, limit, want) in cases {
        assert_eq!(deeper_than(text, limit), want, "{text}");
    }
}

#[test]
fn a_librechat_tree_of_a_long_chat_is_read_whole() {
    // Each reply nested in the one before, as LibreChat's messagesTree holds a chat: 900
    // messages nest 1 800 levels deep, past serde_json's own 128. Parsed recursively, here in a
    // debug build whose frames are several times those of the release modules (their 8 MB
    // stack, `build.rs`, is what the imports e2e test reads such a file with).
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(long_librechat_tree)
        .unwrap()
        .join()
        .unwrap();
}

fn long_librechat_tree() {
    let n = 900;
    let mut text = String::from(r#"{"conversationId":"long","title":"Long","messagesTree":["#);
    for i in 0..n {
        let user = i % 2 == 0;
        text.push_str(&format!(
            r#"{{"messageId":"m{i}","isCreatedByUser":{user},"text":"message {i}","createdAt":"2026-12-01T00:00:00.000Z","children":["#
        ));
    }
    text.push_str(&"]}".repeat(n));
    text.push_str("]}");
    let incoming = read(&text).unwrap();
    assert_eq!(incoming.chats.len(), 1);
    let chat = &incoming.chats[0];
    assert_eq!(chat.messages.len(), n);
    assert_eq!(chat.path().len(), n, "one branch, root to the last reply");
    assert_eq!(
        chat.path().last().unwrap().content,
        format!("message {}", n - 1)
    );
}
