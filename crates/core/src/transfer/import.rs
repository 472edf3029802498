//! Reading a file to import: limits, JSON, the format and its version, the schema (errors name
//! the path: `chats[3].messages[12].role: …`), then the chats' own consistency — all before
//! anything is written. Then [`plan`] decides what merging it means: nothing is overwritten.

use super::format::{self, Chat, File};
use super::report::Read;
use crate::prompts::user::{UserPrompts, UserTemplate};
use crate::session::Session;
use serde_json::Value;
use std::collections::{HashMap, HashSet};

pub use super::error::{ImportError, MAX_BYTES, MAX_DEPTH};
pub use super::report::{skipped_sentence, ChatReport, Skipped};

fn schema(path: impl Into<String>, problem: impl Into<String>) -> ImportError {
    ImportError::Schema {
        path: path.into(),
        problem: problem.into(),
    }
}

/// What a valid file holds.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Incoming {
    /// The chats, checked.
    pub chats: Vec<Session>,
    /// Prompt templates in the file.
    pub templates: Vec<UserTemplate>,
    /// Whether the file carried settings (they are not applied).
    pub settings: bool,
    /// Damaged records the file carries as text (never imported).
    pub damaged: usize,
    /// What else the preview says (parts of an export that are missing, files not read).
    pub notes: Vec<String>,
    /// Conversations of another app's export that could not be read (the others were): each
    /// named, with the reason ([`skipped_sentence`] says them in one sentence).
    pub skipped: Vec<Skipped>,
    /// What was converted on the way in, for each chat of another app's export where anything
    /// was ([`ChatReport::sentence`]), keyed by the chat's id.
    pub reports: Vec<ChatReport>,
}

/// `text` (a whole file) as JSON, within the limits: size, emptiness, syntax and nesting.
pub fn parse(text: &str) -> Result<Value, ImportError> {
    if text.len() > MAX_BYTES {
        return Err(ImportError::TooLarge {
            bytes: text.len(),
            limit: MAX_BYTES,
        });
    }
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    if text.trim().is_empty() {
        return Err(ImportError::Empty);
    }
    if let Some((line, column)) = deeper_than(text, MAX_DEPTH) {
        return Err(ImportError::TooDeep { line, column });
    }
    // Within the limit (checked above, without recursion): serde_json's own limit of 128 is
    // lifted, as a LibreChat export's tree of a long chat nests deeper.
    let mut reader = serde_json::Deserializer::from_str(text);
    reader.disable_recursion_limit();
    let value = serde::Deserialize::deserialize(&mut reader).and_then(|v: Value| {
        reader.end()?;
        Ok(v)
    });
    value.map_err(|e| {
        let (line, column) = (e.line(), e.column());
        let message = e.to_string();
        let message = match message.rfind(" at line ") {
            Some(i) => message[..i].to_string(),
            None => message,
        };
        ImportError::Syntax {
            message,
            line,
            column,
        }
    })
}

/// Where `text` (JSON) first nests deeper than `limit` arrays and objects (line and column,
/// from 1), if it does; brackets inside strings do not count. One pass, no recursion.
pub fn deeper_than(text: &str, limit: usize) -> Option<(usize, usize)> {
    let (mut depth, mut line, mut column) = (0usize, 1usize, 0usize);
    let (mut in_string, mut escaped) = (false, false);
    for c in text.chars() {
        column += 1;
        match c {
            '\n' => {
                line += 1;
                column = 0;
            }
            _ if in_string => match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            },
            '"' => in_string = true,
            '[' | '{' => {
                depth += 1;
                if depth > limit {
                    return Some((line, column));
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// Read `text` (a whole file) into what it holds, or say precisely why not.
pub fn read(text: &str) -> Result<Incoming, ImportError> {
    let value = parse(text)?;
    if super::chatgpt::looks_like(&value) {
        return gathered(super::chatgpt::read(&value), "ChatGPT's export");
    }
    if super::claude::looks_like(&value) {
        return gathered(super::claude::read(&value), "Claude's export");
    }
    if super::openwebui::looks_like(&value) {
        return gathered(super::openwebui::read(&value), "an Open WebUI export");
    }
    if super::librechat::looks_like(&value) {
        return gathered(
            vec![Ok(super::librechat::read(&value)?)],
            "a LibreChat export",
        );
    }
    if let Some(app) = super::apps::recognise(&value) {
        let results = super::apps::read(app, &value)?
            .into_iter()
            .map(|r| {
                r.map(|chat| {
                    let report = ChatReport {
                        chat: chat.id.clone(),
                        title: chat.title.clone(),
                        ..ChatReport::default()
                    };
                    (chat, report)
                })
            })
            .collect();
        let mut incoming = gathered(results, app.what())?;
        // NextChat's backup also holds its settings and API keys: never read, never applied.
        incoming.settings = ["app-config", "access-control"]
            .iter()
            .any(|k| value.get(*k).is_some());
        return Ok(incoming);
    }
    let top = match &value {
        Value::Object(top) => top,
        Value::Array(list) if list.is_empty() => {
            return Err(ImportError::UnknownFormat("it is an empty list".into()))
        }
        Value::Array(_) => {
            return Err(ImportError::UnknownFormat(
                "it is a list, but not of ChatGPT, Claude or Open WebUI chats: none of its items has a `mapping`, `chat_messages` or `chat.history`".into(),
            ))
        }
        _ => {
            return Err(ImportError::UnknownFormat(format!(
                "its top level is {}, not an object",
                kind(&value)
            )))
        }
    };
    match top.get("format") {
        Some(Value::String(f)) if f == format::FORMAT => {}
        Some(Value::String(f)) => {
            return Err(ImportError::UnknownFormat(format!(
                "its format is {:?}",
                f.chars().take(40).collect::<String>()
            )))
        }
        _ => {
            return Err(ImportError::UnknownFormat(
                "it has no \"format\" field".into(),
            ))
        }
    }
    match top.get("version").and_then(Value::as_u64) {
        Some(v) if v > u64::from(format::VERSION) => {
            return Err(ImportError::NewerVersion {
                found: v,
                supported: format::VERSION,
            })
        }
        Some(0) => return Err(schema("version", "must be 1 or more")),
        Some(_) => {}
        None => return Err(schema("version", "missing, or not a whole number")),
    }
    let file: File = serde_path_to_error::deserialize(&value).map_err(|e| {
        let path = e.path().to_string();
        schema(
            if path == "." {
                "file".to_string()
            } else {
                path
            },
            e.into_inner().to_string(),
        )
    })?;
    let templates = file
        .prompts
        .map(|p| p.templates)
        .unwrap_or_default()
        .into_iter()
        .enumerate()
        .map(|(i, t)| reread(i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let chats = file.chats.into_iter().map(Session::from).collect();
    let damaged = file.unreadable.len();
    checked(chats, templates, file.settings.is_some()).map(|i| Incoming { damaged, ..i })
}

/// Template `i` of a file read again from its YAML source, as the Prompts dialog reads what
/// the user types: it must be one valid template under the key the file gives it. The file's
/// own copy of the parsed template is never trusted.
fn reread(i: usize, t: UserTemplate) -> Result<UserTemplate, ImportError> {
    let at = format!("prompts.templates[{i}]");
    if t.template.key.trim().is_empty() {
        return Err(schema(format!("{at}.template.key"), "empty"));
    }
    let file = format!("{at}.source");
    let fragments = &crate::prompts::builtin().fragments;
    match crate::prompts::user::read_yaml(&file, &t.source, true, fragments) {
        crate::prompts::user::YamlAnswer::Errors(d) => Err(schema(
            file,
            d.first()
                .map_or_else(|| "not a valid template".into(), |d| d.in_words()),
        )),
        crate::prompts::user::YamlAnswer::Ok(mut list) => match list.pop() {
            Some(read) if list.is_empty() && read.template.key == t.template.key => Ok(read),
            Some(read) if list.is_empty() => Err(schema(
                file,
                format!(
                    "it defines the template {:?}, not {:?}",
                    short(&read.template.key),
                    short(&t.template.key)
                ),
            )),
            _ => Err(schema(file, "it must define exactly one template")),
        },
    }
}

/// Chats read from any format, checked like Satori's own (ids present and unique, parents,
/// leaf and summaries inside their chat, no cycles), with the templates of the file.
pub(super) fn checked(
    chats: Vec<Session>,
    templates: Vec<UserTemplate>,
    settings: bool,
) -> Result<Incoming, ImportError> {
    let mut ids = HashSet::new();
    for (i, s) in chats.iter().enumerate() {
        check_chat(&Chat::from(s), &format!("chats[{i}]"))?;
        if !ids.insert(s.id.as_str()) {
            return Err(schema(
                format!("chats[{i}].id"),
                format!("the chat id {:?} appears twice in the file", short(&s.id)),
            ));
        }
    }
    Ok(Incoming {
        chats,
        templates,
        settings,
        ..Incoming::default()
    })
}

/// The conversations of another app's export (`what`: `ChatGPT's export`), each read or skipped
/// by its reader, checked one by one like Satori's own: a chat that fails the check, or whose
/// id came before, is skipped too. Refused whole only when not one chat can be read.
pub(super) fn gathered(
    results: Vec<Result<Read, Skipped>>,
    what: &str,
) -> Result<Incoming, ImportError> {
    let mut gather = Gather::default();
    let mut incoming = Incoming::default();
    for r in results {
        if let Some((chat, report)) = gather.take(r) {
            if !report.is_empty() {
                incoming.reports.push(report);
            }
            incoming.chats.push(chat);
        }
    }
    incoming.skipped = gather.finish(what)?;
    Ok(incoming)
}

/// [`gathered`] one conversation at a time, as a reader of a long file meets them: what it
/// lets through is checked, and a conversation skipped is kept with its reason.
#[derive(Debug, Default)]
pub struct Gather {
    seen: usize,
    taken: usize,
    ids: HashSet<String>,
    skipped: Vec<Skipped>,
}

impl Gather {
    /// The next conversation as its reader read it: the chat and its report when it can come
    /// in, else `None` (it is kept as skipped, with the reason).
    pub fn take(&mut self, r: Result<Read, Skipped>) -> Option<Read> {
        let i = self.seen;
        self.seen += 1;
        let (chat, report) = match r {
            Ok(read) => read,
            Err(s) => {
                self.skipped.push(s);
                return None;
            }
        };
        if let Err(e) = check_chat(&Chat::from(&chat), "chat") {
            let reason = e.to_string();
            let reason = reason.strip_prefix("chat.").unwrap_or(&reason);
            self.skipped
                .push(Skipped::new(i, &chat.title, reason.to_string()));
            return None;
        }
        if !self.ids.insert(chat.id.clone()) {
            self.skipped.push(Skipped::new(
                i,
                &chat.title,
                format!(
                    "the chat id {:?} appears twice in the file",
                    short(&chat.id)
                ),
            ));
            return None;
        }
        self.taken += 1;
        Some((chat, report))
    }

    /// The conversations skipped, or the file refused (`what` it is) when not one could be read.
    pub fn finish(self, what: &str) -> Result<Vec<Skipped>, ImportError> {
        match self.skipped.first() {
            Some(first) if self.taken == 0 => Err(ImportError::NoneReadable {
                what: what.to_string(),
                count: self.seen,
                first: format!("\"{}\": {}", first.name, first.reason),
            }),
            _ => Ok(self.skipped),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn short(id: &str) -> String {
    id.chars().take(40).collect()
}

/// A chat's own consistency: ids present and unique, every parent, leaf and summary pointing at
/// a message of the chat, no cycle in the parent links.
fn check_chat(chat: &Chat, at: &str) -> Result<(), ImportError> {
    if chat.id.trim().is_empty() {
        return Err(schema(format!("{at}.id"), "empty"));
    }
    let mut index: HashMap<&str, usize> = HashMap::new();
    for (i, m) in chat.messages.iter().enumerate() {
        if m.id.is_empty() {
            return Err(schema(format!("{at}.messages[{i}].id"), "empty"));
        }
        if index.insert(m.id.as_str(), i).is_some() {
            return Err(schema(
                format!("{at}.messages[{i}].id"),
                format!(
                    "the message id {:?} appears twice in this chat",
                    short(&m.id)
                ),
            ));
        }
    }
    for (i, m) in chat.messages.iter().enumerate() {
        if let Some(p) = &m.parent {
            if !index.contains_key(p.as_str()) {
                return Err(schema(
                    format!("{at}.messages[{i}].parent"),
                    format!("no message {:?} in this chat", short(p)),
                ));
            }
        }
    }
    // Follow each message's parents, marking each message once: meeting a message of the
    // current walk again is a cycle. Linear in the number of messages.
    const NEW: u8 = 0;
    const WALKING: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; chat.messages.len()];
    for start in 0..chat.messages.len() {
        let mut walk = Vec::new();
        let mut at_i = Some(start);
        while let Some(i) = at_i {
            match state[i] {
                DONE => break,
                WALKING => {
                    return Err(schema(
                        format!("{at}.messages[{start}].parent"),
                        "the parent links go round in a circle",
                    ))
                }
                _ => {}
            }
            state[i] = WALKING;
            walk.push(i);
            at_i = chat.messages[i]
                .parent
                .as_deref()
                .and_then(|p| index.get(p).copied());
        }
        for i in walk {
            state[i] = DONE;
        }
    }
    if let Some(leaf) = &chat.leaf {
        if !index.contains_key(leaf.as_str()) {
            return Err(schema(
                format!("{at}.leaf"),
                format!("no message {:?} in this chat", short(leaf)),
            ));
        }
    }
    for (i, s) in chat.summaries.iter().enumerate() {
        if !index.contains_key(s.through.as_str()) {
            return Err(schema(
                format!("{at}.summaries[{i}].through"),
                format!("no message {:?} in this chat", short(&s.through)),
            ));
        }
    }
    Ok(())
}

/// What an import will do.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// Chats to add (copies already carry their new ids).
    pub add: Vec<Session>,
    /// Titles of chats skipped because an identical one is already there.
    pub identical: Vec<String>,
    /// The new ids of the chats in `add` that are copies (their id was taken by a different chat).
    pub copies: Vec<String>,
    /// Templates to add.
    pub templates: Vec<UserTemplate>,
    /// Keys of templates skipped: identical ones, and ones whose key is taken by a different
    /// template (yours is kept).
    pub templates_skipped: Vec<String>,
    /// Whether the file carried settings (never applied).
    pub settings_ignored: bool,
    /// Damaged records the file carries as text, not imported.
    pub damaged: usize,
    /// What else the preview says ([`Incoming::notes`]).
    pub notes: Vec<String>,
    /// Conversations of the file that could not be read ([`Incoming::skipped`]).
    pub skipped: Vec<Skipped>,
    /// What was converted in the chats to add ([`Incoming::reports`]; a copy's report carries
    /// its new id).
    pub reports: Vec<ChatReport>,
}

impl Plan {
    /// Messages in the chats to add.
    pub fn messages(&self) -> usize {
        self.add.iter().map(|s| s.messages.len()).sum()
    }

    /// Whether it writes anything.
    pub fn is_empty(&self) -> bool {
        self.add.is_empty() && self.templates.is_empty()
    }

    /// One sentence for the preview and the report: "5 chats (212 messages) to import, 2
    /// skipped as identical, 1 as a copy".
    pub fn summary(&self, done: bool) -> String {
        let mut out = self.summary_head(done);
        if let Some(skipped) = skipped_sentence(&self.skipped) {
            out.push_str("; ");
            out.push_str(&skipped);
        }
        out.push('.');
        out
    }

    /// [`Plan::summary`] up to the conversations skipped ([`Plan::skipped`], which the preview
    /// draws in pieces, each translated alone), without its full stop.
    pub fn summary_head(&self, done: bool) -> String {
        let n = self.add.len();
        let mut out = if done {
            format!("Imported {n} {}", plural(n, "chat", "chats"))
        } else {
            format!("{n} {} to import", plural(n, "chat", "chats"))
        };
        if n > 0 {
            let m = self.messages();
            out.push_str(&format!(" ({m} {})", plural(m, "message", "messages")));
        }
        if !self.identical.is_empty() {
            out.push_str(&format!(", {} skipped as identical", self.identical.len()));
        }
        if !self.copies.is_empty() {
            let c = self.copies.len();
            out.push_str(&format!(
                ", {c} as {} (the id was taken)",
                plural(c, "a copy", "copies")
            ));
        }
        if !self.templates.is_empty() {
            let t = self.templates.len();
            out.push_str(&format!(
                ", {t} prompt {}",
                plural(t, "template", "templates")
            ));
        }
        if !self.templates_skipped.is_empty() {
            out.push_str(&format!(
                ", {} prompt {} skipped (identical or the key is taken)",
                self.templates_skipped.len(),
                plural(self.templates_skipped.len(), "template", "templates")
            ));
        }
        if self.settings_ignored {
            out.push_str("; the file's settings were not applied");
        }
        if self.damaged > 0 {
            out.push_str(&format!(
                "; {} damaged chat {} in the file, kept there as text, cannot be imported",
                self.damaged,
                plural(self.damaged, "record", "records")
            ));
        }
        for note in &self.notes {
            out.push_str("; ");
            out.push_str(note);
        }
        out
    }

    /// Per chat to add whose import converted something: its name and what was converted
    /// ([`ChatReport::named`], [`ChatReport::parts`]).
    pub fn report_parts(&self) -> Vec<(String, Vec<String>)> {
        self.reports
            .iter()
            .filter(|r| !r.is_empty())
            .map(|r| (r.named(), r.parts()))
            .collect()
    }

    /// One sentence per chat to add whose import converted something ([`ChatReport::sentence`]).
    pub fn report_lines(&self) -> Vec<String> {
        self.reports
            .iter()
            .filter_map(ChatReport::sentence)
            .collect()
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

/// A chat's content without its id: what "identical" compares.
pub fn fingerprint(session: &Session) -> String {
    let mut chat = Chat::from(session);
    chat.id = String::new();
    chat.updated_at = 0;
    // Not the files: an export read again names its images as it did the first time
    // (`archive::PENDING`), which the chat imported then keeps as attachments.
    for m in &mut chat.messages {
        m.attachments.clear();
    }
    serde_json::to_string(&chat).unwrap_or_default()
}

/// What a file holds besides its chats: all of [`Incoming`] but `chats` and `reports` (which
/// a reader of a long file hands over as it goes).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Rest {
    /// [`Incoming::templates`].
    pub templates: Vec<UserTemplate>,
    /// [`Incoming::settings`].
    pub settings: bool,
    /// [`Incoming::damaged`].
    pub damaged: usize,
    /// [`Incoming::notes`].
    pub notes: Vec<String>,
    /// [`Incoming::skipped`].
    pub skipped: Vec<Skipped>,
}

impl Incoming {
    /// The chats, each with its report (if anything was converted), and the rest.
    pub fn split(self) -> (Vec<(Session, Option<ChatReport>)>, Rest) {
        let mut reports: HashMap<String, ChatReport> = self
            .reports
            .into_iter()
            .map(|r| (r.chat.clone(), r))
            .collect();
        let chats = self
            .chats
            .into_iter()
            .map(|c| {
                let r = reports.remove(&c.id);
                (c, r)
            })
            .collect();
        let rest = Rest {
            templates: self.templates,
            settings: self.settings,
            damaged: self.damaged,
            notes: self.notes,
            skipped: self.skipped,
        };
        (chats, rest)
    }
}

/// Merge `incoming` into what is there (`existing` chats, the ids of stored chats that could not
/// be read in `taken`, `prompts`): a chat identical in
/// content to one already there (under any id) is skipped; one whose id is taken by a different
/// chat comes in as a copy with an id from `new_id`; templates are added only under keys not
/// taken. Importing the same file twice adds nothing the second time.
pub fn plan(
    existing: &[Session],
    taken: &[String],
    prompts: &UserPrompts,
    incoming: Incoming,
    mut new_id: impl FnMut() -> String,
) -> Plan {
    let mut planner = Planner::new(existing, taken);
    let (chats, rest) = incoming.split();
    for (chat, report) in chats {
        planner.take(chat, report, &mut new_id);
    }
    planner.finish(prompts, rest)
}

/// [`plan`] one chat at a time, as the chats of a long file arrive.
#[derive(Debug)]
pub struct Planner {
    ids: HashSet<String>,
    prints: HashSet<String>,
    plan: Plan,
}

impl Planner {
    /// A merge into `existing` chats and the ids of stored chats that could not be read
    /// (`taken`).
    pub fn new(existing: &[Session], taken: &[String]) -> Self {
        Planner {
            ids: existing
                .iter()
                .map(|s| s.id.clone())
                .chain(taken.iter().cloned())
                .collect(),
            prints: existing.iter().map(fingerprint).collect(),
            plan: Plan {
                add: Vec::new(),
                identical: Vec::new(),
                copies: Vec::new(),
                templates: Vec::new(),
                templates_skipped: Vec::new(),
                settings_ignored: false,
                damaged: 0,
                notes: Vec::new(),
                skipped: Vec::new(),
                reports: Vec::new(),
            },
        }
    }

    /// The chats taken so far (to add, or skipped as identical).
    pub fn chats(&self) -> usize {
        self.plan.add.len() + self.plan.identical.len()
    }

    /// The next chat of the file, with what its import converted.
    pub fn take(
        &mut self,
        mut chat: Session,
        report: Option<ChatReport>,
        new_id: &mut impl FnMut() -> String,
    ) {
        let plan = &mut self.plan;
        if !self.prints.insert(fingerprint(&chat)) {
            plan.identical.push(chat.display_title().to_string());
            return;
        }
        if self.ids.contains(&chat.id) {
            chat.id = loop {
                let id = new_id();
                if !self.ids.contains(&id) {
                    break id;
                }
            };
            plan.copies.push(chat.id.clone());
        }
        if let Some(mut r) = report {
            r.chat = chat.id.clone();
            plan.reports.push(r);
        }
        self.ids.insert(chat.id.clone());
        // Its text is not the user's own: agent mode treats it as untrusted.
        chat.foreign = true;
        plan.add.push(chat);
    }

    /// The plan, with the file's `rest` (its templates added only under keys `prompts` does
    /// not use).
    pub fn finish(self, prompts: &UserPrompts, rest: Rest) -> Plan {
        let mut plan = self.plan;
        plan.settings_ignored = rest.settings;
        plan.damaged = rest.damaged;
        plan.notes = rest.notes;
        plan.skipped = rest.skipped;
        let mut keys: HashSet<String> = prompts
            .templates
            .iter()
            .map(|t| t.template.key.clone())
            .collect();
        for t in rest.templates {
            if keys.insert(t.template.key.clone()) {
                plan.templates.push(t);
            } else {
                plan.templates_skipped.push(t.template.key.clone());
            }
        }
        plan
    }
}
