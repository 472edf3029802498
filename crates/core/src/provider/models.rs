//! Reading the `GET {base}/models` list.

/// Model ids from an OpenAI-style `{"data":[{"id":…}]}` or Ollama-style `{"models":[{"name":…}]}`
/// body, sorted and deduplicated; empty when the body is anything else.
pub fn parse_models(body: &str) -> Vec<String> {
    let Ok(v) = serde_json::from_str::<serde_json::Value>(body) else {
        return Vec::new();
    };
    let items = v
        .get("data")
        .or_else(|| v.get("models"))
        .and_then(|d| d.as_array())
        .cloned()
        .unwrap_or_default();
    let mut ids: Vec<String> = items
        .iter()
        .filter_map(|m| {
            m.get("id")
                .or_else(|| m.get("name"))
                .and_then(|i| i.as_str())
        })
        .map(str::to_string)
        .collect();
    ids.sort();
    ids.dedup();
    ids
}

#[cfg(test)]
mod tests {
    use super::parse_models;

    #[test]
    fn model_lists() {
        let cases: &[(&str, &[&str])] = &[
            (
                r#"{"object":"list","data":[{"id":"b"},{"id":"a"},{"id":"a"}]}"#,
                &["a", "b"],
            ),
            (r#"{"models":[{"name":"llama3"}]}"#, &["llama3"]),
            (r#"{"data":"nope"}"#, &[]),
            ("<html>", &[]),
        ];
        for (body, want) in cases {
            assert_eq!(parse_models(body), *want, "{body}");
        }
    }
}
