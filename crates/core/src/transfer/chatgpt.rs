//! ChatGPT's data export (`conversations.json`): an array of conversations, each a tree of
//! message nodes (`mapping`) whose branch on screen ends at `current_node`. Each conversation is
//! read on its own: one that cannot be read is skipped with its reason, the others come in.
//!
//! Every node with a message a reader sees becomes a Satori message whose parent is its nearest
//! such ancestor, so regenerated answers and edits stay as branches. Tool steps become tool
//! rounds as agent mode writes them: an assistant message addressed to a tool (`recipient` other
//! than `all`: `browser`, `python`, `web.run`…) is a reply with one tool call (name: the
//! recipient, arguments: its code, id `call_<node>`), and the tool's output that follows (author
//! `tool`: pages quoted, search results, code output) is the `tool` message answering it —
//! consecutive outputs of one call are one result. Citation markers (`【6†source】`, and the newer
//! `\u{e200}cite\u{e202}…\u{e201}`) become numbered links from the message's citations, or are
//! removed. Images and files become a placeholder naming them. Hidden messages, empty system
//! messages, the user's custom instructions and reasoning steps are left out (and counted). An
//! interrupted reply is incomplete. The chat opens at `current_node`, or at the newest leaf when
//! the export's `current_node` is not one of its nodes.
//!
//! Time is linear in the nodes (a few hash look-ups each; siblings sorted): a chain of hundreds
//! of thousands of hidden nodes is read in one walk. A conversation of a long file is read from
//! its text ([`Text::parse`]) without a JSON tree of its nodes.

use super::report::{placeholder, session, ChatReport, Read, Skipped};
use crate::session::{Message, Role, Status, ToolCall};
use serde_json::{Map, Value};
use std::borrow::Cow;
use std::collections::HashMap;

/// A tool's name as the servers take it (`^[a-zA-Z0-9_-]{1,64}$`): ChatGPT's recipients
/// (`web.run`, `dalle.text2im`) with every other character as `_`.
fn tool_name(recipient: &str) -> String {
    let name: String = recipient
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '_' | '-' => c,
            _ => '_',
        })
        .take(64)
        .collect();
    if name.is_empty() {
        "tool".into()
    } else {
        name
    }
}

/// A call's arguments as the servers take them, JSON: the call's text as it is when it is a
/// JSON object already, else that text under `code` (`search("…")`, Python).
fn arguments(text: &str) -> String {
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(_)) => text.to_string(),
        _ => serde_json::json!({ "code": text }).to_string(),
    }
}

/// Whether `value` looks like ChatGPT's `conversations.json`: a list in which some conversation
/// has a `mapping`.
pub fn looks_like(value: &Value) -> bool {
    value
        .as_array()
        .is_some_and(|a| a.iter().any(|c| c.get("mapping").is_some()))
}

/// Seconds since the epoch (ChatGPT writes them as floats) in milliseconds.
fn ms(v: Option<&Value>) -> Option<i64> {
    v.and_then(Value::as_f64)
        .filter(|s| s.is_finite() && (0.0..1e11).contains(s))
        .map(|s| (s * 1000.0) as i64)
}

fn str_at<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// What a node of the tree is to Satori.
enum Kind {
    /// Not shown; `counted` when something a reader could have seen is left out.
    Skip { counted: bool },
    /// A message: user, assistant (to `all`) or a non-empty system message.
    Say { role: Role, text: String },
    /// An assistant message addressed to the tool `name`, with `code`.
    Call { name: String, code: String },
    /// A tool's output.
    Output { text: String },
}

/// What one node's reading converted, added to the chat's report.
#[derive(Default)]
struct Counts {
    linked: usize,
    removed: usize,
    attachments: usize,
    /// The images the message shows, as lines wanting them from the export's `.zip`
    /// ([`super::archive::PENDING`]).
    images: Vec<String>,
}

/// The id of a file an `asset_pointer` names (`file-service://file-abc` → `file-abc`).
fn asset_id(pointer: &str) -> &str {
    pointer.rsplit("://").next().unwrap_or(pointer)
}

/// The text of a message's `content` with images and files as placeholders named from the
/// message's `attachments` (those not shown in the parts are added at the end).
fn text_of(content: &Value, meta: Option<&Value>, counts: &mut Counts) -> String {
    let names: Vec<(&str, &str, &str)> = meta
        .and_then(|m| m.get("attachments"))
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .filter_map(|a| {
            Some((
                str_at(a, "id")?,
                str_at(a, "name").unwrap_or_default(),
                str_at(a, "mime_type").unwrap_or_default(),
            ))
        })
        .collect();
    // By id, so a message of many parts and attachments costs no more than its length.
    let by_id: HashMap<&str, &str> = names.iter().rev().map(|(i, n, _)| (*i, *n)).collect();
    let mut shown: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut pieces: Vec<String> = Vec::new();
    match str_at(content, "content_type") {
        Some("tether_quote") => {
            let head: Vec<&str> = ["title", "url"]
                .iter()
                .filter_map(|k| str_at(content, k))
                .filter(|s| !s.trim().is_empty())
                .collect();
            pieces.push(head.join("\n"));
            pieces.push(str_at(content, "text").unwrap_or_default().to_string());
        }
        _ => {
            if let Some(parts) = content.get("parts").and_then(Value::as_array) {
                for p in parts {
                    pieces.push(match p {
                        Value::String(s) => s.clone(),
                        Value::Object(o) => match o.get("asset_pointer").and_then(Value::as_str) {
                            Some(pointer) => {
                                let id = asset_id(pointer);
                                shown.insert(id);
                                counts.attachments += 1;
                                let kind = o
                                    .get("content_type")
                                    .and_then(Value::as_str)
                                    .unwrap_or_default();
                                let kind = ["image", "audio", "video"]
                                    .into_iter()
                                    .find(|k| kind.contains(k))
                                    .unwrap_or("file");
                                let name = by_id.get(id).copied().unwrap_or(id);
                                if kind == "image" {
                                    let side = |k| {
                                        o.get(k)
                                            .and_then(Value::as_u64)
                                            .and_then(|n| u32::try_from(n).ok())
                                            .unwrap_or(0)
                                    };
                                    // (A pointer may carry a query: `sediment://file_…?shared…`.)
                                    let file = id.split('?').next().unwrap_or(id);
                                    counts.images.extend(super::archive::pending_line(
                                        file,
                                        side("width"),
                                        side("height"),
                                        name,
                                    ));
                                }
                                placeholder(kind, name)
                            }
                            None => match o.get("text").and_then(Value::as_str) {
                                Some(t) => t.to_string(),
                                None => {
                                    counts.attachments += 1;
                                    "[attachment]".to_string()
                                }
                            },
                        },
                        _ => String::new(),
                    });
                }
            } else {
                pieces.push(
                    ["text", "result"]
                        .iter()
                        .find_map(|k| str_at(content, k))
                        .unwrap_or_default()
                        .to_string(),
                );
            }
        }
    }
    for (id, name, mime) in &names {
        if !shown.contains(id) {
            counts.attachments += 1;
            let kind = if mime.starts_with("image/") {
                "image"
            } else {
                "file"
            };
            pieces.push(placeholder(kind, if name.is_empty() { id } else { name }));
        }
    }
    pieces
        .into_iter()
        .filter(|s| !s.trim().is_empty())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// Content types that are not a conversation's text: the user's custom instructions, memory,
/// reasoning steps.
const LEFT_OUT: &[&str] = &[
    "user_editable_context",
    "model_editable_context",
    "thoughts",
    "reasoning_recap",
];

/// What node `node` is, and its message's text (citations done).
fn classify(message: Option<&Value>, counts: &mut Counts) -> Kind {
    let Some(m) = message.filter(|m| m.is_object()) else {
        return Kind::Skip { counted: false };
    };
    let meta = m.get("metadata");
    let content = m.get("content").unwrap_or(&Value::Null);
    let hidden = meta
        .and_then(|x| x.get("is_visually_hidden_from_conversation"))
        .and_then(Value::as_bool)
        == Some(true);
    let kind = str_at(content, "content_type").unwrap_or_default();
    let role = m
        .get("author")
        .and_then(|a| a.get("role"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    if LEFT_OUT.contains(&kind) {
        return Kind::Skip { counted: true };
    }
    let text = text_of(content, meta, counts);
    if hidden {
        return Kind::Skip {
            counted: !text.trim().is_empty(),
        };
    }
    let recipient = str_at(m, "recipient").unwrap_or("all");
    match role {
        "assistant" if recipient != "all" => Kind::Call {
            name: tool_name(recipient),
            code: arguments(&text),
        },
        "tool" => Kind::Output { text },
        _ if text.trim().is_empty() => Kind::Skip { counted: false },
        "user" => Kind::Say {
            role: Role::User,
            text,
        },
        "system" => Kind::Say {
            role: Role::System,
            text,
        },
        "assistant" => {
            let (text, linked, removed) = super::cite::cite(&text, meta);
            counts.linked += linked;
            counts.removed += removed;
            Kind::Say {
                role: Role::Assistant,
                text,
            }
        }
        _ => Kind::Skip { counted: true },
    }
}

/// The conversations of a `conversations.json`: each read, or skipped with its reason.
pub fn read(value: &Value) -> Vec<Result<Read, Skipped>> {
    let list = value.as_array().map(Vec::as_slice).unwrap_or_default();
    list.iter().enumerate().map(|(i, c)| item(i, c)).collect()
}

/// Conversation `i` of a `conversations.json`, read or skipped with its reason.
pub fn item(i: usize, conv: &Value) -> Result<Read, Skipped> {
    let title = str_at(conv, "title").unwrap_or_default();
    match conv.as_object() {
        None => Err(Skipped::new(i, "", "not an object")),
        Some(c) => {
            let nodes: Option<Vec<Node>> = c.get("mapping").and_then(Value::as_object).map(|m| {
                m.iter()
                    .map(|(key, n)| Node {
                        key,
                        parent: str_at(n, "parent"),
                        message: n.get("message").filter(|m| m.is_object()),
                    })
                    .collect()
            });
            conversation(c, nodes.as_deref()).map_err(|reason| Skipped::new(i, title, reason))
        }
    }
}

/// One node of a conversation's `mapping`, as the walk reads it.
struct Node<'a> {
    /// Its key in the mapping (the message's id in Satori).
    key: &'a str,
    /// Its `parent`, when that is text.
    parent: Option<&'a str>,
    /// Its `message`, when that is an object.
    message: Option<&'a Value>,
}

/// A conversation of a `conversations.json` parsed from its text ([`Text::parse`]) for
/// [`Parsed::item`]: its `mapping` read node by node into what the walk needs (the parent, the
/// message; strings borrowed from the text), everything else as JSON. What it accepts and
/// rejects is what `serde_json::Value` accepts and rejects.
#[derive(Debug)]
pub struct Parsed<'a> {
    /// The conversation's fields but `mapping`.
    fields: Map<String, Value>,
    /// Its `mapping`: the nodes in the file's order (a repeated key: the last one stands), or
    /// `None` when it is not an object.
    mapping: Option<Option<Vec<Entry<'a>>>>,
}

/// One node of a parsed `mapping`.
#[derive(Debug)]
struct Entry<'a> {
    key: Cow<'a, str>,
    parent: Option<Cow<'a, str>>,
    message: Option<Value>,
}

/// What a conversation's text is.
#[derive(Debug)]
pub enum Text<'a> {
    /// An object with a `mapping`: ChatGPT's.
    ChatGpt(Parsed<'a>),
    /// Anything else, as JSON.
    Other(Value),
}

impl<'a> Text<'a> {
    /// `text` (one conversation of a list) parsed; an error where `serde_json::Value` has one.
    pub fn parse(text: &'a str) -> Result<Self, serde_json::Error> {
        if !text.starts_with('{') {
            return serde_json::from_str(text).map(Text::Other);
        }
        let parsed: Parsed = serde_json::from_str(text)?;
        Ok(match parsed.mapping {
            Some(_) => Text::ChatGpt(parsed),
            None => Text::Other(Value::Object(parsed.fields)),
        })
    }
}

impl Parsed<'_> {
    /// This conversation (the `i`th of its file), read or skipped with its reason: as [`item`]
    /// reads the same JSON.
    pub fn item(&self, i: usize) -> Result<Read, Skipped> {
        let title = self
            .fields
            .get("title")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let nodes: Option<Vec<Node>> = self.mapping.as_ref().and_then(Option::as_ref).map(|m| {
            m.iter()
                .map(|e| Node {
                    key: &e.key,
                    parent: e.parent.as_deref(),
                    message: e.message.as_ref(),
                })
                .collect()
        });
        conversation(&self.fields, nodes.as_deref())
            .map_err(|reason| Skipped::new(i, title, reason))
    }
}

/// Where the walk down the tree is (nodes by their place in the mapping): the message new ones
/// follow, and the open tool call.
#[derive(Clone, Copy, Default)]
struct At {
    parent: Option<usize>,
    /// The node of the call, and the place in the messages of its result once written.
    call: Option<(usize, Option<usize>)>,
}

/// A node's message as Satori writes it: `role`, `text`, following `parent`.
fn message(
    key: &str,
    parent: Option<&str>,
    role: Role,
    text: String,
    m: Option<&Value>,
    created: i64,
) -> Message {
    let time = ms(m.and_then(|m| m.get("create_time"))).unwrap_or(created);
    let mut msg = Message::new(
        key.to_string(),
        parent.map(str::to_string),
        role,
        text,
        time,
    );
    if role == Role::Assistant {
        let meta = m.and_then(|m| m.get("metadata"));
        msg.model = meta
            .and_then(|x| x.get("model_slug"))
            .and_then(Value::as_str)
            .map(str::to_string);
        let interrupted = m.is_some_and(|m| str_at(m, "status") == Some("in_progress"))
            || meta
                .and_then(|x| x.get("finish_details"))
                .and_then(|f| f.get("type"))
                .and_then(Value::as_str)
                == Some("interrupted");
        if interrupted {
            msg.status = Status::Incomplete;
        }
    }
    msg
}

/// The tree of `nodes` by their parent links: each node's children and the roots (a node whose
/// parent is not a node is one), in the order of their keys — the order a JSON object of the
/// whole file lists them in, so the walk meets them in the same order however the conversation
/// was read. A repeated key's earlier nodes are left out. One hash look-up per node and per
/// parent link (`by_key`: each key's node), siblings sorted only where there are several.
struct Tree {
    /// The children of node `i`: `kids[starts[i]..starts[i + 1]]`.
    starts: Vec<usize>,
    kids: Vec<usize>,
    roots: Vec<usize>,
    /// Nodes in the tree (all but the repeated keys' earlier ones).
    count: usize,
}

impl Tree {
    fn new<'a>(nodes: &[Node<'a>], by_key: &mut HashMap<&'a str, usize>) -> Tree {
        let n = nodes.len();
        by_key.reserve(n);
        let mut gone = vec![false; n];
        for (i, node) in nodes.iter().enumerate() {
            if let Some(j) = by_key.insert(node.key, i) {
                gone[j] = true;
            }
        }
        const ROOT: usize = usize::MAX;
        let mut parent = vec![ROOT; n];
        let mut starts = vec![0usize; n + 1];
        let mut roots = Vec::new();
        for (i, node) in nodes.iter().enumerate() {
            if gone[i] {
                continue;
            }
            match node.parent.and_then(|p| by_key.get(p)) {
                Some(&p) => {
                    parent[i] = p;
                    starts[p + 1] += 1;
                }
                None => roots.push(i),
            }
        }
        for i in 0..n {
            starts[i + 1] += starts[i];
        }
        let mut fill = starts.clone();
        let mut kids = vec![0usize; starts[n]];
        for (i, &p) in parent.iter().enumerate() {
            if p != ROOT {
                kids[fill[p]] = i;
                fill[p] += 1;
            }
        }
        let by_name = |a: &usize, b: &usize| nodes[*a].key.cmp(nodes[*b].key);
        for i in 0..n {
            let siblings = &mut kids[starts[i]..starts[i + 1]];
            if siblings.len() > 1 {
                siblings.sort_unstable_by(by_name);
            }
        }
        roots.sort_unstable_by(by_name);
        Tree {
            starts,
            kids,
            roots,
            count: n - gone.iter().filter(|g| **g).count(),
        }
    }

    fn children(&self, i: usize) -> &[usize] {
        &self.kids[self.starts[i]..self.starts[i + 1]]
    }
}

fn conversation(conv: &Map<String, Value>, nodes: Option<&[Node]>) -> Result<Read, String> {
    let nodes = nodes.ok_or("mapping: missing, or not an object")?;
    let id = ["conversation_id", "id"]
        .iter()
        .find_map(|k| conv.get(*k).and_then(Value::as_str))
        .filter(|s| !s.trim().is_empty())
        .ok_or("conversation_id: missing")?;
    let title = conv
        .get("title")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .trim()
        .to_string();
    let created = ms(conv.get("create_time")).unwrap_or(0);
    let updated = ms(conv.get("update_time")).unwrap_or(created);
    let mut by_key = HashMap::new();
    let tree = Tree::new(nodes, &mut by_key);
    let mut report = ChatReport {
        chat: format!("chatgpt-{id}"),
        title: title.clone(),
        ..ChatReport::default()
    };
    let mut messages: Vec<Message> = Vec::new();
    // The nearest message at or above each node.
    let mut shown_at: Vec<Option<usize>> = vec![None; nodes.len()];
    let mut stack: Vec<(usize, At)> = tree
        .roots
        .iter()
        .rev()
        .map(|r| (*r, At::default()))
        .collect();
    let mut visited = 0usize;
    while let Some((i, at)) = stack.pop() {
        visited += 1;
        let node = &nodes[i];
        let key = node.key;
        let parent = at.parent.map(|p| nodes[p].key);
        let m = node.message;
        let mut counts = Counts::default();
        let next = match classify(m, &mut counts) {
            Kind::Skip { counted } => {
                report.left_out += usize::from(counted);
                at
            }
            Kind::Say { role, text } => {
                report.attachments += counts.attachments;
                report.citations_linked += counts.linked;
                report.citations_removed += counts.removed;
                let mut msg = message(key, parent, role, text, m, created);
                if role == Role::User {
                    msg.attachments = counts.images.join("\n");
                }
                report.incomplete += usize::from(msg.status == Status::Incomplete);
                messages.push(msg);
                At {
                    parent: Some(i),
                    call: None,
                }
            }
            Kind::Call { name, code } => {
                let mut msg = message(key, parent, Role::Assistant, String::new(), m, created);
                msg.tool_calls = vec![ToolCall {
                    index: 0,
                    id: format!("call_{key}"),
                    name,
                    arguments: code,
                }];
                report.incomplete += usize::from(msg.status == Status::Incomplete);
                messages.push(msg);
                report.tool_calls += 1;
                At {
                    parent: Some(i),
                    call: Some((i, None)),
                }
            }
            Kind::Output { text } => match at.call {
                // Output with no call before it answers nothing: left out.
                None => {
                    report.left_out += 1;
                    at
                }
                // More output of the same call: one result.
                Some((_, Some(result))) => {
                    let m = &mut messages[result];
                    if !text.trim().is_empty() {
                        if !m.content.is_empty() {
                            m.content.push_str("\n\n");
                        }
                        m.content.push_str(&text);
                    }
                    report.attachments += counts.attachments;
                    at
                }
                Some((call, None)) => {
                    let mut msg = message(key, parent, Role::Tool, text, m, created);
                    msg.tool_call_id = Some(format!("call_{}", nodes[call].key));
                    messages.push(msg);
                    report.tool_results += 1;
                    report.attachments += counts.attachments;
                    At {
                        parent: Some(i),
                        call: Some((call, Some(messages.len() - 1))),
                    }
                }
            },
        };
        shown_at[i] = next.parent;
        for k in tree.children(i).iter().rev() {
            stack.push((*k, next));
        }
    }
    if visited < tree.count {
        return Err("the parent links go round in a circle".into());
    }
    messages.sort_by(|a, b| a.created_at.cmp(&b.created_at).then(a.id.cmp(&b.id)));
    let leaf = conv
        .get("current_node")
        .and_then(Value::as_str)
        .and_then(|n| by_key.get(n))
        .and_then(|i| shown_at[*i])
        .map(|i| nodes[i].key.to_string());
    let chat = session(
        format!("chatgpt-{id}"),
        title,
        created,
        updated,
        messages,
        leaf,
    );
    Ok((chat, report))
}

/// The parsing of a conversation's text into [`Parsed`]: serde visitors that keep what the
/// walk reads and check the rest as `serde_json::Value` would (strings decoded, numbers parsed),
/// without building it.
mod de {
    use super::{Entry, Parsed};
    use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
    use serde_json::{Map, Value};
    use std::borrow::Cow;
    use std::fmt;

    /// A visitor's answer `$v` to every JSON value its own methods do not take (lists and
    /// objects read through and dropped), `$($more)*` being those methods.
    macro_rules! any_value {
        ($name:ident -> $t:ty = $v:expr; $($more:tt)*) => {
            struct $name;
            impl<'de> Visitor<'de> for $name {
                type Value = $t;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("any JSON value")
                }
                fn visit_bool<E>(self, _: bool) -> Result<$t, E> {
                    Ok($v)
                }
                fn visit_i64<E>(self, _: i64) -> Result<$t, E> {
                    Ok($v)
                }
                fn visit_u64<E>(self, _: u64) -> Result<$t, E> {
                    Ok($v)
                }
                fn visit_f64<E>(self, _: f64) -> Result<$t, E> {
                    Ok($v)
                }
                fn visit_unit<E>(self) -> Result<$t, E> {
                    Ok($v)
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<$t, A::Error> {
                    while a.next_element::<Skip>()?.is_some() {}
                    Ok($v)
                }
                $($more)*
            }
        };
    }

    /// Any JSON, read and dropped.
    struct Skip;

    any_value! { SkipV -> () = ();
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<(), A::Error> {
            while a.next_entry::<Skip, Skip>()?.is_some() {}
            Ok(())
        }
    }

    impl<'de> Deserialize<'de> for Skip {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(SkipV).map(|()| Skip)
        }
    }

    /// A string, borrowed from the text when it can be; anything else is `None`.
    struct Str<'de>(Option<Cow<'de, str>>);

    any_value! { StrV -> Option<Cow<'de, str>> = None;
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_string())))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<Skip, Skip>()?.is_some() {}
            Ok(None)
        }
    }

    impl<'de> Deserialize<'de> for Str<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(StrV).map(Str)
        }
    }

    /// A mapping's node: its `parent` when it is text, its `message` when it is an object (the
    /// last of each when repeated, as for JSON); anything but an object is a node with neither.
    struct NodeOf<'de>(Option<Cow<'de, str>>, Option<Value>);

    any_value! { NodeV -> NodeOf<'de> = NodeOf(None, None);
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(NodeOf(None, None))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut node = NodeOf(None, None);
            while let Some(Str(key)) = a.next_key()? {
                match key.as_deref() {
                    Some("parent") => node.0 = a.next_value::<Str>()?.0,
                    Some("message") => {
                        node.1 = Some(a.next_value::<Value>()?).filter(Value::is_object)
                    }
                    _ => {
                        a.next_value::<Skip>()?;
                    }
                }
            }
            Ok(node)
        }
    }

    impl<'de> Deserialize<'de> for NodeOf<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(NodeV)
        }
    }

    /// A `mapping`: its nodes in the file's order when it is an object.
    struct Mapping<'de>(Option<Vec<Entry<'de>>>);

    any_value! { MappingV -> Mapping<'de> = Mapping(None);
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Mapping(None))
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut nodes = Vec::with_capacity(a.size_hint().unwrap_or(0));
            while let Some(Str(key)) = a.next_key()? {
                let NodeOf(parent, message) = a.next_value()?;
                nodes.push(Entry {
                    key: key.unwrap_or_default(),
                    parent,
                    message,
                });
            }
            Ok(Mapping(Some(nodes)))
        }
    }

    impl<'de> Deserialize<'de> for Mapping<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(MappingV)
        }
    }

    /// A conversation: an object, its `mapping` read as [`Mapping`], the rest as JSON.
    struct ParsedV;

    impl<'de> Visitor<'de> for ParsedV {
        type Value = Parsed<'de>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("an object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut parsed = Parsed {
                fields: Map::new(),
                mapping: None,
            };
            while let Some(key) = a.next_key::<String>()? {
                if key == "mapping" {
                    parsed.mapping = Some(a.next_value::<Mapping>()?.0);
                } else {
                    parsed.fields.insert(key, a.next_value()?);
                }
            }
            Ok(parsed)
        }
    }

    impl<'de> Deserialize<'de> for Parsed<'de> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(ParsedV)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{arguments, tool_name};

    #[test]
    fn tool_calls_go_out_as_servers_take_them() {
        for (recipient, name) in [
            ("browser", "browser"),
            ("web.run", "web_run"),
            ("dalle.text2im", "dalle_text2im"),
            ("canmore.create_textdoc", "canmore_create_textdoc"),
            ("python", "python"),
            ("", "tool"),
            ("工具", "__"),
        ] {
            assert_eq!(tool_name(recipient), name, "{recipient}");
        }
        assert_eq!(tool_name(&"a".repeat(80)).len(), 64);
        for (text, json) in [
            (r#"{"query":"x"}"#, r#"{"query":"x"}"#),
            ("search(\"x\")", r#"{"code":"search(\"x\")"}"#),
            ("[1, 2]", r#"{"code":"[1, 2]"}"#),
            ("", r#"{"code":""}"#),
        ] {
            assert_eq!(arguments(text), json, "{text}");
        }
    }
}
