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
    let store = Store::local();
    assert!(store.is_available());
    store.set("satori.test.k", "värde 🌍").unwrap();
    assert_eq!(
        store.get("satori.test.k").unwrap().as_deref(),
        Some("värde 🌍")
    );
    assert!(store
        .keys("satori.test.")
        .unwrap()
        .contains(&"satori.test.k".to_string()));
    store.remove("satori.test.k").unwrap();
    assert_eq!(store.get("satori.test.k").unwrap(), None);
}

#[wasm_bindgen_test]
fn storage_unavailable_is_an_error_value() {
    let store = Store::from_storage(None);
    assert!(!store.is_available());
    assert_eq!(store.get("x"), Err(StorageError::Unavailable));
    assert_eq!(store.set("x", "y"), Err(StorageError::Unavailable));
}

#[wasm_bindgen_test]
fn storage_full_is_quota_exceeded_and_keeps_old_value() {
    let store = Store::local();
    store.set("satori.test.big", "old").unwrap();
    // localStorage holds ~5 MB of UTF-16; 6 M characters cannot fit.
    let huge = "x".repeat(6 * 1024 * 1024);
    assert_eq!(
        store.set("satori.test.big", &huge),
        Err(StorageError::QuotaExceeded)
    );
    assert_eq!(
        store.get("satori.test.big").unwrap().as_deref(),
        Some("old")
    );
    store.remove("satori.test.big").unwrap();
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
        store.set("x", "y"),
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
