//! Browser-side tests of the adapters, run in headless Chromium by wasm-bindgen-test
//! (`scripts/test.sh` starts `tests/web-support/server.mjs` and passes its address in
//! `SATORI_TEST_SERVER` at compile time).
#![cfg(target_arch = "wasm32")]

use satori::adapters::fetch::{get_models, post_stream, FetchError};
use satori::adapters::storage::{StorageError, Store};
use satori::core::sse::{SseDecoder, SseItem};
use wasm_bindgen::JsCast;
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

/// The page's localStorage itself, for setting up and clearing records as an earlier Satori or
/// another program left them (Satori writes only through `Store`'s records).
fn raw() -> web_sys::Storage {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .expect("localStorage")
}

fn server(path: &str) -> String {
    let base = option_env!("SATORI_TEST_SERVER").expect(
        "SATORI_TEST_SERVER must be set when building the browser tests (see scripts/test.sh)",
    );
    format!("{base}{path}")
}

fn signal() -> (web_sys::AbortController, web_sys::AbortSignal) {
    let c = web_sys::AbortController::new().expect("AbortController");
    let s = c.signal();
    (c, s)
}

#[wasm_bindgen_test]
fn storage_round_trip_and_missing_key() {
    use satori::core::persist;
    let store = Store::local();
    assert!(store.is_available());
    let key = persist::draft_key("test-k");
    store.save_draft("test-k", "värde 🌍").unwrap();
    assert_eq!(
        store.get(&key).unwrap().as_deref(),
        Some(persist::encode_draft("värde 🌍").as_str())
    );
    assert!(store.keys("satori.draft.").unwrap().contains(&key), "{key}");
    store.save_draft("test-k", "").unwrap();
    assert_eq!(store.get(&key).unwrap(), None);
}

#[wasm_bindgen_test]
fn storage_unavailable_is_an_error_value() {
    let store = Store::from_storage(None);
    assert!(!store.is_available());
    assert_eq!(store.get("x"), Err(StorageError::Unavailable));
    assert_eq!(store.save_draft("x", "y"), Err(StorageError::Unavailable));
}

#[wasm_bindgen_test]
fn storage_full_is_quota_exceeded_and_keeps_old_value() {
    let store = Store::local();
    let key = satori::core::persist::draft_key("test-big");
    store.save_draft("test-big", "old").unwrap();
    let old = store.get(&key).unwrap();
    // localStorage holds ~5 MB of UTF-16; 6 M characters cannot fit.
    let huge = "x".repeat(6 * 1024 * 1024);
    assert_eq!(
        store.save_draft("test-big", &huge),
        Err(StorageError::QuotaExceeded)
    );
    assert_eq!(store.get(&key).unwrap(), old);
    store.save_draft("test-big", "").unwrap();
}

#[wasm_bindgen_test]
fn storage_that_throws_is_an_error_value() {
    // A Storage-like object whose methods throw, as some sandboxed contexts do.
    let thrower = js_sys::Function::new_no_args("throw new Error('denied by test')");
    let obj = js_sys::Object::new();
    for name in ["getItem", "setItem", "removeItem", "key"] {
        js_sys::Reflect::set(&obj, &name.into(), &thrower).unwrap();
    }
    js_sys::Reflect::set(&obj, &"length".into(), &0.into()).unwrap();
    let store = Store::from_storage(Some(obj.unchecked_into::<web_sys::Storage>()));
    assert_eq!(
        store.get("x"),
        Err(StorageError::Failed("denied by test".into()))
    );
    assert_eq!(
        store.save_draft("x", "y"),
        Err(StorageError::Failed("denied by test".into()))
    );
}

/// Every chunk the stream adapter returns, in order.
async fn read_chunks(path: &str, stall_ms: u32) -> Result<Vec<Vec<u8>>, FetchError> {
    let (_c, s) = signal();
    let mut stream = post_stream(&server(path), Some("sk-test"), "{}", &s, stall_ms).await?;
    let mut chunks = Vec::new();
    while let Some(chunk) = stream.next().await? {
        chunks.push(chunk);
    }
    Ok(chunks)
}

async fn read_all(path: &str, stall_ms: u32) -> Result<Vec<u8>, FetchError> {
    read_chunks(path, stall_ms).await.map(|c| c.concat())
}

#[wasm_bindgen_test]
async fn stream_reads_every_byte_across_awkward_splits() {
    let chunks = read_chunks("/split", 5_000).await.expect("stream");
    // The pieces the test server wrote, each followed by a pause: they arrive as separate
    // reads, so the decoder below really sees a line, `é`, the emoji and a CRLF pair split.
    let written: [&[u8]; 7] = [
        b"data: {",
        b"\"choices\":[{\"delta\":{\"content\":\"h\xC3",
        b"\xA9 \xF0",
        b"\x9F\x8C",
        b"\x8D\"}}]}\r",
        b"\n\r\ndata: [DONE]\r",
        b"\n\r\n",
    ];
    assert_eq!(chunks, written);
    let mut dec = SseDecoder::new();
    let mut items = Vec::new();
    for chunk in &chunks {
        items.extend(dec.push(chunk));
    }
    items.extend(dec.finish());
    let data: Vec<String> = items
        .into_iter()
        .filter_map(|i| match i {
            SseItem::Event(e) => Some(e.data),
            SseItem::Comment(_) => None,
        })
        .collect();
    assert_eq!(
        data,
        [r#"{"choices":[{"delta":{"content":"hé 🌍"}}]}"#, "[DONE]"]
    );
}

#[wasm_bindgen_test]
async fn stream_stall_is_reported() {
    assert_eq!(read_all("/stall", 400).await, Err(FetchError::Stalled));
}

#[wasm_bindgen_test]
async fn stream_cut_is_broken_not_done() {
    assert!(matches!(
        read_all("/cut", 5_000).await,
        Err(FetchError::Broken(_))
    ));
}

#[wasm_bindgen_test]
async fn abort_stops_the_stream() {
    let (c, s) = signal();
    let mut stream = post_stream(&server("/slow"), None, "{}", &s, 5_000)
        .await
        .expect("open");
    let first = stream.next().await.expect("first chunk");
    assert!(first.is_some());
    c.abort();
    assert_eq!(stream.next().await, Err(FetchError::Aborted));
}

#[wasm_bindgen_test]
async fn error_statuses_keep_body_and_retry_after() {
    match read_all("/401", 5_000).await {
        Err(FetchError::Status {
            status: 401, body, ..
        }) => assert!(body.contains("Incorrect API key")),
        other => panic!("expected 401, got {other:?}"),
    }
    match read_all("/429", 5_000).await {
        Err(FetchError::Status {
            status: 429,
            retry_after,
            ..
        }) => assert_eq!(retry_after.as_deref(), Some("7")),
        other => panic!("expected 429, got {other:?}"),
    }
    match read_all("/html", 5_000).await {
        Err(FetchError::NotStream { content_type, body }) => {
            assert_eq!(content_type, "text/html");
            assert!(body.contains("captive"));
        }
        other => panic!("expected NotStream, got {other:?}"),
    }
}

#[wasm_bindgen_test]
async fn unreachable_server_is_a_network_error() {
    // Port 9 (discard) on loopback: nothing listens there.
    let (_c, s) = signal();
    let r = post_stream(
        "http://127.0.0.1:9/v1/chat/completions",
        None,
        "{}",
        &s,
        5_000,
    )
    .await;
    assert!(matches!(r, Err(FetchError::Network(_))), "{:?}", r.err());
}

#[wasm_bindgen_test]
async fn model_list() {
    let (_c, s) = signal();
    assert_eq!(
        get_models(&server("/models"), None, &s).await,
        Ok(vec!["a".to_string(), "b".to_string()])
    );
}

/// The storage fixture of version-1 records (`tests/fixtures/storage/v1.json`: key → value).
fn v1_fixture() -> serde_json::Map<String, serde_json::Value> {
    serde_json::from_str(include_str!("fixtures/storage/v1.json")).unwrap()
}

fn clear_chats(store: &Store) {
    for prefix in ["satori.session.", "satori.part."] {
        for key in store.keys(prefix).unwrap() {
            raw().remove_item(&key).unwrap();
        }
    }
    raw().remove_item("satori.index").unwrap();
}

/// Storage full in the middle of a save that rewrites several parts: every record the save wrote
/// is put back (a part that was new is removed), so the chat reads as it was — never half old,
/// half new — and the error is answered.
#[wasm_bindgen_test]
fn a_save_of_several_parts_that_storage_cannot_hold_leaves_the_chat_as_it_was() {
    use satori::core::persist::{self, PART_SIZE};
    use satori::core::session::{Command, Preamble, Session};
    let store = Store::local();
    clear_chats(&store);
    let chat = |n: usize, pad: usize| {
        let mut s = Session::new(
            "q".into(),
            1,
            None,
            vec![Preamble::system("sys", "Be kind.")],
        );
        for i in 1..n {
            s.apply(Command::AddUser {
                attachments: String::new(),
                id: format!("u{i}"),
                text: format!("message {i} {}", "x".repeat(pad)),
                at: 1 + i as i64,
            })
            .unwrap();
        }
        s
    };
    let old = chat(3 * PART_SIZE, 10);
    let (head, parts) = persist::encode_chat(&mut old.clone());
    store.write_chat("q", &head, &parts).unwrap();
    // Room for about one and a half of the new parts, no more.
    raw()
        .set_item("satori.test.room", &"r".repeat(150_000))
        .unwrap();
    let mut fillers = 0;
    let mut size = 1 << 20;
    while size >= 16 {
        if raw()
            .set_item(&format!("satori.test.fill.{fillers}"), &"f".repeat(size))
            .is_ok()
        {
            fillers += 1;
        } else {
            size /= 2;
        }
    }
    raw().remove_item("satori.test.room").unwrap();
    // Every part grows by about 100 000 characters, and a fourth one is added.
    let new = chat(4 * PART_SIZE, 3_000);
    let (head, parts) = persist::encode_chat(&mut new.clone());
    assert_eq!(
        store.write_chat("q", &head, &parts),
        Err(StorageError::QuotaExceeded)
    );
    let read = store.chat("q").unwrap().unwrap();
    assert_eq!(persist::decode_session(&read.text), Ok(old));
    assert_eq!(store.parts_stored("q").len(), 3);
    for i in 0..fillers {
        raw().remove_item(&format!("satori.test.fill.{i}")).unwrap();
    }
    clear_chats(&store);
}

/// A chat in parts in the real localStorage: written, read back whole, rewritten shorter (the
/// parts it no longer needs are removed), packed (its parts removed once the packed record is
/// in place, and it unpacks into the chat), and removed with every part.
#[wasm_bindgen_test]
async fn chats_in_parts_are_written_read_packed_and_removed_whole() {
    use satori::core::persist::{self, PART_SIZE};
    use satori::core::session::{Command, Preamble, Session};
    let store = Store::local();
    clear_chats(&store);
    let chat = |n: usize| {
        let mut s = Session::new(
            "p".into(),
            1,
            None,
            vec![Preamble::system("sys", "Be kind.")],
        );
        for i in 1..n {
            s.apply(Command::AddUser {
                attachments: String::new(),
                id: format!("u{i}"),
                text: format!("订单 {i}: ¥{i}00"),
                at: 1 + i as i64,
            })
            .unwrap();
        }
        s
    };
    let parts_stored = || store.keys(persist::PART_PREFIX).unwrap().len();
    let long = chat(3 * PART_SIZE + 1);
    let (head, parts) = persist::encode_chat(&mut long.clone());
    store.write_chat("p", &head, &parts).unwrap();
    assert_eq!(parts_stored(), 4);
    let read = store.chat("p").unwrap().unwrap();
    assert_eq!(read.count, Some(long.messages.len()));
    assert_eq!(persist::decode_session(&read.text), Ok(long.clone()));
    assert_eq!(store.stored_in_parts(&long), long.messages.len());
    // Shorter: the fourth part goes.
    let short = chat(PART_SIZE + 2);
    let (head, parts) = persist::encode_chat(&mut short.clone());
    store.write_chat("p", &head, &parts).unwrap();
    assert_eq!(parts_stored(), 2);
    assert_eq!(
        store.stored_in_parts(&long),
        0,
        "the stored chat is not this one"
    );
    let read = store.chat("p").unwrap().unwrap();
    assert_eq!(persist::decode_session(&read.text), Ok(short.clone()));
    // Packed: one record, no parts, the same chat inside.
    let mut index = persist::Index::default();
    index.upsert(&short);
    store.save_index(&index).unwrap();
    assert_eq!(satori::shell::compact::pack_resting(0, None).await, Ok(1));
    assert_eq!(parts_stored(), 0);
    let packed = store.chat("p").unwrap().unwrap();
    assert_eq!(packed.count, None);
    let json = satori::adapters::compression::unpack(&packed.text)
        .await
        .unwrap();
    assert_eq!(persist::decode_session(&json), Ok(short.clone()));
    // In parts again, then removed with them.
    store.write_chat("p", &head, &parts).unwrap();
    assert_eq!(parts_stored(), 2);
    store.remove_chat("p").unwrap();
    assert_eq!(parts_stored(), 0);
    assert_eq!(store.chat("p"), Ok(None));
    clear_chats(&store);
}

/// A chat record packed with the browser's deflate unpacks into the same text — through the
/// browser's inflate (the app) and through miniz_oxide (the dialogs module); a damaged one is an
/// error, never a different chat.
#[wasm_bindgen_test]
async fn packed_records_round_trip_through_the_browsers_deflate() {
    use satori::adapters::compression;
    use satori::core::{packed, persist};
    let fixture = v1_fixture();
    for key in ["satori.session.c-en", "satori.session.c-zh"] {
        let json = fixture[key].as_str().unwrap();
        let session = persist::decode_session(json).unwrap();
        let record = compression::pack(&session, json).await.unwrap();
        assert!(packed::is_packed(&record), "{record}");
        assert!(record.encode_utf16().count() < json.encode_utf16().count());
        assert_eq!(compression::unpack(&record).await.as_deref(), Ok(json));
        assert_eq!(packed::json(&record).map(|(_, j)| j).as_deref(), Ok(json));
        let damaged: String = record
            .chars()
            .enumerate()
            .map(|(i, c)| {
                if i == record.chars().count() - 4 {
                    '\u{7000}'
                } else {
                    c
                }
            })
            .collect();
        assert_eq!(
            compression::unpack(&damaged).await,
            Err("its packed data is damaged".into()),
            "{key}"
        );
        // A header that says less than the record holds: inflating stops there, said as damage
        // (not as the browser's "Failed to fetch").
        let (header, body) = packed::split(&record).unwrap();
        let short = packed::record_with(
            &packed::Header {
                json: header.json - 1,
                ..header
            },
            body,
        );
        assert_eq!(
            compression::unpack(&short).await,
            Err("its packed data is damaged".into()),
            "{key}"
        );
    }
}

/// Version-1 records as stored by an earlier Satori: a pass packs the resting chats — each
/// checked to unpack into its JSON before it replaces it —, leaves the open chat as JSON and an
/// unreadable record byte for byte, and start-up reads everything back.
#[wasm_bindgen_test]
async fn version_1_records_are_packed_verified_and_read_back() {
    use satori::core::{packed, persist, startup};
    let store = Store::local();
    clear_chats(&store);
    let fixture = v1_fixture();
    for (k, v) in &fixture {
        raw().set_item(k, v.as_str().unwrap()).unwrap();
    }
    assert_eq!(satori::shell::compact::pack_resting(0, None).await, Ok(2));
    for (key, value) in &fixture {
        let stored = store.get(key).unwrap().unwrap();
        let json = value.as_str().unwrap();
        if key == "satori.session.c-en" || key == "satori.session.c-zh" {
            assert!(packed::is_packed(&stored), "{key} is packed");
            assert_eq!(packed::json(&stored).map(|(_, j)| j).as_deref(), Ok(json));
        } else {
            assert_eq!(stored, json, "{key} is left as it was");
        }
    }
    assert_eq!(
        satori::shell::compact::pack_resting(0, None).await,
        Ok(0),
        "nothing twice"
    );
    let loaded = startup::load(&store);
    assert_eq!(loaded.session.map(|s| s.id).as_deref(), Some("c-active"));
    let titles: Vec<String> = loaded
        .index
        .sessions
        .iter()
        .map(|e| e.title.clone())
        .collect();
    assert_eq!(titles, ["Open one", "订单查询", "Shipping question"]);
    assert!(loaded.problems.is_empty(), "{:?}", loaded.problems);
    // The chat list lost: rebuilt from the packed records' headers.
    raw().remove_item("satori.index").unwrap();
    let rebuilt = startup::load(&store);
    let mut ids: Vec<String> = rebuilt
        .index
        .sessions
        .iter()
        .map(|e| e.id.clone())
        .collect();
    ids.sort();
    assert_eq!(ids, ["c-active", "c-en", "c-zh"]);
    assert_eq!(
        persist::decode_session(fixture["satori.session.c-zh"].as_str().unwrap())
            .unwrap()
            .updated_at,
        rebuilt
            .index
            .sessions
            .iter()
            .find(|e| e.id == "c-zh")
            .unwrap()
            .updated_at
    );
    clear_chats(&store);
}

/// Whether `hay` holds `needle` anywhere.
fn holds(hay: &[u8], needle: &[u8]) -> bool {
    hay.windows(needle.len()).any(|w| w == needle)
}

#[wasm_bindgen_test]
async fn sync_objects_are_sealed_and_only_the_passphrase_opens_them() {
    use satori::adapters::crypto::{self, CryptoError};
    use satori::core::sync::envelope::{EnvelopeError, MAGIC};
    let passphrase = "correct horse 电池 staple";
    let (account, keys) = crypto::new_account(passphrase).await.unwrap();
    let text = serde_json::to_string(&account).unwrap();
    assert!(
        !text.contains("horse"),
        "the account object holds no passphrase"
    );
    // Sealed: nothing of the text shows, and the same text seals differently each time.
    let secret = "订单 #4417 came to ¥1 280; locker password tulip-4471".as_bytes();
    let sealed = crypto::seal(&keys, "n1", secret).await.unwrap();
    assert!(sealed.starts_with(MAGIC));
    assert!(
        !holds(&sealed, b"tulip") && !holds(&sealed, "订单".as_bytes()) && !holds(&sealed, b"4417")
    );
    assert_ne!(
        sealed,
        crypto::seal(&keys, "n1", secret).await.unwrap(),
        "a fresh nonce each time"
    );
    assert_eq!(crypto::open(&keys, "n1", &sealed).await.unwrap(), secret);
    // One byte changed on the server: damaged, never read.
    let mut changed = sealed.clone();
    let last = changed.len() - 1;
    changed[last] ^= 1;
    assert_eq!(
        crypto::open(&keys, "n1", &changed).await.err(),
        Some(CryptoError::Object(EnvelopeError::Damaged))
    );
    // The passphrase unlocks the account again (another device); a wrong one is refused, and
    // its keys open nothing.
    let again = crypto::unlock(&text, passphrase).await.unwrap();
    assert_eq!(crypto::open(&again, "n1", &sealed).await.unwrap(), secret);
    assert_eq!(
        crypto::unlock(&text, "correct horse").await.err(),
        Some(CryptoError::WrongPassphrase)
    );
    let (salt, _) = account.parts().unwrap();
    let wrong = crypto::derive("correct horse", &salt, account.iterations)
        .await
        .unwrap();
    assert!(crypto::open(&wrong, "n1", &sealed).await.is_err());
    // An object moved under another name on the server does not open.
    assert_eq!(
        crypto::open(&keys, "n2", &sealed).await.err(),
        Some(CryptoError::Object(EnvelopeError::Damaged))
    );
    // The account object's check cut short: the object is damaged, not the passphrase wrong.
    let mut cut = account.clone();
    cut.check = "c2F0b3JpLXN5bmMgMQp4".into(); // "satori-sync 1\nx"
    let cut = serde_json::to_string(&cut).unwrap();
    assert!(matches!(
        crypto::unlock(&cut, passphrase).await.err(),
        Some(CryptoError::Account(_))
    ));
    // The passphrase as another system types it (decomposed é) is the same passphrase.
    let (composed, _) = crypto::new_account("caf\u{e9}").await.unwrap();
    let composed = serde_json::to_string(&composed).unwrap();
    assert!(crypto::unlock(&composed, "cafe\u{301}").await.is_ok());
    // Names: keyed hashes, the same on every device of the account, telling nothing.
    let name = crypto::name(&keys, "chat:c-4417").await.unwrap();
    assert_eq!(name, crypto::name(&again, "chat:c-4417").await.unwrap());
    assert_ne!(name, crypto::name(&keys, "chat:c-4418").await.unwrap());
    assert_ne!(name, crypto::name(&wrong, "chat:c-4417").await.unwrap());
    assert_eq!(name.len(), 64);
    assert!(name.bytes().all(|b| b.is_ascii_hexdigit()) && !name.contains("4417"));
}

/// The WebDAV test server's address (`scripts/test.sh` starts WsgiDAV with user `ann`).
fn dav() -> String {
    option_env!("SATORI_TEST_DAV")
        .map(str::to_string)
        .unwrap_or_else(|| {
            panic!(
                "SATORI_TEST_DAV must be set when building the browser tests (see scripts/test.sh)"
            )
        })
}

#[wasm_bindgen_test]
async fn a_webdav_folder_is_created_listed_and_written_only_as_last_seen() {
    use satori::adapters::webdav::{DavError, Folder};
    let (_c, signal) = signal();
    let folder = Folder::new(
        &format!("{}sync-{}", dav(), js_sys::Date::now() as u64),
        "ann",
        "pw 密码",
    )
    .unwrap();
    // No folder yet: said so; created (twice is fine); empty.
    assert!(matches!(
        folder.list(&signal).await,
        Err(DavError::NoFolder(404))
    ));
    folder.create(&signal).await.unwrap();
    folder.create(&signal).await.unwrap();
    assert_eq!(folder.list(&signal).await.unwrap(), vec![]);
    // A new object; written again only with the ETag last seen.
    let first = folder
        .put("a1", b"one", None, &signal)
        .await
        .unwrap()
        .expect("an ETag");
    assert_eq!(
        folder.put("a1", b"two", None, &signal).await,
        Err(DavError::Changed),
        "not new"
    );
    let (bytes, etag) = folder.get("a1", &signal).await.unwrap().unwrap();
    assert_eq!(
        (bytes.as_slice(), etag.as_str()),
        (&b"one"[..], first.as_str())
    );
    // (WsgiDAV's ETag is the file's mtime in seconds and its size: a write of another size.)
    let second = folder
        .put("a1", b"second", Some(&first), &signal)
        .await
        .unwrap()
        .unwrap();
    assert_ne!(second, first);
    // Another device wrote meanwhile: the stale write is refused and nothing is lost.
    assert_eq!(
        folder.put("a1", b"stale", Some(&first), &signal).await,
        Err(DavError::Changed)
    );
    assert_eq!(
        folder.get("a1", &signal).await.unwrap().unwrap().0,
        b"second"
    );
    let listed = folder.list(&signal).await.unwrap();
    assert_eq!(listed.len(), 1);
    use satori::core::sync::webdav::bare_etag;
    assert_eq!(
        (listed[0].name.as_str(), bare_etag(&listed[0].etag)),
        ("a1", bare_etag(&second))
    );
    assert_eq!(folder.get("missing", &signal).await.unwrap(), None);
    // A wrong password, and a server that is not there.
    let locked = Folder::new(&folder.url, "ann", "wrong").unwrap();
    assert_eq!(locked.list(&signal).await, Err(DavError::Refused(401)));
    let down = Folder::new("http://127.0.0.1:9/dav/", "ann", "pw").unwrap();
    assert_eq!(down.list(&signal).await, Err(DavError::Unreachable));
}

/// A device's chats and prompt templates held in memory, for sync passes.
#[derive(Default)]
struct Chats(
    std::collections::BTreeMap<String, satori::core::session::Session>,
    satori::core::prompts::UserPrompts,
);

impl satori::shell::sync::Local for Chats {
    #[allow(clippy::type_complexity)]
    fn chats(
        &self,
    ) -> Result<
        (
            std::collections::BTreeMap<String, satori::core::session::Session>,
            std::collections::BTreeSet<String>,
        ),
        String,
    > {
        Ok((self.0.clone(), Default::default()))
    }
    fn store(
        &mut self,
        session: satori::core::session::Session,
    ) -> Result<satori::core::session::Session, String> {
        self.0.insert(session.id.clone(), session.clone());
        Ok(session)
    }
    fn remove(&mut self, id: &str) -> Result<(), String> {
        self.0.remove(id);
        Ok(())
    }
    fn prompts(&self) -> Result<satori::core::prompts::UserPrompts, String> {
        Ok(self.1.clone())
    }
    fn store_prompts(
        &mut self,
        prompts: &satori::core::prompts::UserPrompts,
    ) -> Result<(), String> {
        self.1 = prompts.clone();
        Ok(())
    }
}

/// Makes the test WebDAV server hold the next `count` looks at folder `url` (listings, or reads of
/// its write log: every pass starts with one) until all have arrived
/// (tests/e2e/support/dav-server.py), so passes started together read the same state.
async fn barrier(url: &str, count: u32) {
    use wasm_bindgen_futures::JsFuture;
    let path = url
        .strip_prefix(dav().trim_end_matches('/'))
        .expect("a folder of the test server");
    let init = web_sys::RequestInit::new();
    init.set_method("POST");
    let control = format!("{}.barrier?path={path}&count={count}", dav());
    let response: web_sys::Response = JsFuture::from(
        web_sys::window()
            .unwrap()
            .fetch_with_str_and_init(&control, &init),
    )
    .await
    .expect("the test server answers")
    .unchecked_into();
    assert_eq!(response.status(), 204, "the barrier is set");
}

/// A device: its chats, its sync state, its clock.
struct Device {
    chats: Chats,
    state: satori::shell::sync::State,
    conn: satori::shell::sync::Connection,
}

impl Device {
    async fn join(url: &str, name: &str, passphrase: &str) -> Device {
        let (_c, signal) = signal();
        let conn = satori::shell::sync::connect(url, "ann", "pw 密码", passphrase, &signal)
            .await
            .unwrap();
        Device {
            chats: Chats::default(),
            state: satori::shell::sync::State::new(name),
            conn,
        }
    }

    /// A pass as the page runs one by itself (the folder's write log says what changed, when
    /// it can).
    async fn sync(&mut self, wall: i64) -> satori::shell::sync::Report {
        self.pass(wall, false).await
    }

    /// A pass as "Sync now" runs one: the folder listed.
    async fn sync_listing(&mut self, wall: i64) -> satori::shell::sync::Report {
        self.pass(wall, true).await
    }

    async fn pass(&mut self, wall: i64, thorough: bool) -> satori::shell::sync::Report {
        let (_c, signal) = signal();
        let (conn, state, chats) = (&self.conn, &mut self.state, &mut self.chats);
        satori::shell::sync::pass(conn, state, chats, wall, thorough, &signal)
            .await
            .unwrap()
    }

    fn say(&mut self, chat: &str, id: &str, text: &str, at: i64) {
        use satori::core::session::{Command, Session};
        let s = self
            .chats
            .0
            .entry(chat.to_string())
            .or_insert_with(|| Session::new(chat.to_string(), at, None, Vec::new()));
        s.apply(Command::AddUser {
            attachments: String::new(),
            id: id.into(),
            text: text.into(),
            at,
        })
        .unwrap();
    }

    fn texts(&self, chat: &str) -> Vec<String> {
        self.chats.0.get(chat).map_or(Vec::new(), |s| {
            s.messages.iter().map(|m| m.content.clone()).collect()
        })
    }
}

#[wasm_bindgen_test]
async fn two_devices_sync_through_a_real_webdav_folder_sealed() {
    use satori::core::session::Command;
    let url = format!("{}devices-{}/", dav(), js_sys::Date::now() as u64);
    let mut a = Device::join(&url, "laptop", "correct horse 电池").await;
    let mut b = Device::join(&url, "phone", "correct horse 电池").await;
    // A creates, B sees.
    a.say("chat-kyoto", "message-1", "Order #4417 costs ¥1 280", 1_000);
    assert_eq!(a.sync(1_100).await.uploaded, 1);
    let got = b.sync(1_200).await;
    assert_eq!((got.stored, got.uploaded), (1, 0), "{got:?}");
    assert_eq!(b.texts("chat-kyoto"), ["Order #4417 costs ¥1 280"]);
    // Both change offline, then both sync: the union on both.
    a.say("chat-kyoto", "message-2", "Shipping to Kyoto", 2_000);
    b.chats
        .0
        .get_mut("chat-kyoto")
        .unwrap()
        .apply(Command::Rename {
            title: "秘密の注文".into(),
        })
        .unwrap();
    b.say(
        "chat-phone",
        "message-3",
        "A second chat, from the phone",
        2_100,
    );
    a.sync(3_000).await;
    // From here on the devices learn what changed from the folder's write log, not by listing.
    assert!(!b.sync(3_100).await.listed);
    assert!(!a.sync(3_200).await.listed);
    for d in [&a, &b] {
        assert_eq!(
            d.texts("chat-kyoto"),
            ["Order #4417 costs ¥1 280", "Shipping to Kyoto"]
        );
        assert_eq!(d.chats.0["chat-kyoto"].title, "秘密の注文");
        assert_eq!(d.texts("chat-phone"), ["A second chat, from the phone"]);
    }
    // A deletes c2 while B, offline, adds to c1: the deletion holds, nothing comes back.
    a.chats.0.remove("chat-phone");
    b.say("chat-kyoto", "message-4", "Gift wrap, please", 4_000);
    for report in [
        a.sync(4_100).await,
        b.sync(4_200).await,
        a.sync(4_300).await,
    ] {
        assert!(!report.listed, "{report:?}");
    }
    for d in [&a, &b] {
        assert!(!d.chats.0.contains_key("chat-phone"));
        assert_eq!(d.texts("chat-kyoto").len(), 3);
    }
    // A new, empty device joins: it takes everything; the others lose nothing.
    let mut c = Device::join(&url, "tablet", "correct horse 电池").await;
    let joined = c.sync(5_000).await;
    assert_eq!((joined.stored, joined.uploaded), (1, 0), "{joined:?}");
    a.sync(5_100).await;
    assert_eq!(a.texts("chat-kyoto").len(), 3);
    assert_eq!(c.chats.0["chat-kyoto"], a.chats.0["chat-kyoto"]);
    // Nothing changed: one unchanged log and the account read, nothing else; an hour on, the
    // folder is listed again.
    let idle = a.sync(5_200).await;
    assert!(
        !idle.listed && idle.downloaded == 0 && idle.uploaded == 0,
        "{idle:?}"
    );
    let hourly = a.sync(5_300 + satori::shell::sync::RELIST_MS).await;
    assert!(hourly.listed && hourly.downloaded == 0, "{hourly:?}");
    // Nothing of the chats is readable on the server. Every secret looked for is at least five
    // bytes long, so random ciphertext, nonces or a base64 salt cannot hold one by chance (odds
    // under one in a million a run; a two-letter id such as "m1" once turned up in a salt).
    let (_c, signal) = signal();
    for listed in a.conn.folder.list(&signal).await.unwrap() {
        let Some((bytes, _)) = a.conn.folder.get(&listed.name, &signal).await.unwrap() else {
            continue;
        };
        let text = String::from_utf8_lossy(&bytes);
        for secret in [
            "#4417",
            "Kyoto",
            "秘密",
            "Gift wrap",
            "second chat",
            "chat-kyoto",
            "chat-phone",
            "message-1",
            "message-4",
            "laptop",
        ] {
            assert!(
                !text.contains(secret),
                "{secret} readable in {}",
                listed.name
            );
        }
    }
}

#[wasm_bindgen_test]
async fn sync_refuses_a_wrong_passphrase_and_never_takes_damage_for_deletion() {
    use satori::adapters::crypto::CryptoError;
    use satori::shell::sync::SyncError;
    let url = format!("{}faults-{}/", dav(), js_sys::Date::now() as u64);
    let mut a = Device::join(&url, "laptop", "one passphrase").await;
    a.say("c1", "m1", "kept", 1_000);
    a.sync(1_100).await;
    let (_c, signal) = signal();
    let before = a.conn.folder.list(&signal).await.unwrap();
    // A wrong passphrase: refused, and the folder is as it was.
    let wrong = satori::shell::sync::connect(&url, "ann", "pw 密码", "another one", &signal).await;
    assert_eq!(
        wrong.err(),
        Some(SyncError::Crypto(CryptoError::WrongPassphrase))
    );
    assert_eq!(a.conn.folder.list(&signal).await.unwrap(), before);
    // An object changed on the server: reported as damaged; the chat stays on the device.
    let mut b = Device::join(&url, "phone", "one passphrase").await;
    b.sync(1_200).await;
    let object = before
        .iter()
        .find(|l| l.name.len() == 64)
        .expect("the chat's object");
    a.conn
        .folder
        .put(
            &object.name,
            b"satori-sync 1\nnot what it was",
            Some(&object.etag),
            &signal,
        )
        .await
        .unwrap();
    // (Changed behind Satori's back, so not in the folder's write log: found by a listing.)
    let report = b.sync_listing(1_300).await;
    assert_eq!(report.damaged.len(), 1, "{report:?}");
    assert_eq!((report.removed, report.stored), (0, 0));
    assert_eq!(b.texts("c1"), ["kept"]);
    // A folder with Satori's records but not their account object: no new account is started
    // over them (it would make every record unreadable), and nothing is written.
    let orphan =
        satori::adapters::webdav::Folder::new(&format!("{url}orphan/"), "ann", "pw 密码").unwrap();
    orphan.create(&signal).await.unwrap();
    orphan
        .put(
            &object.name,
            b"satori-sync 1
sealed",
            None,
            &signal,
        )
        .await
        .unwrap();
    let refused =
        satori::shell::sync::connect(&orphan.url, "ann", "pw 密码", "one passphrase", &signal)
            .await;
    assert_eq!(refused.err(), Some(SyncError::NoAccount));
    assert_eq!(orphan.list(&signal).await.unwrap().len(), 1);
}

#[wasm_bindgen_test]
async fn two_devices_writing_one_chat_at_once_keep_both() {
    let url = format!("{}race-{}/", dav(), js_sys::Date::now() as u64);
    let mut a = Device::join(&url, "laptop", "race").await;
    let mut b = Device::join(&url, "phone", "race").await;
    a.say("c1", "m1", "start", 1_000);
    a.sync(1_100).await;
    b.sync(1_200).await;
    a.say("c1", "m2", "from the laptop", 2_000);
    b.say("c1", "m3", "from the phone, a longer message", 2_000);
    // Both passes at once: the server answers neither listing before both have asked, so both
    // read the same object, and one write finds it changed (412).
    barrier(&url, 2).await;
    let (ra, rb) = futures::join!(a.sync(2_100), b.sync(2_100));
    assert_eq!(ra.waiting + rb.waiting, 1, "{ra:?} {rb:?}");
    // Both learnt of the folder from its write log, not by listing it.
    assert!(!ra.listed && !rb.listed, "{ra:?} {rb:?}");
    for wall in [3_000, 3_100, 3_200] {
        a.sync(wall).await;
        b.sync(wall + 50).await;
    }
    // Both start a chat and sync at once: both writes land, and both go to note them in the
    // write log under the same number; one finds it taken and takes the next. Each then learns
    // of the other's chat from the log.
    a.say("c2", "m4", "a chat from the laptop", 3_500);
    b.say("c3", "m5", "a chat from the phone", 3_500);
    barrier(&url, 2).await;
    let (ra, rb) = futures::join!(a.sync(3_600), b.sync(3_600));
    assert_eq!(
        (ra.uploaded, rb.uploaded, ra.waiting + rb.waiting),
        (1, 1, 0)
    );
    let (ra, rb) = (a.sync(3_700).await, b.sync(3_700).await);
    assert!(!ra.listed && !rb.listed, "{ra:?} {rb:?}");
    assert_eq!(a.texts("c3"), ["a chat from the phone"]);
    assert_eq!(b.texts("c2"), ["a chat from the laptop"]);
    for d in [&a, &b] {
        let mut t = d.texts("c1");
        t.sort();
        assert_eq!(
            t,
            [
                "from the laptop",
                "from the phone, a longer message",
                "start"
            ]
        );
    }
}

#[wasm_bindgen_test]
async fn sync_writes_this_devices_stored_chats_and_tells_the_page() {
    use satori::core::persist;
    use satori::shell::sync::{pass, State, StoredChats};
    use std::{cell::RefCell, rc::Rc};
    use wasm_bindgen::closure::Closure;
    let stamp = js_sys::Date::now() as u64;
    let url = format!("{}stored-{stamp}/", dav(),);
    let chat = format!("synced-{stamp}");
    let mut a = Device::join(&url, "laptop", "stored").await;
    a.say(&chat, "m1", "From the laptop", 1_000);
    a.sync(1_100).await;
    // The page hears of each write as it hears of another tab's.
    let heard: Rc<RefCell<Vec<(String, bool)>>> = Rc::default();
    let h = heard.clone();
    let listener =
        Closure::<dyn FnMut(web_sys::StorageEvent)>::new(move |e: web_sys::StorageEvent| {
            h.borrow_mut()
                .push((e.key().unwrap_or_default(), e.new_value().is_some()));
        });
    let window = web_sys::window().unwrap();
    window
        .add_event_listener_with_callback("storage", listener.as_ref().unchecked_ref())
        .unwrap();
    let (_c, signal) = signal();
    let conn = satori::shell::sync::connect(&url, "ann", "pw 密码", "stored", &signal)
        .await
        .unwrap();
    let mut state = State::new("browser");
    let mut here = StoredChats {
        store: Store::local(),
    };
    let report = pass(&conn, &mut state, &mut here, 1_200, false, &signal)
        .await
        .unwrap();
    assert_eq!(report.stored, 1, "{report:?}");
    let stored = satori::shell::store::stored_chats(&here.store).unwrap();
    let got = stored
        .chats
        .iter()
        .find(|s| s.id == chat)
        .expect("the chat stored");
    assert_eq!(got.messages[0].content, "From the laptop");
    let index =
        persist::decode_index(&here.store.get(persist::KEY_INDEX).unwrap().unwrap()).unwrap();
    assert!(index.sessions.iter().any(|e| e.id == chat));
    assert!(
        heard
            .borrow()
            .contains(&(persist::session_key(&chat), true)),
        "{:?}",
        heard.borrow()
    );
    assert!(heard.borrow().iter().any(|(k, _)| k == persist::KEY_INDEX));
    // Deleted on the laptop: removed here, and said so.
    a.chats.0.remove(&chat);
    a.sync(1_300).await;
    let report = pass(&conn, &mut state, &mut here, 1_400, false, &signal)
        .await
        .unwrap();
    assert_eq!(report.removed, 1, "{report:?}");
    assert!(here.store.chat(&chat).unwrap().is_none());
    let index =
        persist::decode_index(&here.store.get(persist::KEY_INDEX).unwrap().unwrap()).unwrap();
    assert!(!index.sessions.iter().any(|e| e.id == chat));
    assert!(heard
        .borrow()
        .contains(&(persist::session_key(&chat), false)));
    window
        .remove_event_listener_with_callback("storage", listener.as_ref().unchecked_ref())
        .unwrap();
}

#[wasm_bindgen_test]
async fn sync_state_is_kept_in_indexeddb_across_loads() {
    use satori::adapters::idb;
    use satori::shell::sync::{forget_state, load_state, save_state};
    // Text records by key.
    idb::delete("test.a").await.unwrap();
    assert_eq!(idb::get("test.a").await.unwrap(), None);
    idb::put("test.a", "one 一").await.unwrap();
    idb::put("test.a", "two 二").await.unwrap();
    assert_eq!(idb::get("test.a").await.unwrap().as_deref(), Some("two 二"));
    idb::delete("test.a").await.unwrap();
    assert_eq!(idb::get("test.a").await.unwrap(), None);
    // Sync's state: new when there is none, then as saved.
    forget_state().await.unwrap();
    let mut state = load_state("device-1").await.unwrap();
    assert_eq!(state.replica.clock.device(), "device-1");
    state.replica.pending.insert("c1".into());
    save_state(&state).await.unwrap();
    let again = load_state("device-2").await.unwrap();
    assert_eq!(again, state);
    // A state that cannot be read is said, not taken for a new device.
    idb::put("sync.state", "{not json").await.unwrap();
    assert!(load_state("device-3")
        .await
        .unwrap_err()
        .contains("cannot be read"));
    forget_state().await.unwrap();
}
