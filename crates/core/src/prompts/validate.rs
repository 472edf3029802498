//! Checking prompt files: a [`Node`] tree (from `yaml.rs`) becomes templates or fragments, or a
//! list of [`Diagnostic`]s, each naming the file, the key and the line. The same checks run at
//! build time on `prompts/*.yaml` and in the browser on imported or edited user templates.

use super::node::{Key, Node, Pos};
use super::template::{
    is_key, is_var_name, Condition, Example, ExamplePart, ExampleSource, Fragment, FragmentKind,
    Part, Source, Template, Variable, OUTPUT_SCHEMA_VAR,
};
use super::text;
use std::collections::BTreeMap;
use std::fmt;

/// One problem in a prompt file.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Diagnostic {
    /// File name as given by the caller.
    pub file: String,
    /// Where.
    pub at: Pos,
    /// Dotted path of the key (`coder.system[1].fragment`); empty for the whole file.
    pub key: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}:{}: ", self.file, self.at.line, self.at.col)?;
        if !self.key.is_empty() {
            write!(f, "`{}`: ", self.key)?;
        }
        f.write_str(&self.message)
    }
}

impl Diagnostic {
    /// Where and what, in words, without the file: "line 3, column 1: `coder`: missing …".
    pub fn in_words(&self) -> String {
        let key = if self.key.is_empty() {
            String::new()
        } else {
            format!("`{}`: ", self.key)
        };
        format!(
            "line {}, column {}: {key}{}",
            self.at.line, self.at.col, self.message
        )
    }
}

struct Ctx<'a> {
    file: &'a str,
    out: Vec<Diagnostic>,
}

impl Ctx<'_> {
    fn err(&mut self, at: Pos, key: &str, message: impl Into<String>) {
        self.out.push(Diagnostic {
            file: self.file.to_string(),
            at,
            key: key.to_string(),
            message: message.into(),
        });
    }

    /// The entries of a map node, reporting anything else.
    fn map<'n>(&mut self, node: &'n Node, key: &str) -> Option<&'n [(Key, Node)]> {
        let m = node.as_map();
        if m.is_none() {
            self.err(
                node.at,
                key,
                format!("expected a mapping, found {}", node.kind()),
            );
        }
        m
    }

    /// Non-empty text, reporting anything else.
    fn text(&mut self, node: &Node, key: &str) -> Option<String> {
        match node.as_str() {
            Some(t) if !t.trim().is_empty() => Some(t.to_string()),
            Some(_) => {
                self.err(node.at, key, "must not be empty");
                None
            }
            None => {
                self.err(
                    node.at,
                    key,
                    format!("expected text, found {}", node.kind()),
                );
                None
            }
        }
    }

    /// Text that must parse as a template (braces checked).
    fn template_text(&mut self, node: &Node, key: &str) -> Option<String> {
        let t = self.text(node, key)?;
        match text::parse(&t) {
            Ok(_) => Some(t),
            Err(e) => {
                if let Some(at) = locate(node, e.line, e.col) {
                    self.err(at, key, e.message);
                } else {
                    self.err(
                        node.at,
                        key,
                        format!(
                            "line {} column {} of this text: {}",
                            e.line, e.col, e.message
                        ),
                    );
                }
                None
            }
        }
    }

    /// Report fields that are not in `allowed`; returns the known ones by name.
    fn fields<'n>(
        &mut self,
        entries: &'n [(Key, Node)],
        path: &str,
        allowed: &[&str],
    ) -> BTreeMap<&'n str, (&'n Key, &'n Node)> {
        let mut out = BTreeMap::new();
        for (k, v) in entries {
            if allowed.contains(&k.text.as_str()) {
                out.insert(k.text.as_str(), (k, v));
            } else {
                self.err(
                    k.at,
                    &join(path, &k.text),
                    format!("unknown field (expected one of: {})", allowed.join(", ")),
                );
            }
        }
        out
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// The top-level entries of a file, reporting a file that is not a mapping of valid names.
fn top_level<'n>(cx: &mut Ctx<'_>, root: &'n Node, what: &str) -> Vec<&'n (Key, Node)> {
    let Some(entries) = root.as_map() else {
        let found = root.kind();
        cx.err(
            root.at,
            "",
            format!("expected a mapping of {what} names to {what}s, found {found}"),
        );
        return Vec::new();
    };
    if entries.is_empty() {
        cx.err(root.at, "", format!("the file defines no {what}"));
    }
    entries
        .iter()
        .filter(|(k, _)| {
            let ok = is_key(&k.text);
            if !ok {
                cx.err(
                    k.at,
                    &k.text,
                    format!("a {what} name uses letters, digits, `-` and `_`, starts with a letter or digit, and has at most 64 characters"),
                );
            }
            ok
        })
        .collect()
}

/// Read a fragment file. Texts are checked for stray braces; placeholders are checked against
/// each template that includes the fragment.
pub fn load_fragments(
    file: &str,
    root: &Node,
) -> Result<BTreeMap<String, Fragment>, Vec<Diagnostic>> {
    let mut cx = Ctx {
        file,
        out: Vec::new(),
    };
    let mut out = BTreeMap::new();
    for (k, node) in top_level(&mut cx, root, "fragment") {
        let name = k.text.as_str();
        let Some(entries) = cx.map(node, name) else {
            continue;
        };
        let f = cx.fields(entries, name, &["kind", "text", "examples"]);
        let Some((_, kind_node)) = f.get("kind") else {
            cx.err(
                k.at,
                name,
                "missing `kind` (role, constraint, format or examples)",
            );
            continue;
        };
        let kind_path = join(name, "kind");
        let kind = match kind_node.as_str() {
            Some(s) => FragmentKind::ALL.into_iter().find(|k| k.as_str() == s),
            None => None,
        };
        let Some(kind) = kind else {
            cx.err(
                kind_node.at,
                &kind_path,
                "must be one of: role, constraint, format, examples",
            );
            continue;
        };
        let mut fragment = Fragment {
            kind,
            text: String::new(),
            examples: Vec::new(),
        };
        if kind == FragmentKind::Examples {
            if let Some((tk, _)) = f.get("text") {
                cx.err(
                    tk.at,
                    &join(name, "text"),
                    "an `examples` fragment holds `examples`, not `text`",
                );
            }
            match f.get("examples") {
                Some((_, list)) => {
                    fragment.examples = examples_list(&mut cx, list, &join(name, "examples"))
                }
                None => cx.err(
                    k.at,
                    name,
                    "missing `examples` (a list of input/output pairs)",
                ),
            }
        } else {
            if let Some((ek, _)) = f.get("examples") {
                cx.err(
                    ek.at,
                    &join(name, "examples"),
                    format!(
                        "a `{}` fragment holds `text`, not `examples`",
                        kind.as_str()
                    ),
                );
            }
            match f.get("text") {
                Some((_, t)) => {
                    fragment.text = cx.template_text(t, &join(name, "text")).unwrap_or_default()
                }
                None => cx.err(k.at, name, "missing `text`"),
            }
        }
        out.insert(name.to_string(), fragment);
    }
    if cx.out.is_empty() {
        Ok(out)
    } else {
        Err(cx.out)
    }
}

type Fields<'n> = BTreeMap<&'n str, (&'n Key, &'n Node)>;

fn example_pair(cx: &mut Ctx<'_>, f: &Fields<'_>, at: Pos, path: &str) -> Option<Example> {
    let mut get = |field: &str| match f.get(field) {
        Some((_, n)) => cx.template_text(n, &join(path, field)),
        None => {
            cx.err(at, path, format!("missing `{field}`"));
            None
        }
    };
    let input = get("input");
    let output = get("output");
    Some(Example {
        input: input?,
        output: output?,
    })
}

fn examples_list(cx: &mut Ctx<'_>, node: &Node, path: &str) -> Vec<Example> {
    let Some(items) = node.as_seq() else {
        cx.err(
            node.at,
            path,
            format!(
                "expected a list of input/output pairs, found {}",
                node.kind()
            ),
        );
        return Vec::new();
    };
    if items.is_empty() {
        cx.err(node.at, path, "the list is empty");
    }
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        if let Some(entries) = cx.map(item, &p) {
            let f = cx.fields(entries, &p, &["input", "output"]);
            out.extend(example_pair(cx, &f, item.at, &p));
        }
    }
    out
}

/// What a template references, with positions, for the cross checks.
struct Refs {
    /// Name, position, key path, and where in the text when the position is the text's start.
    placeholders: Vec<(String, Pos, String, String)>,
    conditions: Vec<(Condition, Pos, String)>,
}

fn condition(cx: &mut Ctx<'_>, f: &Fields<'_>, path: &str, refs: &mut Refs) -> Option<Condition> {
    let (_, node) = f.get("when")?;
    let p = join(path, "when");
    let s = cx.text(node, &p)?;
    match Condition::parse(&s) {
        Ok(c) => {
            refs.conditions.push((c.clone(), node.at, p));
            Some(c)
        }
        Err(e) => {
            cx.err(node.at, &p, e);
            None
        }
    }
}

/// Record the placeholders of `t` for the cross checks, each at its own position when `node`
/// (the scalar holding `t`) is a literal block, else at `at`.
fn note_placeholders(refs: &mut Refs, t: &str, at: Pos, node: Option<&Node>, path: &str) {
    for (name, line, col) in text::placeholder_positions(t) {
        let exact = node.and_then(|n| locate(n, line, col));
        // Quoted or folded text does not map onto file lines: say where in the text instead.
        let within = if exact.is_none() && node.is_some() && (line > 1 || col > 1) {
            format!(" (line {line}, column {col} of this text)")
        } else {
            String::new()
        };
        refs.placeholders.push((
            name.to_string(),
            exact.unwrap_or(at),
            path.to_string(),
            within,
        ));
    }
}

/// The file position of `line`/`col` (1-based) of the text of a literal block scalar, whose
/// lines map one to one onto the file from the node's position (saphyr places the node at its
/// first non-blank line, so leading blank lines are skipped). `None` for other scalars.
fn locate(node: &Node, line: usize, col: usize) -> Option<Pos> {
    let super::node::Value::Scalar {
        text,
        literal: true,
        ..
    } = &node.value
    else {
        return None;
    };
    let leading = text.len() - text.trim_start_matches('\n').len();
    let line = line.checked_sub(1 + leading)?;
    Some(Pos {
        line: node.at.line + line,
        col: node.at.col + col - 1,
    })
}

fn system_parts(
    cx: &mut Ctx<'_>,
    node: &Node,
    path: &str,
    fragments: &BTreeMap<String, Fragment>,
    refs: &mut Refs,
) -> Vec<Part> {
    if let Some(t) = node.as_str() {
        if t.trim().is_empty() {
            cx.err(node.at, path, "must not be empty");
            return Vec::new();
        }
        let Some(t) = cx.template_text(node, path) else {
            return Vec::new();
        };
        note_placeholders(refs, &t, node.at, Some(node), path);
        return vec![Part {
            source: Source::Text(t),
            when: None,
        }];
    }
    let Some(items) = node.as_seq() else {
        cx.err(
            node.at,
            path,
            format!("expected text or a list of parts, found {}", node.kind()),
        );
        return Vec::new();
    };
    if items.is_empty() {
        cx.err(node.at, path, "the list of parts is empty");
    }
    let mut parts = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        if item.as_str().is_some() {
            if let Some(t) = cx.template_text(item, &p) {
                note_placeholders(refs, &t, item.at, Some(item), &p);
                parts.push(Part {
                    source: Source::Text(t),
                    when: None,
                });
            }
            continue;
        }
        let Some(entries) = item.as_map() else {
            cx.err(
                item.at,
                &p,
                format!(
                    "expected text or a mapping with `text` or `fragment`, found {}",
                    item.kind()
                ),
            );
            continue;
        };
        let f = cx.fields(entries, &p, &["text", "fragment", "when"]);
        let when = condition(cx, &f, &p, refs);
        let source = match (f.get("text"), f.get("fragment")) {
            (Some((_, node)), None) => {
                let tp = join(&p, "text");
                cx.template_text(node, &tp).map(|t| {
                    note_placeholders(refs, &t, node.at, Some(node), &tp);
                    Source::Text(t)
                })
            }
            (None, Some((_, n))) => {
                let fp = join(&p, "fragment");
                cx.text(n, &fp).and_then(|name| match fragments.get(&name) {
                    None => {
                        cx.err(n.at, &fp, format!("unknown fragment `{name}`"));
                        None
                    }
                    Some(fr) if fr.kind == FragmentKind::Examples => {
                        cx.err(
                            n.at,
                            &fp,
                            format!("fragment `{name}` holds examples; list it under `examples`"),
                        );
                        None
                    }
                    Some(fr) => {
                        note_placeholders(refs, &fr.text, n.at, None, &format!("{fp} ({name})"));
                        Some(Source::Fragment(name))
                    }
                })
            }
            _ => {
                cx.err(item.at, &p, "a part has either `text` or `fragment`");
                None
            }
        };
        if let Some(source) = source {
            parts.push(Part { source, when });
        }
    }
    parts
}

fn example_parts(
    cx: &mut Ctx<'_>,
    node: &Node,
    path: &str,
    fragments: &BTreeMap<String, Fragment>,
    refs: &mut Refs,
) -> Vec<ExamplePart> {
    let Some(items) = node.as_seq() else {
        cx.err(
            node.at,
            path,
            format!("expected a list, found {}", node.kind()),
        );
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let p = format!("{path}[{i}]");
        let Some(entries) = item.as_map() else {
            cx.err(
                item.at,
                &p,
                "expected `fragment: name` or an `input`/`output` pair",
            );
            continue;
        };
        let is_fragment = entries.iter().any(|(k, _)| k.text == "fragment");
        if is_fragment {
            let f = cx.fields(entries, &p, &["fragment", "when"]);
            let when = condition(cx, &f, &p, refs);
            let Some((_, n)) = f.get("fragment") else {
                continue;
            };
            let fp = join(&p, "fragment");
            let Some(name) = cx.text(n, &fp) else {
                continue;
            };
            match fragments.get(&name) {
                None => cx.err(n.at, &fp, format!("unknown fragment `{name}`")),
                Some(fr) if fr.kind != FragmentKind::Examples => cx.err(
                    n.at,
                    &fp,
                    format!(
                        "fragment `{name}` is a `{}` fragment, not `examples`",
                        fr.kind.as_str()
                    ),
                ),
                Some(fr) => {
                    for ex in &fr.examples {
                        note_placeholders(refs, &ex.input, n.at, None, &format!("{fp} ({name})"));
                        note_placeholders(refs, &ex.output, n.at, None, &format!("{fp} ({name})"));
                    }
                    out.push(ExamplePart {
                        source: ExampleSource::Fragment(name),
                        when,
                    });
                }
            }
        } else {
            let f = cx.fields(entries, &p, &["input", "output", "when"]);
            let when = condition(cx, &f, &p, refs);
            if let Some(ex) = example_pair(cx, &f, item.at, &p) {
                for field in ["input", "output"] {
                    if let Some((_, node)) = f.get(field) {
                        let t = if field == "input" {
                            &ex.input
                        } else {
                            &ex.output
                        };
                        note_placeholders(refs, t, node.at, Some(node), &join(&p, field));
                    }
                }
                out.push(ExamplePart {
                    source: ExampleSource::Pair(ex),
                    when,
                });
            }
        }
    }
    out
}

fn variables(cx: &mut Ctx<'_>, node: &Node, path: &str) -> Vec<Variable> {
    let Some(entries) = cx.map(node, path) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (k, v) in entries {
        let p = join(path, &k.text);
        if !is_var_name(&k.text) || k.text == OUTPUT_SCHEMA_VAR {
            cx.err(
                k.at,
                &p,
                if k.text == OUTPUT_SCHEMA_VAR {
                    "`output_schema` is reserved for the template's `output_schema` field"
                        .to_string()
                } else {
                    "a variable name uses letters, digits and `_`, and does not start with a digit"
                        .to_string()
                },
            );
            continue;
        }
        let mut var = Variable {
            name: k.text.clone(),
            description: String::new(),
            default: None,
            options: Vec::new(),
        };
        if v.is_null() {
            out.push(var);
            continue;
        }
        if let Some(d) = v.as_str() {
            var.description = d.trim().to_string();
            out.push(var);
            continue;
        }
        let Some(fields) = cx.map(v, &p) else {
            continue;
        };
        let f = cx.fields(fields, &p, &["description", "default", "options"]);
        if let Some((_, d)) = f.get("description") {
            var.description = cx
                .text(d, &join(&p, "description"))
                .unwrap_or_default()
                .trim()
                .to_string();
        }
        if let Some((_, d)) = f.get("default") {
            match d.as_str() {
                Some(s) => var.default = Some(s.to_string()),
                None if d.is_null() => var.default = Some(String::new()),
                None => cx.err(
                    d.at,
                    &join(&p, "default"),
                    format!("expected text, found {}", d.kind()),
                ),
            }
        }
        if let Some((_, o)) = f.get("options") {
            let op = join(&p, "options");
            match o.as_seq() {
                Some(items) if !items.is_empty() => {
                    for (i, it) in items.iter().enumerate() {
                        match it.as_str() {
                            Some(s) => var.options.push(s.to_string()),
                            None => cx.err(
                                it.at,
                                &format!("{op}[{i}]"),
                                format!("expected text, found {}", it.kind()),
                            ),
                        }
                    }
                }
                _ => cx.err(o.at, &op, "expected a non-empty list of allowed values"),
            }
            if let (Some(d), false) = (&var.default, var.options.is_empty()) {
                if !var.options.contains(d) {
                    let (_, dn) = f["default"];
                    cx.err(
                        dn.at,
                        &join(&p, "default"),
                        format!("`{d}` is not one of the options"),
                    );
                }
            }
        }
        out.push(var);
    }
    out
}

/// Read a template file. `fragments` are the fragments templates may include (the built-in
/// ones, plus those of the same build).
pub fn load_templates(
    file: &str,
    root: &Node,
    fragments: &BTreeMap<String, Fragment>,
) -> Result<Vec<Template>, Vec<Diagnostic>> {
    let mut cx = Ctx {
        file,
        out: Vec::new(),
    };
    let mut out = Vec::new();
    for (k, node) in top_level(&mut cx, root, "template") {
        let key = k.text.as_str();
        let Some(entries) = cx.map(node, key) else {
            continue;
        };
        let f = cx.fields(
            entries,
            key,
            &[
                "version",
                "description",
                "system",
                "examples",
                "user",
                "variables",
                "output_schema",
            ],
        );
        let mut refs = Refs {
            placeholders: Vec::new(),
            conditions: Vec::new(),
        };
        let version = match f.get("version") {
            None => {
                cx.err(
                    k.at,
                    key,
                    "missing `version` (a whole number, bumped when the prompt changes)",
                );
                None
            }
            Some((_, n)) => match n.as_str().and_then(|s| s.parse::<u32>().ok()) {
                Some(v) if v > 0 => Some(v),
                _ => {
                    cx.err(
                        n.at,
                        &join(key, "version"),
                        "expected a whole number from 1",
                    );
                    None
                }
            },
        };
        let description = match f.get("description") {
            None => {
                cx.err(k.at, key, "missing `description`");
                None
            }
            Some((_, n)) => cx
                .text(n, &join(key, "description"))
                .map(|d| d.trim().to_string()),
        };
        let system = match f.get("system") {
            None => {
                cx.err(k.at, key, "missing `system` (the system prompt)");
                Vec::new()
            }
            Some((_, n)) => system_parts(&mut cx, n, &join(key, "system"), fragments, &mut refs),
        };
        let examples = match f.get("examples") {
            None => Vec::new(),
            Some((_, n)) => example_parts(&mut cx, n, &join(key, "examples"), fragments, &mut refs),
        };
        let user = f.get("user").and_then(|(_, n)| {
            let p = join(key, "user");
            let t = cx.template_text(n, &p)?;
            note_placeholders(&mut refs, &t, n.at, Some(n), &p);
            Some(t)
        });
        let variables = f
            .get("variables")
            .map(|(_, n)| variables(&mut cx, n, &join(key, "variables")))
            .unwrap_or_default();
        let output_schema = f.get("output_schema").and_then(|(_, n)| {
            let p = join(key, "output_schema");
            let s = cx.text(n, &p)?;
            match serde_json::from_str::<serde_json::Value>(&s) {
                Ok(v) if v.is_object() => Some(s.trim().to_string()),
                Ok(_) => {
                    cx.err(n.at, &p, "expected a JSON Schema object");
                    None
                }
                Err(e) => {
                    cx.err(n.at, &p, format!("not valid JSON: {e}"));
                    None
                }
            }
        });
        // Cross checks: every placeholder and condition names a declared variable.
        let declared = |name: &str| {
            variables.iter().any(|v| v.name == name)
                || (name == OUTPUT_SCHEMA_VAR && f.contains_key("output_schema"))
        };
        for (name, at, path, within) in &refs.placeholders {
            if !declared(name) {
                cx.err(
                    *at,
                    path,
                    format!(
                        "placeholder `{{{name}}}` is not declared under `{key}.variables`{within}"
                    ),
                );
            }
        }
        for (c, at, path) in &refs.conditions {
            match variables.iter().find(|v| v.name == c.var) {
                None => cx.err(
                    *at,
                    path,
                    format!(
                        "condition uses `{}`, which is not declared under `{key}.variables`",
                        c.var
                    ),
                ),
                Some(v)
                    if !v.options.is_empty()
                        && !c.value.is_empty()
                        && !v.options.contains(&c.value) =>
                {
                    cx.err(
                        *at,
                        path,
                        format!(
                            "`{}` is not one of the options of `{}` ({})",
                            c.value,
                            c.var,
                            v.options.join(", ")
                        ),
                    )
                }
                Some(_) => {}
            }
        }
        if let (Some(version), Some(description), false) = (version, description, system.is_empty())
        {
            out.push(Template {
                key: key.to_string(),
                version,
                description,
                system,
                examples,
                user,
                variables,
                output_schema,
            });
        }
    }
    if cx.out.is_empty() {
        Ok(out)
    } else {
        Err(cx.out)
    }
}
