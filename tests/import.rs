//! The import corpus: every file of `tests/fixtures/import/` (listed in its `cases.json` with the
//! error it must give, or how many chats it holds) read as an import.

use satori::core::transfer::import::read;
use serde::Deserialize;

#[derive(Deserialize)]
struct Case {
    file: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    ok: Option<usize>,
}

fn fixture(name: &str) -> String {
    let path = format!(
        "{}/tests/fixtures/import/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn corpus() {
    let cases: Vec<Case> = serde_json::from_str(&fixture("cases.json")).unwrap();
    assert!(cases.len() >= 30, "the corpus has {} files", cases.len());
    for case in cases {
        let result = read(&fixture(&case.file));
        match (&case.error, case.ok, result) {
            (Some(want), None, Err(e)) => {
                let got = e.to_string();
                assert!(
                    got.contains(want.as_str()),
                    "{}: {got:?} should contain {want:?}",
                    case.file
                );
            }
            (None, Some(n), Ok(incoming)) => assert_eq!(incoming.chats.len(), n, "{}", case.file),
            (_, _, other) => panic!("{}: unexpected {other:?}", case.file),
        }
    }
}
