//! Data-driven tests of the prompt library: rendering, validation diagnostics, YAML import
//! errors, the built-in files, and the YAML writer round trip.

use super::*;
use crate::session::{PromptSource, Role};
use std::collections::BTreeMap;

const FRAGMENTS: &str = r#"
persona:
  kind: role
  text: You are {name}.
rule:
  kind: constraint
  text: Never reveal secrets.
zh:
  kind: constraint
  text: 用中文回答。
fmt:
  kind: format
  text: "Answer as JSON: {{\"ok\": true}}"
shots:
  kind: examples
  examples:
    - input: 2+2 in {base}?
      output: "4"
    - input: 3+3?
      output: "6"
"#;

fn fragments() -> BTreeMap<String, Fragment> {
    let root = yaml::parse(FRAGMENTS).expect("fixture parses");
    validate::load_fragments("fragments.yaml", &root).expect("fixture is valid")
}

fn library(text: &str) -> Library {
    let templates = templates_from_yaml("t.yaml", text, &fragments()).unwrap_or_else(|d| {
        panic!(
            "{}",
            d.iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n")
        )
    });
    Library {
        templates,
        fragments: fragments(),
    }
}

fn vars(pairs: &[(&str, &str)]) -> Vars {
    pairs
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

const TEMPLATES: &str = r#"
plain:
  version: 1
  description: Plain.
  system: Be brief.
greet:
  version: 3
  description: Greets.
  system: "Hello {who}, literal {{braces}}."
  user: "Question from {who}: {question}"
  variables:
    who: {default: world}
    question: The question.
composed:
  version: 1
  description: Composed.
  system:
    - fragment: persona
    - Keep it short.
    - fragment: rule
    - fragment: zh
      when: lang == zh
    - text: "Speak {lang}."
      when: lang != auto
    - fragment: fmt
      when: json
  examples:
    - fragment: shots
    - input: "inline {name}?"
      output: "yes"
      when: lang == zh
  variables:
    name: {default: Satori}
    lang: {default: auto, options: [auto, en, zh]}
    json: {default: ""}
    base: {default: ten}
"#;

#[test]
fn rendering_cases() {
    let lib = library(TEMPLATES);
    // (key, what, vars, expected messages as "role: text", expected warnings)
    type Case<'a> = (
        &'a str,
        What,
        &'a [(&'a str, &'a str)],
        &'a [&'a str],
        &'a [&'a str],
    );
    let cases: &[Case] = &[
        ("plain", What::Preamble, &[], &["system: Be brief."], &[]),
        ("greet", What::System, &[], &["system: Hello world, literal {braces}."], &[]),
        ("greet", What::All, &[("who", "Ada"), ("question", "Why {x}?")],
            &["system: Hello Ada, literal {braces}.", "user: Question from Ada: Why {x}?"], &[]),
        // Values are inserted verbatim: braces inside them are never read as placeholders.
        ("greet", What::System, &[("who", "{question} {{x}}")], &["system: Hello {question} {{x}}, literal {braces}."], &[]),
        ("greet", What::System, &[("extra", "1")], &["system: Hello world, literal {braces}."], &["variable `extra` is not used by this template"]),
        ("composed", What::System, &[],
            &["system: You are Satori.\n\nKeep it short.\n\nNever reveal secrets."], &[]),
        ("composed", What::System, &[("lang", "zh"), ("json", "yes")],
            &["system: You are Satori.\n\nKeep it short.\n\nNever reveal secrets.\n\n用中文回答。\n\nSpeak zh.\n\nAnswer as JSON: {\"ok\": true}"], &[]),
        ("composed", What::System, &[("lang", "en"), ("name", "Bob")],
            &["system: You are Bob.\n\nKeep it short.\n\nNever reveal secrets.\n\nSpeak en."], &[]),
        ("composed", What::Preamble, &[("base", "binary")],
            &["system: You are Satori.\n\nKeep it short.\n\nNever reveal secrets.",
              "user*: 2+2 in binary?", "assistant*: 4", "user*: 3+3?", "assistant*: 6"], &[]),
        ("composed", What::Preamble, &[("lang", "zh")],
            &["system: You are Satori.\n\nKeep it short.\n\nNever reveal secrets.\n\n用中文回答。\n\nSpeak zh.",
              "user*: 2+2 in ten?", "assistant*: 4", "user*: 3+3?", "assistant*: 6", "user*: inline Satori?", "assistant*: yes"], &[]),
    ];
    for (key, what, v, want, warn) in cases {
        let r = lib
            .render_with("t", key, *what, &vars(v), None)
            .unwrap_or_else(|e| panic!("{key}: {e}"));
        let got: Vec<String> = r
            .messages
            .iter()
            .map(|m| {
                let role = match m.role {
                    PromptRole::System => "system",
                    PromptRole::User => "user",
                    PromptRole::Assistant => "assistant",
                };
                format!("{role}{}: {}", if m.example { "*" } else { "" }, m.content)
            })
            .collect();
        assert_eq!(got, *want, "{key} {v:?}");
        let warnings: Vec<String> = r.warnings.iter().map(ToString::to_string).collect();
        assert_eq!(warnings, *warn, "{key} {v:?}");
    }
}

#[test]
fn rendering_errors_are_values() {
    let lib = library(TEMPLATES);
    let err = |key: &str, what: What, v: &[(&str, &str)]| {
        lib.render_with("t", key, what, &vars(v), None)
            .expect_err(key)
            .to_string()
    };
    assert_eq!(
        err("greet", What::All, &[]),
        "prompt `greet` needs a value for variable `question`"
    );
    assert_eq!(
        err("nope", What::System, &[]),
        "there is no prompt `nope` in `t`"
    );
    assert_eq!(
        err("plain", What::All, &[]),
        "prompt `plain` has no user template"
    );
    assert_eq!(
        err("composed", What::System, &[("lang", "fr")]),
        "`fr` is not an allowed value of `lang` (allowed: auto, en, zh)"
    );
    assert_eq!(
        render("nope", "x", &Vars::new()).unwrap_err(),
        PromptError::UnknownTemplate("nope".into())
    );
    assert!(matches!(
        render(BUILTIN, "nope", &Vars::new()),
        Err(PromptError::UnknownKey { .. })
    ));
    // Several missing variables are all named, in order of use.
    let two = library(
        "two:\n  version: 1\n  description: d\n  system: \"{b} {a}\"\n  variables: {a: x, b: y}\n",
    );
    assert_eq!(
        two.render_with("t", "two", What::System, &Vars::new(), None)
            .unwrap_err()
            .to_string(),
        "prompt `two` needs a value for variables `b`, `a`"
    );
}

/// Broken template files: (file text, every expected diagnostic as `line:col: key: message`,
/// in order; the file name `t.yaml:` is added by the test).
const BROKEN: &[(&str, &[&str])] = &[
    ("a:\n  version: 1\n  description: d\n", &["1:1: `a`: missing `system` (the system prompt)"]),
    ("a:\n  description: d\n  system: s\n", &["1:1: `a`: missing `version` (a whole number, bumped when the prompt changes)"]),
    ("a:\n  version: 1\n  system: s\n", &["1:1: `a`: missing `description`"]),
    ("a:\n  version: one\n  description: d\n  system: s\n", &["2:12: `a.version`: expected a whole number from 1"]),
    ("a:\n  version: 1\n  description: d\n  system: \"\"\n", &["4:11: `a.system`: must not be empty"]),
    ("a:\n  version: 1\n  description: d\n  sytem: s\n", &["4:3: `a.sytem`: unknown field (expected one of: version, description, system, examples, user, variables, output_schema)", "1:1: `a`: missing `system` (the system prompt)"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - fragment: nope\n", &["5:17: `a.system[0].fragment`: unknown fragment `nope`"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - fragment: shots\n", &["5:17: `a.system[0].fragment`: fragment `shots` holds examples; list it under `examples`"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  examples:\n    - fragment: rule\n", &["6:17: `a.examples[0].fragment`: fragment `rule` is a `constraint` fragment, not `examples`"]),
    ("a:\n  version: 1\n  description: d\n  system: Hi {name}\n", &["4:11: `a.system`: placeholder `{name}` is not declared under `a.variables` (line 1, column 4 of this text)"]),
    ("a:\n  version: 1\n  description: d\n  system: >-\n    Hello\n\n    dear {name}\n", &["5:5: `a.system`: placeholder `{name}` is not declared under `a.variables` (line 2, column 6 of this text)"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - fragment: persona\n", &["5:17: `a.system[0].fragment (persona)`: placeholder `{name}` is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  user: \"{q}\"\n", &["5:9: `a.user`: placeholder `{q}` is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system: \"{output_schema}\"\n", &["4:11: `a.system`: placeholder `{output_schema}` is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system: \"a {b c\"\n", &["4:11: `a.system`: line 1 column 3 of this text: `{` does not start a placeholder like `{name}`; write `{{` for a literal brace"]),
    ("a:\n  version: 1\n  description: d\n  system: |\n    ok\n    x }\n", &["6:7: `a.system`: `}` closes nothing; write `}}` for a literal brace"]),
    ("a:\n  version: 1\n  description: d\n  system: |\n\n    one\n    x { y\n", &["7:7: `a.system`: `{` does not start a placeholder like `{name}`; write `{{` for a literal brace"]),
    ("a:\n  version: 1\n  description: d\n  system: |\n    Hello\n    dear {name}\n", &["6:10: `a.system`: placeholder `{name}` is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  examples:\n    - input: |\n        q {who}\n      output: a\n", &["7:11: `a.examples[0].input`: placeholder `{who}` is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - text: t\n      when: lang == en\n", &["6:13: `a.system[0].when`: condition uses `lang`, which is not declared under `a.variables`"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - text: t\n      when: lang == fr\n  variables:\n    lang: {options: [en, zh]}\n", &["6:13: `a.system[0].when`: `fr` is not one of the options of `lang` (en, zh)"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - text: t\n      when: 1x == y\n", &["6:13: `a.system[0].when`: condition `1x == y` must read `variable == value`, `variable != value` or `variable`"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  variables:\n    lang: {default: fr, options: [en]}\n", &["6:21: `a.variables.lang.default`: `fr` is not one of the options"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  variables:\n    output_schema: x\n", &["6:5: `a.variables.output_schema`: `output_schema` is reserved for the template's `output_schema` field"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  output_schema: \"{not json\"\n", &["5:18: `a.output_schema`: not valid JSON: key must be a string at line 1 column 2"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  output_schema: \"[1]\"\n", &["5:18: `a.output_schema`: expected a JSON Schema object"]),
    ("a:\n  version: 1\n  description: d\n  system: s\n  examples:\n    - input: q\n", &["6:7: `a.examples[0]`: missing `output`"]),
    ("a:\n  version: 1\n  description: d\n  system:\n    - text: t\n      fragment: rule\n", &["5:7: `a.system[0]`: a part has either `text` or `fragment`"]),
    ("bad name:\n  version: 1\n  description: d\n  system: s\n", &["1:1: `bad name`: a template name uses letters, digits, `-` and `_`, starts with a letter or digit, and has at most 64 characters"]),
    ("a: just text\n", &["1:4: `a`: expected a mapping, found text"]),
    ("- a\n- b\n", &["1:1: expected a mapping of template names to templates, found a list"]),
    ("", &["1:1: expected a mapping of template names to templates, found an empty value"]),
    ("a:\n  version: 1\n  version: 2\n", &["3:3: invalid YAML: duplicate key `version` (first written at line 2)"]),
    ("a:\n  version: 1\n  description: d\n  system: [unclosed\n", &["5:1: invalid YAML: while parsing a flow sequence, expected ',' or ']'"]),
    ("a:\n  version: 1\n description: d\n", &["3:2: invalid YAML: while parsing a block mapping, did not find expected key"]),
    ("a: &x\n  version: 1\n", &["1:4: invalid YAML: anchors (`&name`) are not supported"]),
];

#[test]
fn broken_files_fail_with_file_key_and_line() {
    for (text, want) in BROKEN {
        let d = templates_from_yaml("t.yaml", text, &fragments()).expect_err(text);
        let all: Vec<String> = d.iter().map(ToString::to_string).collect();
        let want: Vec<String> = want.iter().map(|w| format!("t.yaml:{w}")).collect();
        assert_eq!(all, want, "{text:?}");
    }
}

#[test]
fn broken_fragment_files() {
    // (file text, every expected diagnostic in order; `f.yaml:` is added by the test)
    let cases: &[(&str, &[&str])] = &[
        ("f:\n  text: x\n", &["1:1: `f`: missing `kind` (role, constraint, format or examples)"]),
        ("f:\n  kind: rule\n  text: x\n", &["2:9: `f.kind`: must be one of: role, constraint, format, examples"]),
        ("f:\n  kind: role\n", &["1:1: `f`: missing `text`"]),
        ("f:\n  kind: examples\n  text: x\n", &[
            "3:3: `f.text`: an `examples` fragment holds `examples`, not `text`",
            "1:1: `f`: missing `examples` (a list of input/output pairs)",
        ]),
        ("f:\n  kind: examples\n  examples: []\n", &["3:13: `f.examples`: the list is empty"]),
        ("f:\n  kind: examples\n  examples:\n    - input: a\n      answer: b\n", &[
            "5:7: `f.examples[0].answer`: unknown field (expected one of: input, output)",
            "4:7: `f.examples[0]`: missing `output`",
        ]),
        ("f:\n  kind: role\n  text: \"{oops\"\n", &["3:9: `f.text`: line 1 column 1 of this text: `{` does not start a placeholder like `{name}`; write `{{` for a literal brace"]),
    ];
    for (text, want) in cases {
        let root = yaml::parse(text).expect("parses");
        let d = validate::load_fragments("f.yaml", &root).expect_err(text);
        let all: Vec<String> = d.iter().map(ToString::to_string).collect();
        let want: Vec<String> = want.iter().map(|w| format!("f.yaml:{w}")).collect();
        assert_eq!(all, want, "{text:?}");
    }
}

#[test]
fn every_problem_of_a_file_is_reported_at_once() {
    let text =
        "a:\n  version: 1\n  description: d\n  system: \"{x}\"\nb:\n  version: 1\n  system: s\n";
    let d = templates_from_yaml("t.yaml", text, &fragments()).unwrap_err();
    let all: Vec<String> = d.iter().map(ToString::to_string).collect();
    assert_eq!(
        all,
        [
            "t.yaml:4:11: `a.system`: placeholder `{x}` is not declared under `a.variables`",
            "t.yaml:5:1: `b`: missing `description`",
        ]
    );
}

#[test]
fn builtin_library_is_embedded_and_every_template_renders() {
    let lib = builtin();
    let keys: Vec<&str> = lib.templates.iter().map(|t| t.key.as_str()).collect();
    for k in ["assistant", "coder", "planner", "summarizer", "translator"] {
        assert!(keys.contains(&k), "missing {k} in {keys:?}");
    }
    assert_eq!(keys[0], DEFAULT_ROLE, "the default role comes first");
    // Every top-level key of agents.yaml is embedded (the JSON read back completely).
    let source = include_str!("../../../../prompts/agents.yaml");
    let top = source
        .lines()
        .filter(|l| l.ends_with(':') && !l.starts_with([' ', '#']))
        .count();
    assert_eq!(top, lib.templates.len());
    for t in &lib.templates {
        // Required variables get a value; every option of every variable is tried.
        let mut base: Vars = t
            .variables
            .iter()
            .filter(|v| v.default.is_none())
            .map(|v| (v.name.clone(), format!("<{}>", v.name)))
            .collect();
        let r = render(BUILTIN, &t.key, &base).unwrap_or_else(|e| panic!("{}: {e}", t.key));
        assert!(r.warnings.is_empty(), "{}: {:?}", t.key, r.warnings);
        assert_eq!(r.messages[0].role, PromptRole::System);
        assert!(r.messages[0].content.len() > 40, "{}", t.key);
        for v in &t.variables {
            for o in &v.options {
                base.insert(v.name.clone(), o.clone());
                system_prompt(BUILTIN, &t.key, &base)
                    .unwrap_or_else(|e| panic!("{} {}={o}: {e}", t.key, v.name));
            }
        }
        assert!(!t.description.is_empty() && t.version >= 1);
    }
}

#[test]
fn builtin_prompts_say_what_later_features_rely_on() {
    let s = system_prompt(BUILTIN, "summarizer", &Vars::new()).unwrap();
    for word in [
        "ID",
        "order number",
        "amount",
        "date",
        "name",
        "open question",
        "verbatim",
    ] {
        assert!(s.contains(word), "summarizer lacks {word:?}: {s}");
    }
    let r = render(
        BUILTIN,
        "summarizer",
        &vars(&[("conversation", "user: order #A-17 for $12.50")]),
    )
    .unwrap();
    assert_eq!(
        r.messages.last().unwrap().content,
        "Summarize this conversation:\n\nuser: order #A-17 for $12.50"
    );
    assert!(render(BUILTIN, "summarizer", &Vars::new())
        .unwrap_err()
        .to_string()
        .contains("`conversation`"));

    let planner = builtin().get("planner").unwrap();
    let schema: serde_json::Value =
        serde_json::from_str(planner.output_schema.as_deref().unwrap()).unwrap();
    assert_eq!(schema["type"], "object");
    let r = render(BUILTIN, "planner", &Vars::new()).unwrap();
    assert!(r.messages[0]
        .content
        .contains("\"required\": [\"goal\", \"steps\", \"questions\"]"));
    // The few-shot answer is itself valid JSON with the declared top-level fields.
    let answer = r
        .messages
        .iter()
        .find(|m| m.role == PromptRole::Assistant)
        .unwrap();
    let plan: serde_json::Value =
        serde_json::from_str(&answer.content).expect("example plan is JSON");
    for field in ["goal", "steps", "questions"] {
        assert!(plan.get(field).is_some(), "example plan lacks {field}");
    }

    let zh = system_prompt(
        BUILTIN,
        "assistant",
        &vars(&[("reply_language", "Chinese")]),
    )
    .unwrap();
    assert!(
        zh.contains("Always reply in Chinese") && zh.contains("简体中文"),
        "{zh}"
    );
    let auto = system_prompt(BUILTIN, "assistant", &Vars::new()).unwrap();
    assert!(
        !auto.contains("Always reply in") && !auto.contains("简体中文"),
        "{auto}"
    );
}

#[test]
fn writer_round_trips_every_builtin_template() {
    let lib = builtin();
    for t in &lib.templates {
        let text = emit::template(t);
        let back = templates_from_yaml("x.yaml", &text, &lib.fragments)
            .unwrap_or_else(|d| panic!("{}:\n{text}\n{d:?}", t.key));
        assert_eq!(back, vec![t.clone()], "{text}");
    }
    let all = emit::templates(&lib.templates);
    assert_eq!(
        templates_from_yaml("x.yaml", &all, &lib.fragments).unwrap(),
        lib.templates
    );
}

#[test]
fn starting_a_session_records_origin_and_preamble() {
    let mut user = UserPrompts::default();
    let mut n = 0;
    let mut ids = || {
        n += 1;
        format!("m{n}")
    };
    let role = RoleRef {
        source: PromptSource::Builtin,
        key: "planner".into(),
    };
    let (origin, pre) = user::start(&role, &Vars::new(), builtin(), &user, &mut ids).unwrap();
    assert_eq!(
        (origin.key.as_str(), origin.version, origin.source),
        (
            "planner",
            builtin().get("planner").unwrap().version,
            PromptSource::Builtin
        )
    );
    assert!(
        origin.vars.is_empty(),
        "the output schema is not a session variable"
    );
    assert_eq!(
        pre.iter().map(|p| (p.role, p.example)).collect::<Vec<_>>(),
        vec![
            (Role::System, false),
            (Role::User, true),
            (Role::Assistant, true)
        ]
    );
    assert_eq!(pre[0].id, "m1");

    let role = RoleRef {
        source: PromptSource::Builtin,
        key: "assistant".into(),
    };
    let (origin, _) = user::start(&role, &Vars::new(), builtin(), &user, &mut ids).unwrap();
    assert_eq!(
        origin.vars,
        vars(&[("reply_language", "auto")]),
        "defaults are recorded"
    );

    // A user template can use built-in fragments.
    let text = "mine:\n  version: 4\n  description: d\n  system:\n    - fragment: honest-uncertainty\n    - \"Call me {nick}.\"\n  variables:\n    nick: Your nickname.\n";
    let t = templates_from_yaml("mine.yaml", text, &builtin().fragments)
        .unwrap()
        .remove(0);
    assert_eq!(
        user.merge(vec![UserTemplate {
            template: t.clone(),
            source: text.into()
        }]),
        0
    );
    let role = RoleRef {
        source: PromptSource::User,
        key: "mine".into(),
    };
    let e = user::start(&role, &Vars::new(), builtin(), &user, &mut ids).unwrap_err();
    assert_eq!(
        e.to_string(),
        "prompt `mine` needs a value for variable `nick`"
    );
    let (origin, pre) =
        user::start(&role, &vars(&[("nick", "Kim")]), builtin(), &user, &mut ids).unwrap();
    assert_eq!((origin.source, origin.version), (PromptSource::User, 4));
    assert_eq!(
        pre[0].content,
        "If you are not sure, say so instead of guessing.\n\nCall me Kim."
    );
    // Merging replaces by key; free keys avoid clashes; removal.
    assert_eq!(
        user.merge(vec![UserTemplate {
            template: t,
            source: String::new()
        }]),
        1
    );
    assert_eq!(user.templates.len(), 1);
    assert_eq!(user.free_key("mine"), "mine-2");
    assert_eq!(user.free_key("other"), "other");
    assert!(user.remove("mine") && !user.remove("mine"));
    for s in ["builtin:coder", "user:my-x"] {
        assert_eq!(RoleRef::decode(s).unwrap().encode(), s);
    }
    assert!(RoleRef::decode("other:x").is_none() && RoleRef::decode("coder").is_none());
}

#[test]
fn yaml_answer_from_the_module_decodes() {
    let ok = r#"{"ok":[{"template":{"key":"k","version":1,"description":"d","system":[{"source":{"text":"s"}}]},"source":"k: …"}]}"#;
    assert!(
        matches!(serde_json::from_str::<YamlAnswer>(ok).unwrap(), YamlAnswer::Ok(v) if v[0].template.key == "k")
    );
    let err =
        r#"{"errors":[{"file":"f.yaml","at":{"line":3,"col":5},"key":"k.system","message":"m"}]}"#;
    match serde_json::from_str::<YamlAnswer>(err).unwrap() {
        YamlAnswer::Errors(d) => assert_eq!(d[0].to_string(), "f.yaml:3:5: `k.system`: m"),
        other => panic!("{other:?}"),
    }
}

mod writer_properties {
    use super::*;
    use proptest::prelude::*;

    fn text() -> impl Strategy<Value = String> {
        // Printable text, newlines, tabs, spaces at awkward places, quotes, braces (escaped
        // afterwards), unicode, and characters YAML treats specially.
        // Trailing newlines (up to three) test the chomping of block scalars.
        proptest::string::string_regex(
            "[ -~\\n\\t\u{a0}é中😀\u{2028}\u{85}#:&*!|>'\"%@`-]{0,40}\\n{0,3}",
        )
        .unwrap()
    }

    fn template() -> impl Strategy<Value = Template> {
        (
            text(),
            text(),
            proptest::option::of(text()),
            1u32..1000,
            proptest::collection::vec(text(), 0..3),
            (proptest::option::of(text()), any::<bool>()),
        )
            .prop_map(|(desc, sys, user, version, options, (default, restrict))| {
                let nonempty = |s: String, alt: &str| {
                    if s.trim().is_empty() {
                        alt.to_string()
                    } else {
                        s
                    }
                };
                let options: Vec<String> = options.into_iter().filter(|o| !o.is_empty()).collect();
                let mut uniq = options.clone();
                uniq.dedup();
                // Either a default with any text (then the default can be the last field written,
                // in a block), or options with the first one as default.
                if !restrict {
                    uniq.clear();
                }
                // A condition may only compare with an allowed value.
                let cond_value = uniq.first().cloned().unwrap_or_else(|| "x".into());
                Template {
                    key: "k".into(),
                    version,
                    description: nonempty(desc, "d").trim().to_string(),
                    system: vec![
                        Part {
                            source: Source::Text(text::escape(&nonempty(sys, "s"))),
                            when: None,
                        },
                        Part {
                            source: Source::Text("{v}".into()),
                            when: Some(Condition {
                                var: "v".into(),
                                op: Op::IsNot,
                                value: cond_value,
                            }),
                        },
                    ],
                    examples: vec![],
                    user: user
                        .filter(|u| !u.trim().is_empty())
                        .map(|u| text::escape(&u)),
                    variables: vec![Variable {
                        name: "v".into(),
                        description: String::new(),
                        default: if restrict {
                            uniq.first().cloned()
                        } else {
                            default
                        },
                        options: uniq,
                    }],
                    output_schema: None,
                }
            })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn emitted_yaml_reads_back_identical(t in template(), u in template()) {
            let yaml_text = emit::template(&t);
            let back = templates_from_yaml("p.yaml", &yaml_text, &BTreeMap::new());
            prop_assert_eq!(back, Ok(vec![t.clone()]), "{}", yaml_text);
            // Several templates in one file (an export).
            let mut u = u;
            u.key = "second".into();
            let file = emit::templates(&[t.clone(), u.clone()]);
            let back = templates_from_yaml("p.yaml", &file, &BTreeMap::new());
            prop_assert_eq!(back, Ok(vec![t, u]), "{}", file);
        }

        #[test]
        fn any_text_is_either_read_or_refused_never_a_panic(s in "[a-z:{}\\- \\n\\[\\]\"|>&*!#]{0,80}") {
            let _ = templates_from_yaml("p.yaml", &s, &fragments());
        }
    }
}

#[test]
fn prerendered_builtin_starts_match_the_template_engine() {
    use super::catalog::{builtin_start, Catalog, BUILTIN_ROLES};
    assert_eq!(BUILTIN_ROLES.len(), builtin().templates.len());
    for t in &builtin().templates {
        let user = UserPrompts::default();
        let role = RoleRef {
            source: PromptSource::Builtin,
            key: t.key.clone(),
        };
        let engine = user::start(&role, &Vars::new(), builtin(), &user, String::new);
        let fast = builtin_start(&t.key, &Vars::new(), String::new);
        match (engine, fast) {
            (Ok((o1, p1)), Some((o2, p2))) if t.output_schema.is_none() => {
                assert_eq!(o1, o2, "{}", t.key);
                assert_eq!(p1, p2, "{}", t.key);
            }
            // Roles with a schema are not pre-rendered: their long prompts stay out of the app's
            // first load, and the dialogs module renders them.
            (Ok(_), None) if t.output_schema.is_some() => {}
            (Err(PromptError::MissingVariables { .. }), None) => {}
            (e, f) => panic!("{}: engine {e:?} vs prerendered {f:?}", t.key),
        }
        // Other values are left to the engine.
        if let Some(v) = t.variables.iter().find(|v| v.options.len() > 1) {
            let other = v
                .options
                .iter()
                .find(|o| Some(*o) != v.default.as_ref())
                .unwrap();
            assert!(builtin_start(&t.key, &vars(&[(&v.name, other)]), String::new).is_none());
        }
    }
    assert!(builtin_start("nope", &Vars::new(), String::new).is_none());
    // A chat keeps its template's output_schema: its replies are checked against it.
    let schema = |key: &str| {
        let role = RoleRef {
            source: PromptSource::Builtin,
            key: key.into(),
        };
        user::start(
            &role,
            &Vars::new(),
            builtin(),
            &UserPrompts::default(),
            String::new,
        )
        .unwrap()
        .0
        .output_schema
    };
    assert_eq!(
        schema("planner"),
        builtin().get("planner").unwrap().output_schema
    );
    assert!(schema("planner").is_some_and(|s| s.contains("\"steps\"")));
    assert_eq!(schema("coder"), None);

    let (c, problem) = Catalog::load(None);
    assert_eq!((c.roles.len(), problem), (BUILTIN_ROLES.len(), None));
    let mut user = UserPrompts::default();
    let text = "mine:\n  version: 2\n  description: Mine.\n  system: \"Hi {who}\"\n  variables:\n    who: {default: you, options: [you, me]}\n";
    user.merge(vec![UserTemplate {
        template: templates_from_yaml("m.yaml", text, &builtin().fragments)
            .unwrap()
            .remove(0),
        source: text.into(),
    }]);
    let (c, problem) = Catalog::load(Some(&crate::persist::encode_prompts(&user)));
    assert_eq!(problem, None);
    let mine = c
        .find(PromptSource::User, "mine")
        .expect("user role listed");
    assert_eq!((mine.version, mine.description.as_str()), (2, "Mine."));
    let (c, problem) = Catalog::load(Some("{not json"));
    assert_eq!(
        c.roles.len(),
        BUILTIN_ROLES.len(),
        "a bad record leaves the built-in roles"
    );
    assert!(problem.is_some());
}

/// The planner's system prompt with its defaults, as `prompts/agents.yaml` and
/// `prompts/fragments.yaml` spell it out (parts joined by a blank line, `{output_schema}` filled in).
const PLANNER_SYSTEM: &str = r#"You are a planner. Break the user's goal into a short list of concrete, ordered steps. Each step says what to do and how to tell that it is done.

Reply with one JSON object and nothing else: no prose before or after it and no code
fence. The object must match this JSON Schema:
{
  "type": "object",
  "required": ["goal", "steps", "questions"],
  "additionalProperties": false,
  "properties": {
    "goal": {"type": "string"},
    "steps": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["id", "action", "done_when"],
        "additionalProperties": false,
        "properties": {
          "id": {"type": "integer", "minimum": 1},
          "action": {"type": "string"},
          "done_when": {"type": "string"},
          "depends_on": {"type": "array", "items": {"type": "integer"}}
        }
      }
    },
    "questions": {"type": "array", "items": {"type": "string"}}
  }
}

Ask for missing information with a plan whose `questions` list is not empty."#;

/// The planner's few-shot answer (`{{`/`}}` in `prompts/examples.yaml` are literal braces).
const PLANNER_EXAMPLE_ANSWER: &str = r#"{"goal": "Nightly Postgres backups to S3", "steps": [{"id": 1, "action": "Create an S3 bucket with versioning and a 30-day lifecycle rule", "done_when": "The bucket exists and the rule is listed"}, {"id": 2, "action": "Write a script that runs pg_dump and uploads the file with the AWS CLI", "done_when": "Running it by hand puts a dump in the bucket", "depends_on": [1]}, {"id": 3, "action": "Schedule the script nightly with cron or a systemd timer", "done_when": "A new dump appears after the first night", "depends_on": [2]}, {"id": 4, "action": "Restore the latest dump into a scratch database", "done_when": "The restored row counts match production", "depends_on": [3]}], "questions": []}"#;

/// What each built-in role starts a chat with when every variable keeps its default, written
/// out by hand from the YAML files: the engine (and so the pre-rendered starts, which the test
/// above compares with it) must say exactly this. `*` marks a few-shot example.
#[test]
fn prerendered_builtin_roles_say_exactly_this() {
    use super::catalog::BUILTIN_ROLES;
    let expected: &[(&str, &[&str])] = &[
        ("assistant", &["system: You are Satori, a helpful assistant. Answer clearly, accurately and to the point.\n\nIf you are not sure, say so instead of guessing.\n\nUse Markdown when it helps: lists, tables, and fenced code blocks with the language named."]),
        ("coder", &["system: You are an expert software engineer. Give correct, idiomatic, minimal code, explain trade-offs briefly and point out edge cases.\n\nNever invent functions, flags or packages: when you are not sure that something exists, say so.\n\nPut code in fenced code blocks with the language named. Show only the changed parts of long files, with enough context to place them."]),
        ("planner", &[
            &format!("system: {PLANNER_SYSTEM}"),
            "user*: Set up nightly backups of my Postgres database to S3.",
            &format!("assistant*: {PLANNER_EXAMPLE_ANSWER}"),
        ]),
        ("summarizer", &["system: You summarize conversations for someone who will continue them without rereading them.\n\nKeep every ID, order number, amount (with its currency), date, name and open question exactly as written — verbatim, never rounded, translated or paraphrased. Do not add facts that are not in the conversation.\n\nWrite a concise summary as short bullet points, then a section \"Open questions\" listing every question that is still unanswered (write \"none\" if there are none)."]),
        ("translator", &["system: You are a professional translator. Translate every message the user sends into English. Keep the meaning, tone and formatting (Markdown, code, line breaks); keep names, numbers, IDs and code exactly as they are. Reply with the translation only."]),
    ];
    // The engine's start of each role (the pre-rendered starts are checked against the engine
    // above).
    let got: Vec<(&str, Vec<String>)> = BUILTIN_ROLES
        .iter()
        .map(|r| {
            let role = RoleRef {
                source: PromptSource::Builtin,
                key: r.key.into(),
            };
            let (_, preamble) = user::start(
                &role,
                &Vars::new(),
                builtin(),
                &UserPrompts::default(),
                String::new,
            )
            .unwrap();
            let messages = preamble.iter().map(|m| {
                let star = if m.example { "*" } else { "" };
                format!("{}{star}: {}", m.role.as_str(), m.content)
            });
            (r.key, messages.collect())
        })
        .collect();
    let keys: Vec<&str> = got.iter().map(|(k, _)| *k).collect();
    let want_keys: Vec<&str> = expected.iter().map(|(k, _)| *k).collect();
    assert_eq!(keys, want_keys, "the built-in roles, in file order");
    for ((key, messages), (_, want)) in got.iter().zip(expected) {
        assert_eq!(messages, want, "{key}");
    }
}

#[test]
fn start_answers_for_the_app() {
    use super::catalog::StartAnswer;
    let user = UserPrompts::default();
    let role = |k: &str| RoleRef {
        source: PromptSource::Builtin,
        key: k.into(),
    };
    let a = user::start_answer(
        &role("assistant"),
        &vars(&[("reply_language", "Chinese")]),
        builtin(),
        &user,
    );
    assert!(a.messages[0].content.contains("简体中文") && a.error.is_none() && a.missing.is_none());
    let back: StartAnswer = serde_json::from_str(&serde_json::to_string(&a).unwrap()).unwrap();
    assert_eq!(back, a);
    let a = user::start_answer(&role("nope"), &Vars::new(), builtin(), &user);
    assert_eq!(
        a.error.as_deref(),
        Some("there is no prompt `nope` in `built-in prompts`")
    );
    let a = user::start_answer(
        &role("assistant"),
        &vars(&[("reply_language", "Klingon")]),
        builtin(),
        &user,
    );
    assert!(a.error.unwrap().contains("not an allowed value"));
}
