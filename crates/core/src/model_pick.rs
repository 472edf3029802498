//! "Model for this chat": the choices its dialog offers and what a choice means.
//!
//! Invariants, checked by the tests below:
//! - the model the chat's next request uses is always offered (while nothing is typed), and it
//!   is the one marked current;
//! - a name appears once per group; a name typed that is not offered is offered as typed;
//! - choosing Settings' own model makes the chat follow Settings again (`None`: a later change
//!   of model in Settings reaches it), any other choice is kept on the chat with its server;
//! - the recent list keeps the latest choices first, each once, at most [`RECENT_MAX`].

use crate::session::ChatModel;
use crate::settings::{in_browser, same_server, Settings, IN_BROWSER_MODEL, IN_BROWSER_URL};

/// How many recent choices are kept.
pub const RECENT_MAX: usize = 6;

/// One model offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// What choosing it sets on the chat (`None`: follow Settings).
    pub model: Option<ChatModel>,
    /// The model's name.
    pub name: String,
    /// The chat uses it now.
    pub current: bool,
}

/// A heading and its models.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// "Recent", "On the server", "In this browser" (English; translated by the page).
    pub label: &'static str,
    /// Its models.
    pub choices: Vec<Choice>,
}

/// The groups offered with `settings` to a chat that chose `chosen`: recent choices usable here
/// (and the chat's own, if the server does not list it), the server's models (Settings' first,
/// then those it lists), the model in this browser; only the names containing `query` (letter
/// case aside), plus `query` itself on the server when no name is exactly it.
pub fn groups(
    settings: &Settings,
    chosen: Option<&ChatModel>,
    listed: &[String],
    recent: &[ChatModel],
    query: &str,
) -> Vec<Group> {
    let here = in_browser(&settings.base_url);
    let used = settings.for_chat(chosen);
    let q = query.trim().to_ascii_lowercase();
    let matches = |name: &str| name.to_ascii_lowercase().contains(&q);
    // A choice as the chat would keep it; `None` for one unusable with these settings.
    let choice = |m: &ChatModel| -> Option<Choice> {
        let browser = in_browser(&m.base_url) && !here;
        if !browser && !same_server(&m.base_url, &settings.base_url) {
            return None;
        }
        let follows = !browser && m.name == settings.model;
        Some(Choice {
            model: (!follows).then(|| m.clone()),
            name: m.name.clone(),
            current: m.name == used.model && in_browser(&used.base_url) == in_browser(&m.base_url),
        })
    };
    let on_server = |name: &str| ChatModel {
        name: name.to_string(),
        base_url: settings.base_url.clone(),
    };
    let browser = ChatModel {
        name: IN_BROWSER_MODEL.into(),
        base_url: IN_BROWSER_URL.into(),
    };
    let mut server: Vec<Choice> = Vec::new();
    for name in std::iter::once(&settings.model).chain(listed) {
        if !name.trim().is_empty() && !server.iter().any(|c| c.name == *name) {
            server.extend(choice(&on_server(name)));
        }
    }
    let mut local: Vec<Choice> = Vec::new();
    if !here {
        local.extend(choice(&browser));
    }
    let mut recents: Vec<Choice> = Vec::new();
    for m in recent.iter().chain(chosen) {
        let Some(c) = choice(m).filter(|c| !c.name.trim().is_empty()) else {
            continue;
        };
        let offered = server.iter().chain(&local).chain(&recents);
        if !offered.into_iter().any(|o| o.model == c.model) {
            recents.push(c);
        }
    }
    let typed = query.trim();
    if !typed.is_empty()
        && !server
            .iter()
            .chain(&local)
            .chain(&recents)
            .any(|c| c.name == typed)
    {
        server.extend(choice(&on_server(typed)));
    }
    [
        ("Recent", recents),
        (
            if here {
                "In this browser"
            } else {
                "On the server"
            },
            server,
        ),
        ("In this browser", local),
    ]
    .into_iter()
    .map(|(label, choices)| Group {
        label,
        choices: choices.into_iter().filter(|c| matches(&c.name)).collect(),
    })
    .filter(|g| !g.choices.is_empty())
    .collect()
}

/// `recent` with `choice` first (once), at most [`RECENT_MAX`].
pub fn remember(recent: &mut Vec<ChatModel>, choice: ChatModel) {
    recent.retain(|m| *m != choice);
    recent.insert(0, choice);
    recent.truncate(RECENT_MAX);
}

#[cfg(test)]
mod tests {
    use super::*;

    const OPENAI: &str = "https://api.openai.com/v1";

    fn settings() -> Settings {
        Settings {
            base_url: OPENAI.into(),
            model: "gpt-4o-mini".into(),
            ..Settings::default()
        }
    }

    fn m(name: &str, base_url: &str) -> ChatModel {
        ChatModel {
            name: name.into(),
            base_url: base_url.into(),
        }
    }

    /// The groups as `[label]` and `name` lines (`*`: current, `=`: follows Settings).
    fn shape(groups: &[Group]) -> Vec<String> {
        let mut out = Vec::new();
        for g in groups {
            out.push(format!("[{}]", g.label));
            for c in &g.choices {
                let follows = if c.model.is_none() { "=" } else { "" };
                let star = if c.current { "*" } else { "" };
                out.push(format!("{follows}{}{star}", c.name));
            }
        }
        out
    }

    #[test]
    fn the_model_in_use_is_offered_and_current() {
        let s = settings();
        let listed = [
            "gpt-4o-mini".to_string(),
            "gpt-4.1".into(),
            "o3".into(),
            "o3".into(),
        ];
        // (chosen, recent, query, expected)
        type Case<'a> = (Option<ChatModel>, Vec<ChatModel>, &'a str, Vec<&'a str>);
        let cases: Vec<Case> = vec![
            (
                None,
                vec![],
                "",
                vec![
                    "[On the server]",
                    "=gpt-4o-mini*",
                    "gpt-4.1",
                    "o3",
                    "[In this browser]",
                    "smollm2-135m",
                ],
            ),
            (
                Some(m("o3", OPENAI)),
                vec![],
                "",
                vec![
                    "[On the server]",
                    "=gpt-4o-mini",
                    "gpt-4.1",
                    "o3*",
                    "[In this browser]",
                    "smollm2-135m",
                ],
            ),
            // Not listed (the list not loaded, or the server lists none): still offered.
            (
                Some(m("gpt-5", OPENAI)),
                vec![
                    m("qwen-plus", "https://dashscope.aliyuncs.com/v1"),
                    m("gpt-4.1", OPENAI),
                ],
                "",
                vec![
                    "[Recent]",
                    "gpt-5*",
                    "[On the server]",
                    "=gpt-4o-mini",
                    "gpt-4.1",
                    "o3",
                    "[In this browser]",
                    "smollm2-135m",
                ],
            ),
            (
                Some(m("smollm2-135m", IN_BROWSER_URL)),
                vec![],
                "",
                vec![
                    "[On the server]",
                    "=gpt-4o-mini",
                    "gpt-4.1",
                    "o3",
                    "[In this browser]",
                    "smollm2-135m*",
                ],
            ),
            // Chosen on another server: this chat follows Settings here.
            (
                Some(m("qwen-plus", "https://dashscope.aliyuncs.com/v1")),
                vec![],
                "",
                vec![
                    "[On the server]",
                    "=gpt-4o-mini*",
                    "gpt-4.1",
                    "o3",
                    "[In this browser]",
                    "smollm2-135m",
                ],
            ),
            // A search: the names with it (letter case aside), and the name as typed (model names are
            // the server's: "GPT-4" may be another model).
            (
                None,
                vec![],
                "GPT-4",
                vec!["[On the server]", "=gpt-4o-mini*", "gpt-4.1", "GPT-4"],
            ),
            // A name typed that nothing offered is: offered as typed, on the server.
            (None, vec![], "o4-mini", vec!["[On the server]", "o4-mini"]),
            (None, vec![], "o3", vec!["[On the server]", "o3"]),
        ];
        for (chosen, recent, query, want) in cases {
            let groups = groups(&s, chosen.as_ref(), &listed, &recent, query);
            assert_eq!(shape(&groups), want, "{chosen:?} {query:?}");
            let current = groups
                .iter()
                .flat_map(|g| &g.choices)
                .filter(|c| c.current)
                .count();
            assert!(current <= 1);
            if query.is_empty() {
                assert_eq!(current, 1, "{chosen:?}");
            }
        }
    }

    #[test]
    fn in_the_browser_there_is_one_group() {
        let s = Settings {
            base_url: IN_BROWSER_URL.into(),
            model: IN_BROWSER_MODEL.into(),
            ..Settings::default()
        };
        assert_eq!(
            shape(&groups(&s, None, &[], &[m("gpt-4.1", OPENAI)], "")),
            ["[In this browser]", "=smollm2-135m*"]
        );
    }

    #[test]
    fn a_choice_is_kept_with_its_server_and_settings_model_follows_settings() {
        let s = settings();
        let all = groups(&s, None, &["o3".to_string()], &[], "");
        let models: Vec<Option<ChatModel>> = all
            .iter()
            .flat_map(|g| &g.choices)
            .map(|c| c.model.clone())
            .collect();
        assert_eq!(
            models,
            [
                None,
                Some(m("o3", OPENAI)),
                Some(m("smollm2-135m", IN_BROWSER_URL))
            ]
        );
        // What was chosen is what is current afterwards.
        for model in models {
            let again = groups(&s, model.as_ref(), &["o3".to_string()], &[], "");
            let current: Vec<&Choice> = again
                .iter()
                .flat_map(|g| &g.choices)
                .filter(|c| c.current)
                .collect();
            assert_eq!(current.len(), 1);
            assert_eq!(current[0].model, model);
        }
    }

    #[test]
    fn recent_keeps_the_latest_once() {
        let mut recent = Vec::new();
        for name in ["a", "b", "c", "a", "d", "e", "f", "g"] {
            remember(&mut recent, m(name, OPENAI));
        }
        let names: Vec<&str> = recent.iter().map(|m| m.name.as_str()).collect();
        assert_eq!(names, ["g", "f", "e", "d", "a", "c"]);
    }
}
