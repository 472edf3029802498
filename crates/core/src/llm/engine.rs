//! One chat with the in-browser model, a step at a time: the prompt of a conversation is read
//! (reusing the key/value cache of the tokens it shares with what was read before, so the next
//! turn of a chat does not re-read the whole history), then the answer comes token by token as
//! text. The caller (the worker) runs [`Engine::step`] in a loop and can stop between any two
//! steps.

use super::gguf::GgufError;
use super::model::{Config, Model, State};
use super::sample::{choose, penalize, Rng, Sampling};
use super::tokenizer::{chat_prompt, Tokenizer};

/// Prompt tokens read per [`Engine::step`], at once (so Stop is seen within a fraction of a
/// second).
pub const PREFILL_CHUNK: usize = super::model::BATCH;

/// Why an answer ended (OpenAI's `finish_reason`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Finish {
    /// The model ended its turn.
    Stop,
    /// The token limit or the end of the window.
    Length,
}

impl Finish {
    /// The `finish_reason` string.
    pub fn as_str(self) -> &'static str {
        match self {
            Finish::Stop => "stop",
            Finish::Length => "length",
        }
    }
}

/// What one step did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// Read part of the prompt (tokens read so far, of all).
    Reading(usize, usize),
    /// Produced a token: its text (empty while a character is incomplete).
    Text(String),
    /// The answer is over (and any text still held back).
    Done(Finish, String),
    /// No answer is under way.
    Idle,
}

/// How a conversation started.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Started {
    /// Tokens in the prompt.
    pub prompt_tokens: usize,
    /// Of those, how many were already in the cache.
    pub reused: usize,
}

/// The prompt does not fit in the window with room for one token of answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("the request ({prompt} tokens) exceeds the available context size, n_ctx: {window}")]
pub struct TooLong {
    /// Tokens in the prompt.
    pub prompt: usize,
    /// The window.
    pub window: usize,
}

struct Job {
    pending: Vec<u32>,
    prompt: usize,
    produced: usize,
    max_new: usize,
    sampling: Sampling,
    rng: Rng,
    recent: Vec<u32>,
    held: Vec<u8>,
}

/// The model, its tokenizer and one conversation's cache.
pub struct Engine {
    model: Model,
    tok: Tokenizer,
    state: State,
    cached: Vec<u32>,
    job: Option<Job>,
    ends: Vec<u32>,
}

impl Engine {
    /// Loads a GGUF file with a window of `window` tokens.
    pub fn load(bytes: Vec<u8>, window: usize) -> Result<Engine, GgufError> {
        let tok = Tokenizer::load(&super::gguf::read(&bytes)?)?;
        let model = Model::load(bytes)?;
        let state = model.state(window);
        let ends = tok.specials().map(|(_, id)| id).collect();
        Ok(Engine {
            model,
            tok,
            state,
            cached: Vec::new(),
            job: None,
            ends,
        })
    }

    /// The tokenizer.
    pub fn tokenizer(&self) -> &Tokenizer {
        &self.tok
    }

    /// The window in tokens.
    pub fn window(&self) -> usize {
        self.state.ctx()
    }

    /// Starts answering `messages` (role, content) with at most `max_new` tokens (`None`: up to
    /// the window), dropping any answer under way.
    pub fn start(
        &mut self,
        messages: &[(&str, &str)],
        max_new: Option<usize>,
        sampling: Sampling,
        seed: u64,
    ) -> Result<Started, TooLong> {
        self.job = None;
        let prompt = self.tok.encode(&chat_prompt(messages));
        let window = self.window();
        fits(prompt.len(), window)?;
        // The cache holds `cached`; keep what the new prompt shares with it (at least the last
        // prompt token is read again, for its logits).
        let shared = self
            .cached
            .iter()
            .zip(&prompt)
            .take_while(|(a, b)| a == b)
            .count()
            .min(prompt.len() - 1);
        self.cached.truncate(shared);
        self.state.pos = shared;
        let room = window - prompt.len();
        self.job = Some(Job {
            pending: prompt[shared..].to_vec(),
            prompt: prompt.len(),
            produced: 0,
            max_new: max_new.map_or(room, |m| m.min(room)),
            sampling,
            rng: Rng::new(seed),
            recent: prompt.clone(),
            held: Vec::new(),
        });
        Ok(Started {
            prompt_tokens: prompt.len(),
            reused: shared,
        })
    }

    /// Drops the answer under way (the cache keeps what was read).
    pub fn stop(&mut self) {
        self.job = None;
    }

    /// Does the next piece of work: reads up to [`PREFILL_CHUNK`] prompt tokens, or produces one
    /// token of the answer.
    pub fn step(&mut self) -> Step {
        let Some(job) = self.job.as_mut() else {
            return Step::Idle;
        };
        if !job.pending.is_empty() {
            let n = job.pending.len().min(PREFILL_CHUNK);
            let chunk: Vec<u32> = job.pending.drain(..n).collect();
            // The prompt fits (checked at start), so feeding succeeds; only the last token's
            // logits are needed.
            if self
                .model
                .feed(&mut self.state, &chunk, job.pending.is_empty())
            {
                self.cached.extend(chunk);
            } else {
                // Checked at start, so never; but the cache must not drift from `cached`.
                self.cached.truncate(self.state.pos);
                return self.finish(Finish::Length);
            }
            return Step::Reading(job.prompt - job.pending.len(), job.prompt);
        }
        if job.produced >= job.max_new {
            return self.finish(Finish::Length);
        }
        let logits = &mut self.state.logits;
        penalize(logits, &job.recent, &job.sampling);
        let next = choose(logits, &job.sampling, job.rng.draw());
        if self.ends.contains(&next) {
            return self.finish(Finish::Stop);
        }
        job.produced += 1;
        job.recent.push(next);
        job.held.extend(self.tok.decode(&[next]));
        let text = take_complete(&mut job.held);
        if job.produced < job.max_new {
            // Room was left for `max_new` tokens; should a step ever be refused, the answer ends
            // rather than the cache drifting from `cached`.
            if !self.model.step(&mut self.state, next) {
                job.max_new = job.produced;
            } else {
                self.cached.push(next);
            }
        }
        Step::Text(text)
    }

    fn finish(&mut self, why: Finish) -> Step {
        let held = self.job.take().map(|j| j.held).unwrap_or_default();
        Step::Done(why, String::from_utf8_lossy(&held).into_owned())
    }

    /// Tokens in the answer so far, and in its prompt.
    pub fn counts(&self) -> Option<(usize, usize)> {
        self.job.as_ref().map(|j| (j.produced, j.prompt))
    }
}

/// Whether the engine can run a model file of `total` bytes, from its first bytes `head`: its
/// shape, `Ok(None)` when `head` ends inside the header (read more of the file), or why not. The
/// same checks as [`Engine::load`] (the tokenizer, ChatML markers, every tensor's shape, type and
/// place in the file), without the weights.
pub fn check_head(head: &[u8], total: usize) -> Result<Option<Config>, GgufError> {
    let g = match super::gguf::read_head(head, total) {
        Err(GgufError::Truncated(_)) if head.len() < total => return Ok(None),
        r => r?,
    };
    let tok = Tokenizer::load(&g)?;
    // The prompt is written in ChatML (`chat_prompt`): its markers must be single tokens.
    if ["<|im_start|>", "<|im_end|>"]
        .iter()
        .any(|m| tok.encode(m).len() != 1)
    {
        return Err(GgufError::Missing(
            "tokens <|im_start|> and <|im_end|> (a ChatML model)".into(),
        ));
    }
    Model::check(&g).map(Some)
}

/// Whether a prompt of `prompt` tokens leaves room for an answer in `window`.
pub fn fits(prompt: usize, window: usize) -> Result<(), TooLong> {
    if prompt >= window {
        return Err(TooLong { prompt, window });
    }
    Ok(())
}

/// Takes the complete UTF-8 characters of `held`, leaving a character still incomplete at its
/// end (an invalid byte anywhere becomes U+FFFD).
fn take_complete(held: &mut Vec<u8>) -> String {
    let mut text = String::new();
    let mut keep = 0;
    let mut chunks = held.utf8_chunks().peekable();
    while let Some(chunk) = chunks.next() {
        text.push_str(chunk.valid());
        let bad = chunk.invalid();
        if bad.is_empty() {
            continue;
        }
        // The last invalid run may be the start of a character the next token completes.
        let last = chunks.peek().is_none();
        if last
            && std::str::from_utf8(bad)
                .err()
                .is_some_and(|e| e.error_len().is_none())
        {
            keep = bad.len();
        } else {
            text.push('\u{FFFD}');
        }
    }
    held.drain(..held.len() - keep);
    text
}

#[cfg(test)]
mod tests {
    use super::take_complete;

    #[test]
    fn characters_are_never_cut() {
        // (bytes held, text given, bytes left)
        let cases: [(&[u8], &str, &[u8]); 5] = [
            (b"ab", "ab", b""),
            ("中".as_bytes(), "中", b""),
            (&"中".as_bytes()[..2], "", &"中".as_bytes()[..2]),
            (b"a\xff", "a\u{FFFD}", b""),
            // an invalid byte, then a character still arriving
            (b"\xff\xe4\xb8", "\u{FFFD}", b"\xe4\xb8"),
        ];
        for (held, text, left) in cases {
            let mut h = held.to_vec();
            assert_eq!(take_complete(&mut h), text, "{held:?}");
            assert_eq!(h, left, "{held:?}");
        }
        let mut h = b"x\xe4\xb8".to_vec();
        assert_eq!(take_complete(&mut h), "x");
        h.push(0xad);
        assert_eq!(take_complete(&mut h), "中");
    }
}
