//! Templates → YAML text, for "Export prompts" and for copying a built-in template into the
//! editor. The output uses a small, safe subset of YAML: block literals (`|`) for multi-line
//! text that can be written that way, JSON-style double-quoted strings for everything else.
//! It is read back by `yaml.rs` + `validate.rs` into the same templates (tested as a property).

use super::template::{Condition, ExampleSource, Op, Source, Template};
use std::fmt::Write as _;

/// A scalar as it goes after `key: ` at indentation `indent` (the key's column, 0-based).
fn scalar(s: &str, indent: usize) -> String {
    // Keep-chomping (`|+`) would swallow the blank line that separates templates in a file, so
    // text ending in more than one newline is quoted instead.
    let literal_ok = s.contains('\n')
        && !s.ends_with("\n\n")
        && !s.starts_with([' ', '\t', '\n'])
        && s.chars().all(|c| {
            c == '\n'
                || (!c.is_control()
                    && !matches!(c, '\u{feff}' | '\u{2028}' | '\u{2029}' | '\u{85}'))
                || c == '\t'
        })
        && s.trim_end_matches('\n')
            .lines()
            .all(|l| !l.ends_with([' ', '\t']));
    if !literal_ok {
        return serde_json::to_string(s).unwrap_or_default();
    }
    let body = s.trim_end_matches('\n');
    let chomp = if s.len() == body.len() { "|-" } else { "|" };
    let pad = " ".repeat(indent + 2);
    let mut out = String::from(chomp);
    for line in body.split('\n') {
        out.push('\n');
        if !line.is_empty() {
            out.push_str(&pad);
            out.push_str(line);
        }
    }
    out
}

fn condition(c: &Condition) -> String {
    let v = &c.value;
    let needs_quotes = v.is_empty()
        || v.trim() != v
        || v.starts_with(['"', '\''])
        || v.contains("==")
        || v.contains("!=");
    let v = if needs_quotes {
        format!("\"{v}\"")
    } else {
        v.clone()
    };
    match c.op {
        Op::Is => format!("{} == {v}", c.var),
        Op::IsNot => format!("{} != {v}", c.var),
        Op::Set => c.var.clone(),
    }
}

fn field(out: &mut String, indent: usize, key: &str, value: &str) {
    let _ = writeln!(
        out,
        "{}{key}: {}",
        " ".repeat(indent),
        scalar(value, indent)
    );
}

/// YAML for one template, as a top-level key.
pub fn template(t: &Template) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{}:", t.key);
    let _ = writeln!(out, "  version: {}", t.version);
    field(&mut out, 2, "description", &t.description);
    match t.system.as_slice() {
        [p] if p.when.is_none() && matches!(p.source, Source::Text(_)) => {
            if let Source::Text(s) = &p.source {
                field(&mut out, 2, "system", s);
            }
        }
        parts => {
            out.push_str("  system:\n");
            for p in parts {
                match (&p.source, &p.when) {
                    (Source::Text(s), None) => {
                        let _ = writeln!(out, "    - {}", scalar(s, 4));
                    }
                    (Source::Text(s), Some(_)) => {
                        let _ = writeln!(out, "    - text: {}", scalar(s, 6));
                    }
                    (Source::Fragment(name), _) => {
                        let _ = writeln!(out, "    - fragment: {}", scalar(name, 6));
                    }
                }
                if let Some(c) = &p.when {
                    field(&mut out, 6, "when", &condition(c));
                }
            }
        }
    }
    if !t.examples.is_empty() {
        out.push_str("  examples:\n");
        for e in &t.examples {
            match &e.source {
                ExampleSource::Fragment(name) => {
                    let _ = writeln!(out, "    - fragment: {}", scalar(name, 6));
                }
                ExampleSource::Pair(p) => {
                    let _ = writeln!(out, "    - input: {}", scalar(&p.input, 6));
                    field(&mut out, 6, "output", &p.output);
                }
            }
            if let Some(c) = &e.when {
                field(&mut out, 6, "when", &condition(c));
            }
        }
    }
    if let Some(u) = &t.user {
        field(&mut out, 2, "user", u);
    }
    if !t.variables.is_empty() {
        out.push_str("  variables:\n");
        for v in &t.variables {
            let _ = writeln!(out, "    {}:", v.name);
            if !v.description.is_empty() {
                field(&mut out, 6, "description", &v.description);
            }
            if let Some(d) = &v.default {
                field(&mut out, 6, "default", d);
            }
            if !v.options.is_empty() {
                let list: Vec<String> = v
                    .options
                    .iter()
                    .map(|o| serde_json::to_string(o).unwrap_or_default())
                    .collect();
                let _ = writeln!(out, "      options: [{}]", list.join(", "));
            }
        }
    }
    if let Some(s) = &t.output_schema {
        field(&mut out, 2, "output_schema", s);
    }
    out
}

/// YAML for a list of templates (one file), with a header comment.
pub fn templates(list: &[Template]) -> String {
    let mut out = String::from(
        "# Satori prompt templates. Import this file in Satori: Prompts → Import prompts.\n",
    );
    for t in list {
        out.push('\n');
        out.push_str(&template(t));
    }
    out
}
