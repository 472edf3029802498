//! The token counter against js-tiktoken: every case of `tests/fixtures/tokens/cases.json`
//! (written by `scripts/bpe-fixtures.mjs`) must give the same ids, under the real tables.
//!
//! The tables are build output, not committed: they are read from `$SATORI_BPE_DIR` (default
//! `target/bpe`), made by `node scripts/bpe-tables.mjs target/bpe`. Missing tables fail the test
//! with that command; they are never skipped.

use std::path::PathBuf;

use satori::core::bpe::{Bpe, Cache};
use serde_json::Value;

const ENCODINGS: [(&str, usize); 2] = [("o200k_base", 199_998), ("cl100k_base", 100_256)];

fn load(encoding: &str) -> Bpe {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let dir = std::env::var_os("SATORI_BPE_DIR").map_or(root.join("target/bpe"), PathBuf::from);
    let path = dir.join(format!("{encoding}.bpe"));
    let data = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the token table {}: {e}\n\
             Make the tables first: node scripts/bpe-tables.mjs target/bpe\n\
             (or point SATORI_BPE_DIR at a folder holding o200k_base.bpe and cl100k_base.bpe)",
            path.display()
        )
    });
    Bpe::from_bytes(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/tokens/cases.json"
    );
    let text = std::fs::read_to_string(path).expect("read cases.json");
    let json: Value = serde_json::from_str(&text).expect("cases.json is JSON");
    json["cases"].as_array().expect("cases").clone()
}

#[test]
fn tables_describe_themselves() {
    for (encoding, size) in ENCODINGS {
        let bpe = load(encoding);
        assert_eq!(bpe.name(), encoding);
        assert_eq!(bpe.vocab_size(), size);
        assert!(!bpe.unicode_version().is_empty());
    }
}

#[test]
fn ids_and_counts_equal_js_tiktoken() {
    let cases = cases();
    assert!(
        cases.len() >= 400,
        "the corpus shrank: {} cases",
        cases.len()
    );
    for (encoding, _) in ENCODINGS {
        let bpe = load(encoding);
        let mut checked = 0;
        let mut wrong = Vec::new();
        for case in cases.iter().filter(|c| c["encoding"] == encoding) {
            let text = case["text"].as_str().expect("text");
            let want: Vec<u32> = case["ids"]
                .as_array()
                .expect("ids")
                .iter()
                .map(|v| v.as_u64().expect("id") as u32)
                .collect();
            assert_eq!(case["count"].as_u64(), Some(want.len() as u64));
            let got = bpe.encode(text);
            let count = bpe.count(text);
            if got != want || count != want.len() {
                wrong.push(format!(
                    "{text:?}\n  js-tiktoken {want:?}\n  ours        {got:?} (count {count})\n  pieces {:?}",
                    bpe.pieces(text).collect::<Vec<_>>()
                ));
            }
            assert_eq!(bpe.decode(&got), text.as_bytes(), "{text:?}");
            checked += 1;
        }
        assert!(checked >= 200, "{encoding}: only {checked} cases");
        assert!(
            wrong.is_empty(),
            "{encoding}: {} of {checked} cases differ:\n{}",
            wrong.len(),
            wrong.join("\n")
        );
    }
}

/// A cache changes nothing but speed: a tiny one (many evictions), every case twice.
#[test]
fn the_piece_cache_gives_the_same_ids() {
    let cases = cases();
    for (encoding, _) in ENCODINGS {
        let bpe = load(encoding);
        let mut cache = Cache::new(16, 300, 100);
        for _ in 0..2 {
            for case in cases.iter().filter(|c| c["encoding"] == encoding) {
                let text = case["text"].as_str().expect("text");
                let want = bpe.encode(text);
                assert_eq!(bpe.encode_cached(text, &mut cache), want, "{text:?}");
                assert_eq!(bpe.count_cached(text, &mut cache), want.len(), "{text:?}");
            }
        }
    }
}

/// Long single pieces take the heap merge; it must give what the scan would (the fixtures hold
/// runs of 3,000 letters and a 1,000-byte base64 blob), and stay fast on 100 KB pieces.
#[test]
fn long_pieces_round_trip() {
    // A blob without spaces from a fixed linear congruential sequence.
    let mut x: u32 = 12345;
    let blob: String = (0..100_000)
        .map(|_| {
            x = x.wrapping_mul(1_103_515_245).wrapping_add(12345);
            let alphabet = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
            char::from(alphabet[(x >> 16) as usize % alphabet.len()])
        })
        .collect();
    for (encoding, _) in ENCODINGS {
        let bpe = load(encoding);
        for text in [
            "a".repeat(100_000),
            "中".repeat(30_000),
            " ".repeat(100_000),
            "e\u{301}".repeat(30_000),
            blob.clone(),
        ] {
            let ids = bpe.encode(&text);
            assert_eq!(bpe.count(&text), ids.len());
            assert_eq!(bpe.decode(&ids), text.as_bytes());
        }
    }
}
