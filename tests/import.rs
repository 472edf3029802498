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
    /// With `ok`: the chats skipped, as `name: reason`.
    #[serde(default)]
    skipped: Vec<String>,
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
    let mut wrong = Vec::new();
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
            (None, Some(n), Ok(incoming)) => {
                assert_eq!(incoming.chats.len(), n, "{}", case.file);
                let skipped: Vec<String> = incoming
                    .skipped
                    .iter()
                    .map(|s| format!("{}: {}", s.name, s.reason))
                    .collect();
                if skipped != case.skipped {
                    wrong.push(format!("{}: skipped {skipped:?}", case.file));
                }
            }
            (_, _, other) => panic!("{}: unexpected {other:?}", case.file),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn nextchat_backup_keeps_the_preset_prompt_first_and_never_reads_its_keys() {
    use satori::core::session::{Role, Status};
    let incoming = read(&fixture("nextchat-backup.json")).unwrap();
    assert!(
        incoming.settings,
        "the backup's settings are noticed (and not applied)"
    );
    assert!(
        !format!("{incoming:?}").contains("sk-nextchat-secret-key")
            && !format!("{incoming:?}").contains("letmein"),
        "NextChat's API key and access code are never read"
    );
    let chat = &incoming.chats[0];
    assert_eq!(chat.id, "nextchat-QyP0xg0yNwDxkN3dK8Z1a");
    assert_eq!(chat.title, "订单查询");
    let path = chat.path();
    let seen: Vec<(Role, bool, &str)> = path
        .iter()
        .map(|m| (m.role, m.example, m.content.as_str()))
        .collect();
    assert_eq!(
        seen,
        [
            (Role::System, false, "You are a careful support agent."),
            (Role::User, true, "Example question"),
            (Role::Assistant, true, "Example answer"),
            (
                Role::User,
                false,
                "我的订单号是 ORD-2024-00042，金额 ¥1,299.00"
            ),
            (Role::Assistant, false, "好的，我查一下。"),
            (Role::User, false, "这张截图呢？\n\n[attachment]"),
            (Role::Assistant, false, ""),
        ]
    );
    let iso = satori::core::transfer::time::parse_iso;
    assert_eq!(Some(path[3].created_at), iso("2025-01-15T21:05:00Z"));
    assert_eq!(path[4].model.as_deref(), Some("gpt-4o-mini"));
    assert_eq!(path[6].status, Status::Incomplete, "a failed reply");
    assert_eq!(chat.leaf.as_deref(), Some(path[6].id.as_str()));
    // An English-locale date, and a title that is only ever text.
    let other = &incoming.chats[1];
    assert_eq!(other.title, "<img src=x onerror=alert(1)>");
    assert_eq!(
        Some(other.path()[0].created_at),
        iso("2025-01-15T09:05:00Z")
    );
}

#[test]
fn betterchatgpt_export_keeps_each_chats_model_and_text_parts() {
    use satori::core::session::Role;
    let incoming = read(&fixture("betterchatgpt-export.json")).unwrap();
    assert!(!incoming.settings);
    let [first, second] = &incoming.chats[..] else {
        panic!("two chats")
    };
    assert_eq!(
        first.id,
        "betterchatgpt-2b6c8c6a-1a0d-4c59-9d4e-0f3f3c0c9a11"
    );
    assert_eq!(first.title, "Rust lifetimes");
    let roles: Vec<Role> = first.path().iter().map(|m| m.role).collect();
    assert_eq!(roles, [Role::System, Role::User, Role::Assistant]);
    assert_eq!(first.path()[2].model.as_deref(), Some("gpt-4"));
    assert_eq!(first.path()[1].model, None, "only replies name a model");
    let texts: Vec<&str> = second.path().iter().map(|m| m.content.as_str()).collect();
    assert_eq!(
        texts,
        ["What is in this picture?\n\n[attachment]", "A cat."]
    );
    // Read twice, the same chats: importing the file again adds nothing.
    assert_eq!(
        read(&fixture("betterchatgpt-export.json")).unwrap(),
        incoming
    );
}

/// An export's `.zip` read the way the dialogs module reads it (the central directory, then each
/// wanted entry), then its parts.
fn read_zip(bytes: &[u8]) -> Result<satori::core::transfer::import::Incoming, String> {
    use satori::core::transfer::{parts, zip};
    let mut others = 0;
    let files = zip::read_all(bytes, |entries| {
        let all = entries.len();
        let wanted = parts::wanted(entries)?;
        others = all - wanted.len();
        Ok::<_, satori::core::transfer::import::ImportError>(wanted)
    })
    .map_err(|e| e.to_string())?;
    let files = files
        .into_iter()
        .map(|(e, b)| (e.name, String::from_utf8_lossy(&b).into_owned()))
        .collect();
    parts::read(files, others).map_err(|e| e.to_string())
}

#[derive(Deserialize)]
struct ZipCase {
    file: String,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    ok: Option<usize>,
    #[serde(default)]
    note: Option<String>,
}

/// Every archive of `tests/fixtures/import/zip/` (written by Python's zipfile, then damaged by
/// `make.py`): its chats and notes, or its error — read whole, and as the import worker reads it.
#[test]
fn chatgpt_export_archives() {
    use satori::core::transfer::bundle;
    let dir = format!("{}/tests/fixtures/import/zip", env!("CARGO_MANIFEST_DIR"));
    let cases: Vec<ZipCase> =
        serde_json::from_str(&std::fs::read_to_string(format!("{dir}/cases.json")).unwrap())
            .unwrap();
    assert!(cases.len() >= 15);
    for case in cases {
        let bytes = std::fs::read(format!("{dir}/{}", case.file)).unwrap();
        // As the import worker reads it (a slice at a time, each conversation file unpacked as
        // it arrives): the same chats, notes and refusals.
        for slice in [1, 100, 4096, 4 << 20] {
            let b = bundle::Bundle::zip(bytes.len() as u64).with_slice(slice);
            assert_eq!(
                bundle::read_all(b, &[&bytes]).map_err(|e| e.to_string()),
                read_zip(&bytes),
                "{}, slices of {slice}",
                case.file
            );
        }
        match (&case.error, case.ok, read_zip(&bytes)) {
            (Some(want), None, Err(got)) => assert!(
                got.contains(want.as_str()),
                "{}: {got:?} should contain {want:?}",
                case.file
            ),
            (None, Some(n), Ok(incoming)) => {
                assert_eq!(incoming.chats.len(), n, "{}", case.file);
                let notes = incoming.notes.join("; ");
                match &case.note {
                    Some(want) => {
                        assert!(notes.contains(want.as_str()), "{}: {notes:?}", case.file)
                    }
                    None => assert!(notes.is_empty(), "{}: {notes:?}", case.file),
                }
            }
            (_, _, other) => panic!("{}: unexpected {other:?}", case.file),
        }
    }
}

/// The parts of an export picked as files read like its `.zip`, and like `conversations.json`
/// holding the same conversations; missing parts and other files are said, never guessed at.
#[test]
fn chatgpt_export_parts_picked_as_files() {
    use satori::core::transfer::parts;
    let whole = read(&fixture("chatgpt-conversations.json")).unwrap();
    let list: Vec<serde_json::Value> =
        serde_json::from_str(&fixture("chatgpt-conversations.json")).unwrap();
    let part = |i: usize| {
        (
            format!("conversations-{i:03}.json"),
            serde_json::to_string(&[&list[i]]).unwrap(),
        )
    };
    let both = parts::read(vec![part(1), part(0)], 0).unwrap();
    assert_eq!(
        both.chats, whole.chats,
        "two parts hold what the single file holds"
    );
    assert!(both.notes.is_empty(), "{:?}", both.notes);

    // An untitled broken conversation in each of two parts: each is the first of its part, so
    // the part is named with it.
    let broken = |i: usize| {
        let text = serde_json::to_string(&[&list[i], &serde_json::json!(7)]).unwrap();
        (format!("conversations-{i:03}.json"), text)
    };
    let skipped = parts::read(vec![broken(0), broken(1)], 0).unwrap().skipped;
    let names: Vec<&str> = skipped.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "untitled chat #2 of conversations-000.json",
            "untitled chat #2 of conversations-001.json"
        ]
    );

    // The manifest names parts 000 to 003; 000 and 002 were picked (002 is an empty list).
    let manifest = (
        "export_manifest.json".to_string(),
        r#"{"files":["conversations-000.json","conversations-001.json","conversations-002.json","conversations-003.json"]}"#.to_string(),
    );
    let some = parts::read(
        vec![
            part(0),
            ("conversations-002.json".into(), "[]".into()),
            manifest,
        ],
        2,
    )
    .unwrap();
    assert_eq!(some.chats.len(), 1);
    assert_eq!(
        some.notes,
        [
            "2 parts of the export are missing, so their chats are not imported: conversations-001.json, conversations-003.json",
            "2 other files of the export (images, account data) were not read",
        ]
    );

    // A hostile part number is counted, not listed one by one.
    let far = parts::read(
        vec![
            part(0),
            ("conversations-4000000000.json".into(), "[]".into()),
        ],
        0,
    )
    .unwrap();
    assert!(
        far.notes[0].starts_with("3999999999 parts of the export are missing")
            && far.notes[0].ends_with("conversations-005.json and 3999999994 more"),
        "{:?}",
        far.notes
    );

    // Nothing a ChatGPT export is made of: said, nothing read.
    let err = parts::read(vec![("export_manifest.json".into(), "{}".into())], 3).unwrap_err();
    assert!(
        err.to_string()
            .contains("none of the files is conversations.json"),
        "{err}"
    );
    // A damaged manifest is said, and the parts are read.
    let odd = parts::read(
        vec![part(0), ("export_manifest.json".into(), "{".into())],
        0,
    )
    .unwrap();
    assert_eq!(
        odd.notes,
        ["export_manifest.json could not be read, so the parts were not checked against it"]
    );
}

#[test]
fn zip_checksums_are_crc32() {
    assert_eq!(
        satori::core::transfer::zip::crc32(b"123456789"),
        0xCBF4_3926
    );
    assert_eq!(satori::core::transfer::zip::crc32(b""), 0);
}
