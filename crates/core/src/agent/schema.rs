//! JSON Schema validation for what a model returns: structured output (the planner's plan) and
//! tool-call arguments. It covers the subset of JSON Schema that people actually write: `type`,
//! `enum`, `const`, `required`, `properties`, `additionalProperties`, `items`, `minItems`,
//! `maxItems`, `uniqueItems`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
//! `multipleOf`, `minLength`, `maxLength`, `pattern`, `anyOf`, `oneOf`, `allOf`, `not` and local
//! `$ref`s (`#`, `#/$defs/x`, `#/definitions/x`, any `#/…` pointer). Other keywords
//! (`description`, `title`, `format`, `default`, `$schema` …) are ignored.
//!
//! Invariants, checked by the tests below:
//! - [`validate`] never panics and always ends, whatever the schema and the value: `$ref` cycles
//!   stop at a depth limit, the work per call is bounded, and `pattern` runs on a matcher whose
//!   time and memory are bounded (a hostile pattern gives an error, never a hang);
//! - violations come in document order (keys in the order the value's map holds them: sorted,
//!   as serde_json's map is), at most [`MAX_VIOLATIONS`], each with a path (`$.steps[0].id`)
//!   and a short message a model can act on (`expected integer, got string "1"`);
//! - [`check_schema`] accepts every schema [`validate`] can apply as written and names the first
//!   keyword it cannot (wrong type, unknown `$ref`, a `$ref` cycle, a pattern outside the
//!   supported regex subset), so a bad schema is an error up front, not a surprise later.
//!
//! Lengths count characters, not bytes (Chinese text); `integer` is a number without a fractional
//! part (`3.0` counts); numbers compare by value (`1` equals `1.0` for `enum`, `const` and
//! `uniqueItems`). Pure: no IO.

use serde_json::{Map, Number, Value};
use std::fmt;

/// At most this many violations are reported by [`validate`].
pub const MAX_VIOLATIONS: usize = 20;
/// `$ref`s followed in a row without going into the value: deeper is taken for a cycle.
const MAX_REFS: u32 = 32;
/// Nested schema checks (value depth times schema depth): a guard for the stack.
const MAX_DEPTH: u32 = 400;
/// Schema nodes visited per [`validate`] call (and pairs compared for `uniqueItems`).
const MAX_STEPS: u32 = 200_000;
/// Characters of a string value quoted in a message.
const QUOTED_CHARS: usize = 40;

/// One way a value does not match its schema.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// Where, as a path from the root: `$`, `$.steps[0].id`, `$["a b"]`.
    pub path: String,
    /// What is wrong, short: `expected integer, got string "1"`.
    pub message: String,
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`: {}", self.path, self.message)
    }
}

/// Every way `value` does not match `schema`, in document order, at most [`MAX_VIOLATIONS`].
/// Empty means valid. A schema that [`check_schema`] would refuse is applied as far as it can be
/// (a keyword of the wrong type is skipped, an unknown `$ref` or bad pattern is a violation).
pub fn validate(schema: &Value, value: &Value) -> Vec<Violation> {
    let mut v = Validator {
        root: schema,
        steps: 0,
        depth: 0,
    };
    let mut out = Vec::new();
    let mut path = String::from("$");
    v.walk(schema, value, &mut path, 0, &mut out);
    if v.steps > MAX_STEPS {
        // Parts were skipped (and an `anyOf` may have passed because of it): never "valid".
        out.truncate(MAX_VIOLATIONS - 1);
        violation(&mut out, "$", "schema too complex to check".into());
    }
    out
}

/// `Ok` if [`validate`] can apply `schema` as written; otherwise the first problem, located by a
/// JSON pointer into the schema: "`#/properties/id/minimum`: must be a number".
pub fn check_schema(schema: &Value) -> Result<(), String> {
    let mut c = Checker {
        root: schema,
        refs: Vec::new(),
    };
    c.schema(schema, &mut String::from("#"))
}

// ------------------------------------------------------------------------------------ validate

struct Validator<'s> {
    root: &'s Value,
    steps: u32,
    depth: u32,
}

fn violation(out: &mut Vec<Violation>, path: &str, message: String) {
    if out.len() < MAX_VIOLATIONS {
        out.push(Violation {
            path: path.to_owned(),
            message,
        });
    }
}

impl<'s> Validator<'s> {
    /// Spend `n` steps of the budget; `false` once it is spent (then [`validate`] says so).
    fn tick(&mut self, n: u32) -> bool {
        self.steps = self.steps.saturating_add(n);
        self.steps <= MAX_STEPS
    }

    /// Check `value` at `path` against `schema`; `refs` counts the `$ref`s followed since the
    /// last step into the value.
    fn walk(
        &mut self,
        schema: &'s Value,
        value: &Value,
        path: &mut String,
        refs: u32,
        out: &mut Vec<Violation>,
    ) {
        if self.depth >= MAX_DEPTH {
            return violation(out, path, "nested too deep to check".into());
        }
        self.depth += 1;
        self.walk_schema(schema, value, path, refs, out);
        self.depth -= 1;
    }

    fn walk_schema(
        &mut self,
        schema: &'s Value,
        value: &Value,
        path: &mut String,
        refs: u32,
        out: &mut Vec<Violation>,
    ) {
        if out.len() >= MAX_VIOLATIONS || !self.tick(1) {
            return;
        }
        let s = match schema {
            Value::Object(s) => s,
            Value::Bool(false) => return violation(out, path, "no value is allowed here".into()),
            _ => return,
        };
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match resolve(self.root, r) {
                Some(_) if refs >= MAX_REFS => {
                    violation(out, path, format!("`$ref` {r} nests too deep (a cycle?)"))
                }
                Some(target) => self.walk(target, value, path, refs + 1, out),
                None => violation(out, path, format!("unknown `$ref` {r}")),
            }
        }
        if let Some(t) = s.get("type") {
            if !type_matches(t, value) {
                let want = match t {
                    Value::Array(ts) => ts
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(" or "),
                    t => t.as_str().unwrap_or("?").to_owned(),
                };
                return violation(
                    out,
                    path,
                    format!("expected {want}, got {}", describe(value)),
                );
            }
        }
        if let Some(options) = s.get("enum").and_then(Value::as_array) {
            if !options.iter().any(|o| same(o, value)) {
                let list: Vec<String> = options.iter().map(Value::to_string).collect();
                violation(out, path, format!("must be one of {}", list.join(", ")));
            }
        }
        if let Some(c) = s.get("const") {
            if !same(c, value) {
                violation(out, path, format!("must be {c}"));
            }
        }
        match value {
            Value::Number(n) => number(s, n, path, out),
            Value::String(t) => string(s, t, path, out),
            Value::Array(items) => self.array(s, items, path, out),
            Value::Object(o) => self.object(s, o, path, out),
            _ => {}
        }
        if let Some(all) = s.get("allOf").and_then(Value::as_array) {
            for sub in all {
                self.walk(sub, value, path, refs, out);
            }
        }
        if let Some(any) = s.get("anyOf").and_then(Value::as_array) {
            let (matched, closest) = self.alternatives(any, value, path, refs, 1);
            if matched.is_empty() {
                let message = no_alternative("anyOf", closest, path);
                violation(out, path, message);
            }
        }
        if let Some(one) = s.get("oneOf").and_then(Value::as_array) {
            let (matched, closest) = self.alternatives(one, value, path, refs, 2);
            match matched[..] {
                [] => {
                    let message = no_alternative("oneOf", closest, path);
                    violation(out, path, message);
                }
                [a, b] => violation(
                    out,
                    path,
                    format!(
                        "matches alternatives {} and {} of oneOf, must match exactly one",
                        a + 1,
                        b + 1
                    ),
                ),
                _ => {}
            }
        }
        if let Some(not) = s.get("not") {
            let mut sub = Vec::new();
            self.walk(not, value, path, refs, &mut sub);
            if sub.is_empty() {
                violation(out, path, "must not match the schema in `not`".into());
            }
        }
    }

    /// The indices of the first `enough` alternatives `value` matches, and the first violation
    /// of the alternative with the fewest (when none matched).
    fn alternatives(
        &mut self,
        list: &'s [Value],
        value: &Value,
        path: &mut String,
        refs: u32,
        enough: usize,
    ) -> (Vec<usize>, Option<Violation>) {
        let mut matched = Vec::new();
        let mut closest: Option<(usize, Violation)> = None;
        for (i, alt) in list.iter().enumerate() {
            let mut sub = Vec::new();
            self.walk(alt, value, path, refs, &mut sub);
            let n = sub.len();
            match sub.into_iter().next() {
                None => {
                    matched.push(i);
                    if matched.len() >= enough {
                        break;
                    }
                }
                Some(first) if closest.as_ref().is_none_or(|(m, _)| n < *m) => {
                    closest = Some((n, first))
                }
                Some(_) => {}
            }
        }
        (matched, closest.map(|(_, v)| v))
    }

    fn array(
        &mut self,
        s: &'s Map<String, Value>,
        items: &[Value],
        path: &mut String,
        out: &mut Vec<Violation>,
    ) {
        let n = items.len() as u64;
        if let Some(min) = s.get("minItems").and_then(count) {
            if n < min {
                let message = format!("must have at least {min} {}, got {n}", noun(min, "item"));
                violation(out, path, message);
            }
        }
        if let Some(max) = s.get("maxItems").and_then(count) {
            if n > max {
                let message = format!("must have at most {max} {}, got {n}", noun(max, "item"));
                violation(out, path, message);
            }
        }
        if s.get("uniqueItems") == Some(&Value::Bool(true)) {
            let pairs = u32::try_from(n.saturating_mul(n) / 2).unwrap_or(u32::MAX);
            if self.tick(pairs) {
                let repeat = items
                    .iter()
                    .enumerate()
                    .find_map(|(j, b)| items[..j].iter().position(|a| same(a, b)).map(|i| (i, j)));
                if let Some((i, j)) = repeat {
                    violation(
                        out,
                        path,
                        format!("items must be unique: [{i}] equals [{j}]"),
                    );
                }
            }
        }
        let len = path.len();
        match s.get("items") {
            Some(Value::Array(tuple)) => {
                for (i, (sub, item)) in tuple.iter().zip(items).enumerate() {
                    push_index(path, i);
                    self.walk(sub, item, path, 0, out);
                    path.truncate(len);
                }
            }
            Some(sub) => {
                for (i, item) in items.iter().enumerate() {
                    push_index(path, i);
                    self.walk(sub, item, path, 0, out);
                    path.truncate(len);
                }
            }
            None => {}
        }
    }

    fn object(
        &mut self,
        s: &'s Map<String, Value>,
        o: &Map<String, Value>,
        path: &mut String,
        out: &mut Vec<Violation>,
    ) {
        if let Some(required) = s.get("required").and_then(Value::as_array) {
            for name in required.iter().filter_map(Value::as_str) {
                if !o.contains_key(name) {
                    violation(out, path, format!("missing required property `{name}`"));
                }
            }
        }
        let properties = s.get("properties").and_then(Value::as_object);
        let additional = s.get("additionalProperties");
        let len = path.len();
        for (key, item) in o {
            let sub = match (properties.and_then(|p| p.get(key)), additional) {
                (Some(sub), _) => sub,
                (None, Some(Value::Bool(false))) => {
                    let allowed: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    let message = if allowed.is_empty() {
                        format!("unknown property `{key}` (no properties allowed)")
                    } else {
                        format!("unknown property `{key}` (allowed: {})", allowed.join(", "))
                    };
                    violation(out, path, message);
                    continue;
                }
                (None, Some(sub)) => sub,
                (None, None) => continue,
            };
            push_key(path, key);
            self.walk(sub, item, path, 0, out);
            path.truncate(len);
        }
    }
}

fn no_alternative(keyword: &str, closest: Option<Violation>, path: &str) -> String {
    match closest {
        Some(v) if v.path == path => {
            format!(
                "matches none of the {keyword} alternatives (closest: {})",
                v.message
            )
        }
        Some(v) => format!("matches none of the {keyword} alternatives (closest: {v})"),
        None => format!("matches none of the {keyword} alternatives"),
    }
}

fn number(s: &Map<String, Value>, n: &Number, path: &str, out: &mut Vec<Violation>) {
    let x = n.as_f64().unwrap_or(0.0);
    let bound = |key: &str| s.get(key).filter(|b| b.is_number());
    let flag = |key: &str| s.get(key) == Some(&Value::Bool(true));
    // (keyword's value, exclusive, lower bound)
    let checks = [
        (bound("minimum"), flag("exclusiveMinimum"), true),
        (bound("maximum"), flag("exclusiveMaximum"), false),
        (bound("exclusiveMinimum"), true, true),
        (bound("exclusiveMaximum"), true, false),
    ];
    for (b, exclusive, lower) in checks {
        let Some(b) = b else { continue };
        let limit = b.as_f64().unwrap_or(0.0);
        let ok = match (lower, exclusive) {
            (true, false) => x >= limit,
            (true, true) => x > limit,
            (false, false) => x <= limit,
            (false, true) => x < limit,
        };
        if !ok {
            let op = match (lower, exclusive) {
                (true, false) => ">=",
                (true, true) => ">",
                (false, false) => "<=",
                (false, true) => "<",
            };
            violation(out, path, format!("must be {op} {b}, got {n}"));
        }
    }
    if let Some(m) = s.get("multipleOf").and_then(Value::as_number) {
        let ok = match (n.as_i64(), m.as_i64()) {
            (Some(a), Some(b)) if b > 0 => a % b == 0,
            _ => {
                let (a, b) = (x, m.as_f64().unwrap_or(0.0));
                let q = a / b;
                b <= 0.0 || (q - q.round()).abs() <= 1e-9 * q.abs().max(1.0)
            }
        };
        if !ok {
            violation(out, path, format!("must be a multiple of {m}, got {n}"));
        }
    }
}

fn string(s: &Map<String, Value>, t: &str, path: &str, out: &mut Vec<Violation>) {
    let len = t.chars().count() as u64;
    if let Some(min) = s.get("minLength").and_then(count) {
        if len < min {
            let unit = noun(min, "character");
            violation(
                out,
                path,
                format!("must be at least {min} {unit} long, got {len}"),
            );
        }
    }
    if let Some(max) = s.get("maxLength").and_then(count) {
        if len > max {
            let unit = noun(max, "character");
            violation(
                out,
                path,
                format!("must be at most {max} {unit} long, got {len}"),
            );
        }
    }
    if let Some(p) = s.get("pattern").and_then(Value::as_str) {
        match pattern_matches(p, t) {
            Ok(true) => {}
            Ok(false) => violation(out, path, format!("does not match pattern {p}")),
            Err(e) => violation(out, path, format!("cannot check pattern {p}: {e}")),
        }
    }
}

/// Whether `value` has the type named by `t` (a name or an array of names).
fn type_matches(t: &Value, value: &Value) -> bool {
    let is = |name: &str| match name {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => is_integer(value),
        "boolean" => value.is_boolean(),
        "object" => value.is_object(),
        "array" => value.is_array(),
        "null" => value.is_null(),
        _ => false,
    };
    match t {
        Value::String(name) => is(name),
        Value::Array(names) => names.iter().filter_map(Value::as_str).any(is),
        _ => true,
    }
}

fn is_integer(v: &Value) -> bool {
    match v {
        Value::Number(n) => {
            n.is_i64() || n.is_u64() || n.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => false,
    }
}

/// JSON equality, numbers by value (`1` equals `1.0`).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => match (x.as_i64(), y.as_i64(), x.as_u64()) {
            (Some(i), Some(j), _) => i == j,
            (None, None, Some(i)) => y.as_u64() == Some(i),
            _ => x.as_f64() == y.as_f64(),
        },
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| same(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, a)| y.get(k).is_some_and(|b| same(a, b)))
        }
        _ => a == b,
    }
}

/// A value as a message names it: `string "1"`, `number 1.5`, `object`.
fn describe(v: &Value) -> String {
    match v {
        Value::Null => "null".into(),
        Value::Bool(b) => format!("boolean {b}"),
        Value::Number(n) => format!("number {n}"),
        Value::String(s) => {
            let mut short: String = s.chars().take(QUOTED_CHARS).collect();
            if short.len() < s.len() {
                short.push('…');
            }
            format!("string {}", Value::String(short))
        }
        Value::Array(_) => "array".into(),
        Value::Object(_) => "object".into(),
    }
}

/// A non-negative integer keyword value (`3` or `3.0`).
fn count(v: &Value) -> Option<u64> {
    v.as_u64().or_else(|| {
        v.as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 1e15)
            .map(|f| f as u64)
    })
}

fn noun(n: u64, word: &str) -> String {
    if n == 1 {
        word.to_owned()
    } else {
        format!("{word}s")
    }
}

fn push_index(path: &mut String, i: usize) {
    path.push('[');
    path.push_str(&i.to_string());
    path.push(']');
}

/// `.key` for identifier-like keys, `["a b"]` (JSON-quoted) for the rest.
fn push_key(path: &mut String, key: &str) {
    let plain = key
        .chars()
        .enumerate()
        .all(|(i, c)| c.is_ascii_alphabetic() || c == '_' || (i > 0 && c.is_ascii_digit()));
    if plain && !key.is_empty() {
        path.push('.');
        path.push_str(key);
    } else {
        path.push('[');
        path.push_str(&Value::String(key.to_owned()).to_string());
        path.push(']');
    }
}

/// The schema a local `$ref` points to: `#` or a JSON pointer after `#`.
fn resolve<'a>(root: &'a Value, r: &str) -> Option<&'a Value> {
    let pointer = r.strip_prefix('#')?;
    if pointer.is_empty() {
        Some(root)
    } else {
        root.pointer(pointer)
    }
}

// ------------------------------------------------------------------------------- check_schema

struct Checker<'a> {
    root: &'a Value,
    /// `$ref`s seen by the cycle search, and whether their search is complete.
    refs: Vec<(&'a str, bool)>,
}

fn at(ptr: &str, message: &str) -> String {
    format!("`{ptr}`: {message}")
}

/// Append `key` to a JSON pointer, escaped (`~0`, `~1`).
fn push_ptr(ptr: &mut String, key: &str) {
    ptr.push('/');
    for c in key.chars() {
        match c {
            '~' => ptr.push_str("~0"),
            '/' => ptr.push_str("~1"),
            c => ptr.push(c),
        }
    }
}

const TYPE_ERROR: &str =
    "must be a type name (string, number, integer, boolean, object, array, null) or an array of them";
const TYPES: [&str; 7] = [
    "string", "number", "integer", "boolean", "object", "array", "null",
];

impl<'a> Checker<'a> {
    fn schema(&mut self, s: &'a Value, ptr: &mut String) -> Result<(), String> {
        let obj = match s {
            Value::Bool(_) => return Ok(()),
            Value::Object(o) => o,
            _ => return Err(at(ptr, "a schema must be an object or a boolean")),
        };
        for (key, v) in obj {
            let len = ptr.len();
            push_ptr(ptr, key);
            self.keyword(s, key, v, ptr)?;
            ptr.truncate(len);
        }
        Ok(())
    }

    fn keyword(
        &mut self,
        s: &'a Value,
        key: &str,
        v: &'a Value,
        ptr: &mut String,
    ) -> Result<(), String> {
        match key {
            "type" => {
                let known = |t: &Value| t.as_str().is_some_and(|t| TYPES.contains(&t));
                let ok = match v {
                    Value::Array(ts) => !ts.is_empty() && ts.iter().all(known),
                    t => known(t),
                };
                if !ok {
                    return Err(at(ptr, TYPE_ERROR));
                }
            }
            "enum" if !v.is_array() => return Err(at(ptr, "must be an array")),
            "required" if !v.as_array().is_some_and(|a| a.iter().all(Value::is_string)) => {
                return Err(at(ptr, "must be an array of strings"));
            }
            "properties" | "$defs" | "definitions" => {
                let Some(map) = v.as_object() else {
                    return Err(at(ptr, "must be an object"));
                };
                for (name, sub) in map {
                    let len = ptr.len();
                    push_ptr(ptr, name);
                    self.schema(sub, ptr)?;
                    ptr.truncate(len);
                }
            }
            "additionalProperties" | "not" => self.schema(v, ptr)?,
            "items" => match v.as_array() {
                Some(tuple) => self.list(tuple, ptr)?,
                None => self.schema(v, ptr)?,
            },
            "allOf" | "anyOf" | "oneOf" => match v.as_array() {
                Some(list) if !list.is_empty() => self.list(list, ptr)?,
                _ => return Err(at(ptr, "must be a non-empty array of schemas")),
            },
            "minItems" | "maxItems" | "minLength" | "maxLength" if count(v).is_none() => {
                return Err(at(ptr, "must be a non-negative integer"));
            }
            "uniqueItems" if !v.is_boolean() => return Err(at(ptr, "must be a boolean")),
            "minimum" | "maximum" if !v.is_number() => return Err(at(ptr, "must be a number")),
            "exclusiveMinimum" | "exclusiveMaximum" if !v.is_number() && !v.is_boolean() => {
                return Err(at(ptr, "must be a number"));
            }
            "multipleOf" if !v.as_f64().is_some_and(|m| m > 0.0) => {
                return Err(at(ptr, "must be a number greater than 0"));
            }
            "pattern" => {
                let Some(p) = v.as_str() else {
                    return Err(at(ptr, "must be a string"));
                };
                if let Err(e) = Regex::new(p) {
                    return Err(at(ptr, &format!("unsupported pattern `{p}`: {e}")));
                }
            }
            "$ref" => {
                let Some(r) = v.as_str() else {
                    return Err(at(ptr, "must be a string"));
                };
                match resolve(self.root, r) {
                    None => {
                        return Err(at(
                            ptr,
                            &format!("unknown `$ref` {r} (only local ones like #/$defs/name)"),
                        ))
                    }
                    Some(t) if !t.is_object() && !t.is_boolean() => {
                        return Err(at(ptr, &format!("`$ref` {r} does not point to a schema")))
                    }
                    Some(_) => {
                        if let Some(problem) = self.cycle(s) {
                            return Err(at(ptr, &problem));
                        }
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn list(&mut self, list: &'a [Value], ptr: &mut String) -> Result<(), String> {
        for (i, sub) in list.iter().enumerate() {
            let len = ptr.len();
            push_ptr(ptr, &i.to_string());
            self.schema(sub, ptr)?;
            ptr.truncate(len);
        }
        Ok(())
    }

    /// A `$ref` that leads back to itself through `$ref`, `allOf`, `anyOf`, `oneOf` and `not`
    /// only (without going into the value), or a chain of such `$ref`s longer than [`validate`]
    /// follows: the message. Depth-first search, each `$ref` searched once.
    fn cycle(&mut self, s: &'a Value) -> Option<String> {
        if let Some(r) = s.get("$ref").and_then(Value::as_str) {
            match self.refs.iter().find(|(seen, _)| *seen == r) {
                Some((_, true)) => {}
                Some((_, false)) => {
                    return Some(format!(
                        "`$ref` cycle through {r} that never reaches the value"
                    ))
                }
                None => {
                    let open = self.refs.iter().filter(|(_, done)| !done).count();
                    if open >= MAX_REFS as usize {
                        return Some(format!(
                            "`$ref`s nest deeper than {MAX_REFS} at {r} without reaching the value"
                        ));
                    }
                    self.refs.push((r, false));
                    if let Some(target) = resolve(self.root, r) {
                        if let Some(c) = self.cycle(target) {
                            return Some(c);
                        }
                    }
                    if let Some(entry) = self.refs.iter_mut().find(|(seen, _)| *seen == r) {
                        entry.1 = true;
                    }
                }
            }
        }
        for key in ["allOf", "anyOf", "oneOf"] {
            for sub in s.get(key).and_then(Value::as_array).into_iter().flatten() {
                if let Some(c) = self.cycle(sub) {
                    return Some(c);
                }
            }
        }
        s.get("not").and_then(|n| self.cycle(n))
    }
}

// ------------------------------------------------------------------------------------ pattern

/// Whether `text` contains a match of `pattern` (JSON Schema patterns are not anchored).
///
/// A small backtracking matcher for the subset of ECMAScript regexes that schemas use: literals,
/// `.`, `^`, `$`, classes `[a-z0-9_]` and `[^…]`, escapes (`\d \w \s \D \W \S \b \B`, `\.`, `\-`,
/// `\\` and other punctuation, `\n \t \r`, `\uXXXX`, `\xXX`), quantifiers `* + ? {n} {n,} {n,m}`
/// (lazy forms too), groups `( )` and `(?: )` with alternation `|`. Anything else is an error.
/// It remembers the (instruction, position) pairs that failed, so no pattern backtracks
/// exponentially, and stops with an error past a fixed budget of steps and memory.
fn pattern_matches(pattern: &str, text: &str) -> Result<bool, String> {
    Regex::new(pattern)?.is_match(text)
}

/// Instructions of a compiled pattern.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Inst {
    Char(char),
    /// Any character but a line end.
    Any,
    /// A character in `classes[i]`.
    Class(usize),
    Start,
    End,
    /// `\b` (true) or `\B` (false).
    Boundary(bool),
    /// Try the first target, then the second.
    Split(usize, usize),
    Jmp(usize),
    Match,
}

/// A bracket class or a class escape.
#[derive(Debug, Clone, PartialEq)]
struct Class {
    negated: bool,
    items: Vec<Item>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Item {
    Range(char, char),
    /// `\d` / `\w` / `\s`, negated (`\D` …) when the flag is set.
    Digit(bool),
    Word(bool),
    Space(bool),
}

impl Item {
    fn contains(self, c: char) -> bool {
        match self {
            Item::Range(lo, hi) => lo <= c && c <= hi,
            Item::Digit(neg) => c.is_ascii_digit() != neg,
            Item::Word(neg) => is_word(c) != neg,
            Item::Space(neg) => (c.is_whitespace() || c == '\u{feff}') != neg,
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_'
}

/// A parsed pattern before compiling.
#[derive(Debug)]
enum Node {
    Inst(Inst),
    /// Alternatives, each a sequence.
    Group(Vec<Vec<Node>>),
    Repeat(Box<Node>, u32, Option<u32>),
}

/// The most instructions in a compiled pattern (`{n,m}` copies its atom).
const MAX_PROGRAM: usize = 5_000;
/// The largest count in `{n,m}`.
const MAX_REPEAT: u32 = 1_000;
/// Nested groups.
const MAX_GROUPS: u32 = 50;
/// Bits of the (instruction, position) table: memory of a match is bounded by this / 8 bytes.
const MAX_CELLS: usize = 1 << 23;
/// Instructions executed per match.
const MAX_MATCH_STEPS: u32 = 1 << 20;

struct Regex {
    program: Vec<Inst>,
    classes: Vec<Class>,
}

struct Parser {
    chars: Vec<char>,
    i: usize,
    depth: u32,
    classes: Vec<Class>,
}

enum Escape {
    Char(char),
    Item(Item),
    Boundary(bool),
}

impl Regex {
    fn new(pattern: &str) -> Result<Regex, String> {
        let mut p = Parser {
            chars: pattern.chars().collect(),
            i: 0,
            depth: 0,
            classes: Vec::new(),
        };
        let alts = p.alternation()?;
        if p.i < p.chars.len() {
            return Err("unbalanced `)`".into());
        }
        let mut program = Vec::new();
        emit_alternatives(&alts, &mut program)?;
        program.push(Inst::Match);
        Ok(Regex {
            program,
            classes: p.classes,
        })
    }

    fn is_match(&self, text: &str) -> Result<bool, String> {
        let chars: Vec<char> = text.chars().collect();
        let n = chars.len();
        let width = n + 1;
        let cells = self.program.len().saturating_mul(width);
        if cells > MAX_CELLS {
            return Err("text too long for this pattern".into());
        }
        let mut seen = vec![0u64; cells.div_ceil(64)];
        let mut stack: Vec<(usize, usize)> = Vec::new();
        let mut steps = 0u32;
        for start in 0..=n {
            stack.push((0, start));
            while let Some((mut pc, mut at)) = stack.pop() {
                loop {
                    let cell = pc * width + at;
                    let Some(word) = seen.get_mut(cell / 64) else {
                        break;
                    };
                    let bit = 1u64 << (cell % 64);
                    if *word & bit != 0 {
                        break;
                    }
                    *word |= bit;
                    steps += 1;
                    if steps > MAX_MATCH_STEPS {
                        return Err("too many steps for this text".into());
                    }
                    let here = chars.get(at).copied();
                    let advance = match self.program.get(pc) {
                        Some(Inst::Char(c)) => here == Some(*c),
                        Some(Inst::Any) => here
                            .is_some_and(|c| !matches!(c, '\n' | '\r' | '\u{2028}' | '\u{2029}')),
                        Some(Inst::Class(k)) => match (here, self.classes.get(*k)) {
                            (Some(c), Some(class)) => {
                                class.items.iter().any(|item| item.contains(c)) != class.negated
                            }
                            _ => false,
                        },
                        Some(Inst::Start) if at == 0 => {
                            pc += 1;
                            continue;
                        }
                        Some(Inst::End) if at == n => {
                            pc += 1;
                            continue;
                        }
                        Some(Inst::Boundary(want)) => {
                            let before = at > 0 && chars.get(at - 1).is_some_and(|c| is_word(*c));
                            let after = here.is_some_and(is_word);
                            if (before != after) == *want {
                                pc += 1;
                                continue;
                            }
                            false
                        }
                        Some(Inst::Split(a, b)) => {
                            stack.push((*b, at));
                            pc = *a;
                            continue;
                        }
                        Some(Inst::Jmp(a)) => {
                            pc = *a;
                            continue;
                        }
                        Some(Inst::Match) => return Ok(true),
                        _ => false,
                    };
                    if !advance {
                        break;
                    }
                    pc += 1;
                    at += 1;
                }
            }
        }
        Ok(false)
    }
}

impl Parser {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.i).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let hit = self.peek() == Some(c);
        if hit {
            self.i += 1;
        }
        hit
    }

    fn next(&mut self) -> Option<char> {
        let c = self.peek();
        self.i += usize::from(c.is_some());
        c
    }

    fn alternation(&mut self) -> Result<Vec<Vec<Node>>, String> {
        let mut alts = vec![self.sequence()?];
        while self.eat('|') {
            alts.push(self.sequence()?);
        }
        Ok(alts)
    }

    fn sequence(&mut self) -> Result<Vec<Node>, String> {
        let mut seq = Vec::new();
        while !matches!(self.peek(), None | Some('|') | Some(')')) {
            let atom = self.atom()?;
            seq.push(self.quantified(atom)?);
        }
        Ok(seq)
    }

    fn atom(&mut self) -> Result<Node, String> {
        let Some(c) = self.next() else {
            return Err("unexpected end".into());
        };
        let inst = match c {
            '(' => {
                if self.eat('?') && !self.eat(':') {
                    return Err("lookaround and named groups are not supported".into());
                }
                self.depth += 1;
                if self.depth > MAX_GROUPS {
                    return Err("groups nested too deep".into());
                }
                let alts = self.alternation()?;
                self.depth -= 1;
                if !self.eat(')') {
                    return Err("unbalanced `(`".into());
                }
                return Ok(Node::Group(alts));
            }
            '[' => self.class()?,
            '.' => Inst::Any,
            '^' => Inst::Start,
            '$' => Inst::End,
            '*' | '+' | '?' => return Err(format!("nothing to repeat before `{c}`")),
            '\\' => match self.escape(false)? {
                Escape::Char(c) => Inst::Char(c),
                Escape::Item(item) => self.add_class(false, vec![item]),
                Escape::Boundary(b) => Inst::Boundary(b),
            },
            c => Inst::Char(c),
        };
        Ok(Node::Inst(inst))
    }

    fn add_class(&mut self, negated: bool, items: Vec<Item>) -> Inst {
        self.classes.push(Class { negated, items });
        Inst::Class(self.classes.len() - 1)
    }

    /// A bracket class, after its `[`.
    fn class(&mut self) -> Result<Inst, String> {
        let negated = self.eat('^');
        let mut items = Vec::new();
        loop {
            let lo = match self.next() {
                None => return Err("unterminated character class".into()),
                Some(']') => break,
                Some('\\') => match self.escape(true)? {
                    Escape::Char(c) => c,
                    Escape::Item(item) => {
                        items.push(item);
                        continue;
                    }
                    Escape::Boundary(_) => return Err("`\\B` in a class".into()),
                },
                Some(c) => c,
            };
            let is_range =
                self.peek() == Some('-') && !matches!(self.chars.get(self.i + 1), None | Some(']'));
            if !is_range {
                items.push(Item::Range(lo, lo));
                continue;
            }
            self.i += 1;
            let hi = match self.next() {
                Some('\\') => match self.escape(true)? {
                    Escape::Char(c) => c,
                    _ => return Err("a class escape cannot end a range".into()),
                },
                Some(c) => c,
                None => return Err("unterminated character class".into()),
            };
            if hi < lo {
                return Err(format!("range out of order `{lo}-{hi}`"));
            }
            items.push(Item::Range(lo, hi));
        }
        Ok(self.add_class(negated, items))
    }

    /// An escape, after its `\`.
    fn escape(&mut self, in_class: bool) -> Result<Escape, String> {
        let Some(c) = self.next() else {
            return Err("trailing `\\`".into());
        };
        Ok(match c {
            'd' | 'D' => Escape::Item(Item::Digit(c == 'D')),
            'w' | 'W' => Escape::Item(Item::Word(c == 'W')),
            's' | 'S' => Escape::Item(Item::Space(c == 'S')),
            'b' if in_class => Escape::Char('\u{8}'),
            'b' | 'B' => Escape::Boundary(c == 'b'),
            'n' => Escape::Char('\n'),
            't' => Escape::Char('\t'),
            'r' => Escape::Char('\r'),
            'f' => Escape::Char('\u{c}'),
            'v' => Escape::Char('\u{b}'),
            '0' => Escape::Char('\0'),
            'u' => Escape::Char(self.hex(4)?),
            'x' => Escape::Char(self.hex(2)?),
            '1'..='9' | 'k' => return Err("backreferences are not supported".into()),
            'p' | 'P' => return Err("Unicode property escapes are not supported".into()),
            c if c.is_ascii_punctuation() => Escape::Char(c),
            c => return Err(format!("unknown escape `\\{c}`")),
        })
    }

    fn hex(&mut self, digits: usize) -> Result<char, String> {
        let mut code = 0u32;
        for _ in 0..digits {
            let d = self.next().and_then(|c| c.to_digit(16));
            code = code * 16 + d.ok_or("bad hex escape")?;
        }
        char::from_u32(code).ok_or_else(|| "bad hex escape".into())
    }

    /// `atom` with the quantifier that follows it, if any.
    fn quantified(&mut self, atom: Node) -> Result<Node, String> {
        let (min, max) = match self.peek() {
            Some('{') => match self.braces() {
                Some(q) => q,
                None => return Ok(atom),
            },
            Some(c @ ('*' | '+' | '?')) => {
                self.i += 1;
                (u32::from(c == '+'), (c == '?').then_some(1))
            }
            _ => return Ok(atom),
        };
        // Lazy or greedy gives the same answer to "is there a match?".
        self.eat('?');
        if matches!(
            atom,
            Node::Inst(Inst::Start | Inst::End | Inst::Boundary(_))
        ) {
            return Err("nothing to repeat before a quantifier".into());
        }
        if max.is_some_and(|m| m < min) {
            return Err("repeat range out of order".into());
        }
        if min > MAX_REPEAT || max.is_some_and(|m| m > MAX_REPEAT) {
            return Err(format!("repeat count above {MAX_REPEAT}"));
        }
        Ok(Node::Repeat(Box::new(atom), min, max))
    }

    /// `{n}`, `{n,}`, `{n,m}` at `self.i`, consumed; `None` (nothing consumed) for a `{` that is
    /// not a quantifier (a literal then).
    fn braces(&mut self) -> Option<(u32, Option<u32>)> {
        let start = self.i;
        self.i += 1;
        let min = self.number();
        let q = match (min, self.next()) {
            (Some(min), Some('}')) => Some((min, Some(min))),
            (Some(min), Some(',')) => match (self.number(), self.next()) {
                (max, Some('}')) => Some((min, max)),
                _ => None,
            },
            _ => None,
        };
        if q.is_none() {
            self.i = start;
        }
        q
    }

    fn number(&mut self) -> Option<u32> {
        let mut n: Option<u32> = None;
        while let Some(d) = self.peek().and_then(|c| c.to_digit(10)) {
            self.i += 1;
            n = Some(n.unwrap_or(0).saturating_mul(10).saturating_add(d));
        }
        n
    }
}

fn emit_alternatives(alts: &[Vec<Node>], program: &mut Vec<Inst>) -> Result<(), String> {
    let mut jumps = Vec::new();
    for (k, seq) in alts.iter().enumerate() {
        let last = k + 1 == alts.len();
        let split = program.len();
        if !last {
            program.push(Inst::Split(split + 1, 0));
        }
        for node in seq {
            emit(node, program)?;
        }
        if !last {
            jumps.push(program.len());
            program.push(Inst::Jmp(0));
            let next = program.len();
            program[split] = Inst::Split(split + 1, next);
        }
    }
    let end = program.len();
    for j in jumps {
        program[j] = Inst::Jmp(end);
    }
    Ok(())
}

fn emit(node: &Node, program: &mut Vec<Inst>) -> Result<(), String> {
    if program.len() > MAX_PROGRAM {
        return Err("pattern too large".into());
    }
    match node {
        Node::Inst(i) => program.push(*i),
        Node::Group(alts) => emit_alternatives(alts, program)?,
        Node::Repeat(atom, min, max) => {
            for _ in 0..*min {
                emit(atom, program)?;
            }
            match max {
                None => {
                    let split = program.len();
                    program.push(Inst::Split(split + 1, 0));
                    emit(atom, program)?;
                    program.push(Inst::Jmp(split));
                    let end = program.len();
                    program[split] = Inst::Split(split + 1, end);
                }
                Some(max) => {
                    let mut holes = Vec::new();
                    for _ in *min..*max {
                        holes.push(program.len());
                        program.push(Inst::Split(0, 0));
                        emit(atom, program)?;
                    }
                    let end = program.len();
                    for h in holes {
                        program[h] = Inst::Split(h + 1, end);
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn parse(s: &str) -> Value {
        serde_json::from_str(s).unwrap_or_else(|e| panic!("test JSON {s}: {e}"))
    }

    /// `value` against `schema` gives exactly `expected` (violations as displayed); the schema
    /// itself passes `check_schema`.
    #[track_caller]
    fn check(schema: &str, value: &str, expected: &[&str]) {
        let schema = parse(schema);
        assert_eq!(check_schema(&schema), Ok(()), "schema {schema}");
        let got: Vec<String> = validate(&schema, &parse(value))
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(got, expected, "value {value} against {schema}");
    }

    #[test]
    fn every_keyword_passes_and_fails() {
        let cases: &[(&str, &str, &[&str])] = &[
            // type
            (r#"{"type":"string"}"#, r#""x""#, &[]),
            (
                r#"{"type":"string"}"#,
                "1",
                &["`$`: expected string, got number 1"],
            ),
            (r#"{"type":"integer"}"#, "3", &[]),
            (r#"{"type":"integer"}"#, "3.0", &[]),
            (r#"{"type":"integer"}"#, "-7", &[]),
            (
                r#"{"type":"integer"}"#,
                "1.5",
                &["`$`: expected integer, got number 1.5"],
            ),
            (
                r#"{"type":"integer"}"#,
                r#""1""#,
                &[r#"`$`: expected integer, got string "1""#],
            ),
            (r#"{"type":"number"}"#, "1.5", &[]),
            (
                r#"{"type":"number"}"#,
                "true",
                &["`$`: expected number, got boolean true"],
            ),
            (r#"{"type":["string","null"]}"#, "null", &[]),
            (
                r#"{"type":["string","null"]}"#,
                "{}",
                &["`$`: expected string or null, got object"],
            ),
            (
                r#"{"type":"object"}"#,
                "[]",
                &["`$`: expected object, got array"],
            ),
            (
                r#"{"type":"array"}"#,
                "null",
                &["`$`: expected array, got null"],
            ),
            (r#"{"type":"boolean"}"#, "false", &[]),
            (
                r#"{"type":"string"}"#,
                r#"["a"]"#,
                &["`$`: expected string, got array"],
            ),
            // a long string is shortened in the message, by characters
            (
                r#"{"type":"integer"}"#,
                r#""一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二三""#,
                &[
                    r#"`$`: expected integer, got string "一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十一二三四五六七八九十…""#,
                ],
            ),
            // enum, const
            (r#"{"enum":["low","high"]}"#, r#""low""#, &[]),
            (
                r#"{"enum":["low","high"]}"#,
                r#""medium""#,
                &[r#"`$`: must be one of "low", "high""#],
            ),
            (r#"{"enum":[1,2,null]}"#, "2.0", &[]),
            (r#"{"enum":[1,2,null]}"#, "null", &[]),
            (r#"{"const":"x"}"#, r#""x""#, &[]),
            (r#"{"const":{"a":[1]}}"#, r#"{"a":[1.0]}"#, &[]),
            (r#"{"const":"x"}"#, r#""y""#, &[r#"`$`: must be "x""#]),
            // required, properties, additionalProperties
            (
                r#"{"required":["a","b"],"properties":{"a":{"type":"string"}}}"#,
                r#"{"a":"x","b":1,"c":2}"#,
                &[],
            ),
            (
                r#"{"required":["a","b"]}"#,
                r#"{"a":1}"#,
                &["`$`: missing required property `b`"],
            ),
            (
                r#"{"properties":{"a":{"type":"string"}}}"#,
                r#"{"a":1}"#,
                &["`$.a`: expected string, got number 1"],
            ),
            (
                r#"{"properties":{"a":{}},"additionalProperties":false}"#,
                r#"{"a":1,"notes":2}"#,
                &["`$`: unknown property `notes` (allowed: a)"],
            ),
            (
                r#"{"additionalProperties":false}"#,
                r#"{"x":1}"#,
                &["`$`: unknown property `x` (no properties allowed)"],
            ),
            (
                r#"{"properties":{"a":{}},"additionalProperties":{"type":"integer"}}"#,
                r#"{"a":"s","b":1,"c d":"e"}"#,
                &[r#"`$["c d"]`: expected integer, got string "e""#],
            ),
            (
                r#"{"additionalProperties":{"type":"integer"}}"#,
                r#"{"目标":"x","a.b":1,"_ok9":"y"}"#,
                &[
                    r#"`$._ok9`: expected integer, got string "y""#,
                    r#"`$["目标"]`: expected integer, got string "x""#,
                ],
            ),
            // items, minItems, maxItems, uniqueItems
            (r#"{"items":{"type":"integer"}}"#, "[1,2,3]", &[]),
            (
                r#"{"items":{"type":"integer"}}"#,
                r#"[1,"2",3,null]"#,
                &[
                    r#"`$[1]`: expected integer, got string "2""#,
                    "`$[3]`: expected integer, got null",
                ],
            ),
            (
                r#"{"items":[{"type":"string"},{"type":"integer"}]}"#,
                r#"["a",1,true]"#,
                &[],
            ),
            (
                r#"{"items":[{"type":"string"},{"type":"integer"}]}"#,
                r#"[1,"a"]"#,
                &[
                    "`$[0]`: expected string, got number 1",
                    r#"`$[1]`: expected integer, got string "a""#,
                ],
            ),
            (r#"{"minItems":1,"maxItems":2}"#, "[1,2]", &[]),
            (
                r#"{"minItems":1}"#,
                "[]",
                &["`$`: must have at least 1 item, got 0"],
            ),
            (
                r#"{"maxItems":2}"#,
                "[1,2,3]",
                &["`$`: must have at most 2 items, got 3"],
            ),
            (r#"{"uniqueItems":true}"#, r#"[1,"1",[1],{"a":1}]"#, &[]),
            (
                r#"{"uniqueItems":true}"#,
                r#"[{"a":1},2,{"a":1.0}]"#,
                &["`$`: items must be unique: [0] equals [2]"],
            ),
            (r#"{"uniqueItems":false}"#, "[1,1]", &[]),
            // numbers
            (r#"{"minimum":1,"maximum":10}"#, "1", &[]),
            (r#"{"minimum":1,"maximum":10}"#, "10", &[]),
            (r#"{"minimum":1}"#, "0", &["`$`: must be >= 1, got 0"]),
            (
                r#"{"maximum":10}"#,
                "10.5",
                &["`$`: must be <= 10, got 10.5"],
            ),
            (r#"{"exclusiveMinimum":0}"#, "0.1", &[]),
            (
                r#"{"exclusiveMinimum":0}"#,
                "0",
                &["`$`: must be > 0, got 0"],
            ),
            (
                r#"{"exclusiveMaximum":5}"#,
                "5",
                &["`$`: must be < 5, got 5"],
            ),
            (
                r#"{"minimum":1,"exclusiveMinimum":true}"#,
                "1",
                &["`$`: must be > 1, got 1"],
            ),
            (r#"{"multipleOf":5}"#, "15", &[]),
            (
                r#"{"multipleOf":5}"#,
                "7",
                &["`$`: must be a multiple of 5, got 7"],
            ),
            (r#"{"multipleOf":0.1}"#, "0.3", &[]),
            (
                r#"{"multipleOf":0.5}"#,
                "0.3",
                &["`$`: must be a multiple of 0.5, got 0.3"],
            ),
            // number keywords do not apply to other types
            (r#"{"minimum":1,"minLength":3,"minItems":1}"#, "true", &[]),
            // strings: lengths in characters
            (r#"{"minLength":2,"maxLength":3}"#, r#""北京""#, &[]),
            (
                r#"{"maxLength":3}"#,
                r#""北京市海淀区""#,
                &["`$`: must be at most 3 characters long, got 6"],
            ),
            (
                r#"{"minLength":1}"#,
                r#""""#,
                &["`$`: must be at least 1 character long, got 0"],
            ),
            (r#"{"pattern":"^[A-Z]{3}-\\d+$"}"#, r#""ORD-42""#, &[]),
            (
                r#"{"pattern":"^[A-Z]{3}-\\d+$"}"#,
                r#""ord-42""#,
                &[r#"`$`: does not match pattern ^[A-Z]{3}-\d+$"#],
            ),
            // anyOf, oneOf, allOf, not
            (
                r#"{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}"#,
                "3",
                &[],
            ),
            (
                r#"{"anyOf":[{"type":"string"},{"type":"integer","minimum":0}]}"#,
                "-3",
                &["`$`: matches none of the anyOf alternatives (closest: expected string, got number -3)"],
            ),
            (
                r#"{"anyOf":[{"required":["a","b"]},{"properties":{"a":{"type":"string"}}}]}"#,
                r#"{"a":1}"#,
                &["`$`: matches none of the anyOf alternatives (closest: missing required property `b`)"],
            ),
            (
                r#"{"anyOf":[{"required":["a","b","c"]},{"properties":{"a":{"type":"string"}}}]}"#,
                r#"{"a":1}"#,
                &["`$`: matches none of the anyOf alternatives (closest: `$.a`: expected string, got number 1)"],
            ),
            (
                r#"{"oneOf":[{"type":"integer"},{"type":"string"}]}"#,
                r#""a""#,
                &[],
            ),
            (
                r#"{"oneOf":[{"type":"integer"},{"minimum":2}]}"#,
                "3",
                &["`$`: matches alternatives 1 and 2 of oneOf, must match exactly one"],
            ),
            (
                r#"{"oneOf":[{"type":"integer"},{"type":"string"}]}"#,
                "null",
                &["`$`: matches none of the oneOf alternatives (closest: expected integer, got null)"],
            ),
            (
                r#"{"allOf":[{"type":"integer"},{"minimum":2},{"maximum":0}]}"#,
                "1",
                &["`$`: must be >= 2, got 1", "`$`: must be <= 0, got 1"],
            ),
            (r#"{"not":{"type":"null"}}"#, "1", &[]),
            (
                r#"{"not":{"type":"null"}}"#,
                "null",
                &["`$`: must not match the schema in `not`"],
            ),
            // boolean schemas
            (r#"{"properties":{"a":true,"b":false}}"#, r#"{"a":1}"#, &[]),
            (
                r#"{"properties":{"a":true,"b":false}}"#,
                r#"{"b":1}"#,
                &["`$.b`: no value is allowed here"],
            ),
            // $ref
            (
                r##"{"$defs":{"id":{"type":"integer","minimum":1}},"properties":{"a":{"$ref":"#/$defs/id"}}}"##,
                r#"{"a":0}"#,
                &["`$.a`: must be >= 1, got 0"],
            ),
            (
                r##"{"definitions":{"s":{"type":"string"}},"items":{"$ref":"#/definitions/s"}}"##,
                r#"["a",2]"#,
                &["`$[1]`: expected string, got number 2"],
            ),
            // a recursive schema (a tree) is fine: each $ref goes one level into the value
            (
                r##"{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"children":{"type":"array","items":{"$ref":"#"}}}}"##,
                r#"{"name":"a","children":[{"name":"b","children":[{"name":"c"},{"children":[]}]}]}"#,
                &["`$.children[0].children[1]`: missing required property `name`"],
            ),
            // unknown keywords are ignored
            (
                r#"{"title":"T","description":"d","format":"email","default":1,"$schema":"x","examples":[]}"#,
                r#""not an email""#,
                &[],
            ),
        ];
        for (schema, value, expected) in cases {
            check(schema, value, expected);
        }
    }

    const PLANNER: &str = r#"{"type":"object","required":["goal","steps","questions"],"additionalProperties":false,
     "properties":{"goal":{"type":"string"},
       "steps":{"type":"array","items":{"type":"object","required":["id","action","done_when"],"additionalProperties":false,
          "properties":{"id":{"type":"integer","minimum":1},"action":{"type":"string"},"done_when":{"type":"string"},
                        "depends_on":{"type":"array","items":{"type":"integer"}}}}},
       "questions":{"type":"array","items":{"type":"string"}}}}"#;

    #[test]
    fn the_planner_schema() {
        let good = r#"{"goal":"订一张两人桌","steps":[
            {"id":1,"action":"找附近的餐厅","done_when":"列出三家"},
            {"id":2,"action":"打电话","done_when":"订好","depends_on":[1]}],"questions":[]}"#;
        check(PLANNER, good, &[]);
        let bad = r#"{"goal":"x","steps":[
            {"id":"1","action":"a"},
            {"id":0,"action":"b","done_when":"c","depends_on":["1"],"notes":"n"}],
            "questions":[null],"extra":true}"#;
        check(
            PLANNER,
            bad,
            &[
                "`$`: unknown property `extra` (allowed: goal, questions, steps)",
                "`$.questions[0]`: expected string, got null",
                "`$.steps[0]`: missing required property `done_when`",
                r#"`$.steps[0].id`: expected integer, got string "1""#,
                r#"`$.steps[1].depends_on[0]`: expected integer, got string "1""#,
                "`$.steps[1].id`: must be >= 1, got 0",
                "`$.steps[1]`: unknown property `notes` (allowed: action, depends_on, done_when, id)",
            ],
        );
        check(PLANNER, "[]", &["`$`: expected object, got array"]);
        check(
            PLANNER,
            "{}",
            &[
                "`$`: missing required property `goal`",
                "`$`: missing required property `steps`",
                "`$`: missing required property `questions`",
            ],
        );
    }

    #[test]
    fn violations_are_capped() {
        let schema = json!({"items": {"type": "string"}});
        let value = Value::Array((0..100).map(Value::from).collect());
        let got = validate(&schema, &value);
        assert_eq!(got.len(), MAX_VIOLATIONS);
        assert_eq!(got[19].path, "$[19]");
    }

    #[test]
    fn ref_cycles_are_refused_up_front_and_stopped_when_validating() {
        for (schema, error) in [
            (
                r##"{"$ref":"#"}"##,
                "`#/$ref`: `$ref` cycle through # that never reaches the value",
            ),
            (
                r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}"##,
                "`#/$defs/a/$ref`: `$ref` cycle through #/$defs/b that never reaches the value",
            ),
            (
                r##"{"$defs":{"a":{"anyOf":[{"type":"null"},{"not":{"$ref":"#/$defs/a"}}]}}}"##,
                "`#/$defs/a/anyOf/1/not/$ref`: `$ref` cycle through #/$defs/a that never reaches the value",
            ),
        ] {
            let schema = parse(schema);
            assert_eq!(check_schema(&schema), Err(error.to_owned()), "{schema}");
        }
        // Validation still ends, with a violation instead of a stack overflow.
        for (schema, value, expected) in [
            (
                r##"{"$ref":"#"}"##,
                "1",
                "`$`: `$ref` # nests too deep (a cycle?)",
            ),
            (
                r##"{"$defs":{"a":{"$ref":"#/$defs/b"},"b":{"allOf":[{"$ref":"#/$defs/a"}]}},"properties":{"x":{"$ref":"#/$defs/a"}}}"##,
                r#"{"x":1}"#,
                "`$.x`: `$ref` #/$defs/a nests too deep (a cycle?)",
            ),
        ] {
            let got: Vec<String> = validate(&parse(schema), &parse(value))
                .iter()
                .map(ToString::to_string)
                .collect();
            assert_eq!(got, [expected], "{schema}");
        }
        // A chain of refs longer than validation follows is refused too.
        let mut chain = serde_json::Map::new();
        for i in 0..40 {
            chain.insert(
                format!("c{i}"),
                json!({"$ref": format!("#/$defs/c{}", i + 1)}),
            );
        }
        chain.insert("c40".into(), json!({"type": "string"}));
        let schema = json!({"$defs": chain, "$ref": "#/$defs/c0"});
        assert_eq!(
            check_schema(&schema),
            Err("`#/$defs/c0/$ref`: `$ref`s nest deeper than 32 at #/$defs/c33 without reaching the value".into())
        );
        // Deep values against a recursive schema end without exhausting the stack.
        let mut deep = json!(1);
        for _ in 0..1000 {
            deep = json!([deep]);
        }
        let v = validate(&json!({"items": {"$ref": "#"}}), &deep);
        assert_eq!(v.len(), 1);
        assert_eq!(v[0].message, "nested too deep to check");
        // A diamond of refs is searched once per ref, not once per path.
        let mut defs = serde_json::Map::new();
        for i in 0..25 {
            let next = format!("#/$defs/d{}", i + 1);
            defs.insert(
                format!("d{i}"),
                json!({"anyOf": [{"$ref": next}, {"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert("d25".into(), json!({"type": "string"}));
        let schema = json!({"$defs": defs, "$ref": "#/$defs/d0"});
        assert_eq!(check_schema(&schema), Ok(()));
        // Validating it is exponential, so the step budget stops it.
        let v = validate(&schema, &json!(1));
        assert!(
            v.iter().any(|v| v.message == "schema too complex to check"),
            "{v:?}"
        );
    }

    #[test]
    fn schemas_we_cannot_apply_are_errors() {
        for (schema, error) in [
            (r#"3"#, "`#`: a schema must be an object or a boolean"),
            (
                r#"{"type":"str"}"#,
                "`#/type`: must be a type name (string, number, integer, boolean, object, array, null) or an array of them",
            ),
            (r#"{"type":[]}"#, "`#/type`: must be a type name (string, number, integer, boolean, object, array, null) or an array of them"),
            (r#"{"enum":"a"}"#, "`#/enum`: must be an array"),
            (r#"{"required":["a",1]}"#, "`#/required`: must be an array of strings"),
            (r#"{"properties":[]}"#, "`#/properties`: must be an object"),
            (
                r#"{"properties":{"a/b":{"minimum":"1"}}}"#,
                "`#/properties/a~1b/minimum`: must be a number",
            ),
            (r#"{"items":[{},7]}"#, "`#/items/1`: a schema must be an object or a boolean"),
            (r#"{"anyOf":[]}"#, "`#/anyOf`: must be a non-empty array of schemas"),
            (r#"{"minItems":-1}"#, "`#/minItems`: must be a non-negative integer"),
            (r#"{"maxLength":1.5}"#, "`#/maxLength`: must be a non-negative integer"),
            (r#"{"uniqueItems":"yes"}"#, "`#/uniqueItems`: must be a boolean"),
            (r#"{"exclusiveMaximum":"5"}"#, "`#/exclusiveMaximum`: must be a number"),
            (r#"{"multipleOf":0}"#, "`#/multipleOf`: must be a number greater than 0"),
            (r#"{"pattern":5}"#, "`#/pattern`: must be a string"),
            (
                r#"{"pattern":"(?=a)b"}"#,
                "`#/pattern`: unsupported pattern `(?=a)b`: lookaround and named groups are not supported",
            ),
            (
                r#"{"$ref":"other.json#/a"}"#,
                "`#/$ref`: unknown `$ref` other.json#/a (only local ones like #/$defs/name)",
            ),
            (
                r##"{"$ref":"#/$defs/missing"}"##,
                "`#/$ref`: unknown `$ref` #/$defs/missing (only local ones like #/$defs/name)",
            ),
            (
                r##"{"$defs":{"n":5},"$ref":"#/$defs/n"}"##,
                "`#/$defs/n`: a schema must be an object or a boolean",
            ),
            (
                r##"{"properties":{"a":{"$ref":"#/required"}},"required":[]}"##,
                "`#/properties/a/$ref`: `$ref` #/required does not point to a schema",
            ),
            (r#"{"not":"x"}"#, "`#/not`: a schema must be an object or a boolean"),
        ] {
            assert_eq!(check_schema(&parse(schema)), Err(error.to_owned()), "{schema}");
        }
        assert_eq!(check_schema(&parse(PLANNER)), Ok(()));
        assert_eq!(check_schema(&json!(true)), Ok(()));
        // An unknown $ref met while validating is a violation, not a panic.
        let v = validate(&json!({"$ref": "#/nope"}), &json!(1));
        assert_eq!(v[0].to_string(), "`$`: unknown `$ref` #/nope");
        let v = validate(&json!({"pattern": "("}), &json!("a"));
        assert_eq!(
            v[0].to_string(),
            "`$`: cannot check pattern (: unbalanced `(`"
        );
    }

    #[track_caller]
    fn check_pattern(pattern: &str, text: &str, expected: Result<bool, &str>) {
        assert_eq!(
            pattern_matches(pattern, text),
            expected.map_err(str::to_owned),
            "{pattern:?} on {text:?}"
        );
    }

    #[test]
    fn patterns() {
        let cases: &[(&str, &str, Result<bool, &str>)] = &[
            ("abc", "xxabcxx", Ok(true)),
            ("abc", "ab", Ok(false)),
            ("", "", Ok(true)),
            ("^abc$", "abc", Ok(true)),
            ("^abc$", "abcd", Ok(false)),
            ("^a.c$", "a😀c", Ok(true)),
            ("^a.c$", "a\nc", Ok(false)),
            ("^[A-Z]{3}-\\d+$", "ORD-2024", Ok(true)),
            ("^[A-Z]{3}-\\d+$", "OR-2024", Ok(false)),
            ("^[A-Z]{3}-\\d+$", "ORDE-1", Ok(false)),
            ("^[a-z0-9_]+$", "snake_case_9", Ok(true)),
            ("^[a-z0-9_]+$", "Snake", Ok(false)),
            (
                "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
                "a.b@example.org",
                Ok(true),
            ),
            (
                "^[^@\\s]+@[^@\\s]+\\.[a-z]{2,}$",
                "a b@example.org",
                Ok(false),
            ),
            ("^\\w+\\s\\w+$", "hello world", Ok(true)),
            ("^\\W$", "a", Ok(false)),
            ("^\\D\\S$", "x1", Ok(true)),
            ("^a{2}$", "aa", Ok(true)),
            ("^a{2}$", "aaa", Ok(false)),
            ("^a{2,}$", "aaaa", Ok(true)),
            ("^a{2,3}$", "aaaa", Ok(false)),
            ("^a{2,3}$", "aaa", Ok(true)),
            ("^ab?c*d+$", "acccd", Ok(true)),
            ("^ab?c*d+$", "abbd", Ok(false)),
            ("^(cat|dog)s?$", "dogs", Ok(true)),
            ("^(cat|dog)s?$", "cow", Ok(false)),
            ("^(?:a|b)+$", "abba", Ok(true)),
            ("^(a|)$", "", Ok(true)),
            ("^\\d{4}-\\d{2}-\\d{2}$", "2026-12-01", Ok(true)),
            ("^\\.\\-\\\\$", ".-\\", Ok(true)),
            ("^[\\-+]?\\d+(\\.\\d+)?$", "-3.25", Ok(true)),
            ("^[a-]+$", "a-a", Ok(true)),
            ("^[\\u4e00-\\u9fa5]+$", "你好世界", Ok(true)),
            ("^[\\u4e00-\\u9fa5]+$", "你好 world", Ok(false)),
            ("^[一-龥]{2,4}$", "张三", Ok(true)),
            ("\\bcat\\b", "a cat!", Ok(true)),
            ("\\bcat\\b", "concat", Ok(false)),
            ("\\Bcat", "concat", Ok(true)),
            ("a{,2}", "a{,2}", Ok(true)),
            ("^x{1}?$", "x", Ok(true)),
            ("^.*?$", "lazy", Ok(true)),
            ("^\\x41$", "A", Ok(true)),
            ("^[]$", "a", Ok(false)),
            ("^(a*)*$", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaab", Ok(false)),
            // errors
            (
                "(?=a)",
                "a",
                Err("lookaround and named groups are not supported"),
            ),
            (
                "(?<n>a)",
                "a",
                Err("lookaround and named groups are not supported"),
            ),
            ("(a)\\1", "aa", Err("backreferences are not supported")),
            (
                "\\p{L}",
                "a",
                Err("Unicode property escapes are not supported"),
            ),
            ("\\q", "a", Err("unknown escape `\\q`")),
            ("a\\", "a", Err("trailing `\\`")),
            ("(a", "a", Err("unbalanced `(`")),
            ("a)", "a", Err("unbalanced `)`")),
            ("[a-", "a", Err("unterminated character class")),
            ("[z-a]", "a", Err("range out of order `z-a`")),
            ("*a", "a", Err("nothing to repeat before `*`")),
            ("a**", "a", Err("nothing to repeat before `*`")),
            ("^*", "a", Err("nothing to repeat before a quantifier")),
            ("a{3,2}", "a", Err("repeat range out of order")),
            ("a{1001}", "a", Err("repeat count above 1000")),
            ("(a{1000}){1000}", "a", Err("pattern too large")),
            ("\\u12", "a", Err("bad hex escape")),
        ];
        for (pattern, text, expected) in cases {
            check_pattern(pattern, text, *expected);
        }
    }

    #[test]
    fn a_hostile_pattern_ends_with_an_answer_or_an_error() {
        // Exponential for a plain backtracker; the table of failed states keeps it linear.
        let text = format!("{}b", "a".repeat(5_000));
        check_pattern("^(a+)+$", &text, Ok(false));
        check_pattern("^(a|aa)*$", &text, Ok(false));
        check_pattern("(a*)*c", &text, Ok(false));
        // Linear is still too much past the budget: an error, quickly.
        let text = "a".repeat(200_000);
        check_pattern(
            "(a|a)*(a|a)*(a|a)*(a|a)*b",
            &text,
            Err("too many steps for this text"),
        );
        check_pattern(
            "(\\w{1,50}){1,50}z",
            &text,
            Err("text too long for this pattern"),
        );
    }
}
