//! Choosing the next token from the logits the way llama.cpp's default sampler chain does:
//! repetition penalty over the recent tokens, then top-k, top-p and min-p on the probabilities,
//! then the temperature, then a draw. A temperature of 0 picks the most likely token.

/// How to choose (llama-cpp-python's defaults, which the bundled server uses).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Sampling {
    /// 0 = always the most likely token.
    pub temperature: f32,
    /// Only the `top_k` most likely tokens are candidates (0 = all).
    pub top_k: usize,
    /// The fewest candidates whose probabilities add up to `top_p`.
    pub top_p: f32,
    /// Candidates at least `min_p` times as likely as the most likely one.
    pub min_p: f32,
    /// Logits of recently seen tokens are divided (positive) or multiplied (negative) by this.
    pub repeat_penalty: f32,
    /// How many recent tokens the penalty looks at.
    pub repeat_last: usize,
}

/// Always the most likely token, with no repetition penalty (how the llama.cpp fixtures of the
/// tests were recorded).
pub const GREEDY: Sampling = Sampling {
    temperature: 0.0,
    top_k: 40,
    top_p: 0.95,
    min_p: 0.05,
    repeat_penalty: 1.0,
    repeat_last: 64,
};

impl Default for Sampling {
    fn default() -> Sampling {
        Sampling {
            temperature: 0.2,
            top_k: 40,
            top_p: 0.95,
            min_p: 0.05,
            repeat_penalty: 1.1,
            repeat_last: 64,
        }
    }
}

/// Applies the repetition penalty of `s` to `logits` for the tokens at the end of `recent`.
pub fn penalize(logits: &mut [f32], recent: &[u32], s: &Sampling) {
    if s.repeat_penalty == 1.0 || s.repeat_last == 0 {
        return;
    }
    let mut seen: Vec<u32> = recent[recent.len().saturating_sub(s.repeat_last)..].to_vec();
    seen.sort_unstable();
    seen.dedup();
    for t in seen {
        if let Some(l) = logits.get_mut(t as usize) {
            *l = if *l > 0.0 {
                *l / s.repeat_penalty
            } else {
                *l * s.repeat_penalty
            };
        }
    }
}

/// The token chosen from `logits` (already penalized) with `s`; `draw` is uniform in [0, 1).
pub fn choose(logits: &[f32], s: &Sampling, draw: f32) -> u32 {
    if s.temperature <= 0.0 || logits.len() < 2 {
        return super::model::argmax(logits);
    }
    let mut ids: Vec<u32> = (0..logits.len() as u32).collect();
    let by_logit = |a: &u32, b: &u32| logits[*b as usize].total_cmp(&logits[*a as usize]);
    if s.top_k > 0 && s.top_k < ids.len() {
        ids.select_nth_unstable_by(s.top_k - 1, by_logit);
        ids.truncate(s.top_k);
    }
    ids.sort_unstable_by(by_logit);
    let max = logits[ids[0] as usize];
    let mut p: Vec<f32> = ids
        .iter()
        .map(|&i| (logits[i as usize] - max).exp())
        .collect();
    let sum: f32 = p.iter().sum();
    p.iter_mut().for_each(|x| *x /= sum);
    // top-p: the fewest candidates reaching the mass; min-p: those near the best.
    let mut keep = p.len();
    let mut mass = 0.0;
    for (i, x) in p.iter().enumerate() {
        mass += x;
        if mass >= s.top_p {
            keep = i + 1;
            break;
        }
    }
    keep = keep.min(
        p.iter()
            .take_while(|x| **x >= s.min_p * p[0])
            .count()
            .max(1),
    );
    ids.truncate(keep);
    let w: Vec<f32> = ids
        .iter()
        .map(|&i| ((logits[i as usize] - max) / s.temperature).exp())
        .collect();
    let mut target = draw.clamp(0.0, 1.0) * w.iter().sum::<f32>();
    for (i, x) in w.iter().enumerate() {
        if target < *x {
            return ids[i];
        }
        target -= x;
    }
    ids[ids.len() - 1]
}

/// A small seeded random number generator (xorshift64*): draws uniform in [0, 1).
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    /// A generator from `seed` (any value).
    pub fn new(seed: u64) -> Rng {
        Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }

    /// The next draw in [0, 1).
    pub fn draw(&mut self) -> f32 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let x = self.0.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (x >> 40) as f32 / (1u64 << 24) as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_penalty_lowers_recent_tokens_either_sign() {
        let s = Sampling {
            repeat_penalty: 2.0,
            repeat_last: 3,
            ..GREEDY
        };
        let mut l = vec![4.0, -1.0, 3.0, 1.0];
        // token 3 is too far back; 0 and 1 are recent (0 twice, penalized once).
        penalize(&mut l, &[3, 0, 0, 1], &s);
        assert_eq!(l, vec![2.0, -2.0, 3.0, 1.0]);
        let mut l = vec![4.0, -1.0, 3.0, 1.0];
        penalize(&mut l, &[2, 0], &s);
        assert_eq!(l, vec![2.0, -1.0, 1.5, 1.0]);
    }

    #[test]
    fn cases() {
        let logits = [0.0, 5.0, 4.9, -3.0, 1.0];
        // (sampling, draw, chosen)
        let warm = Sampling {
            temperature: 1.0,
            top_k: 0,
            top_p: 1.0,
            min_p: 0.0,
            ..GREEDY
        };
        let cases = [
            (GREEDY, 0.99, 1),
            (warm, 0.0, 1),
            (warm, 0.6, 2),  // p(1) ≈ 0.50, p(2) ≈ 0.45
            (warm, 0.99, 4), // then 4 (≈ 0.0095)
            (Sampling { top_k: 1, ..warm }, 0.99, 1),
            (Sampling { top_k: 2, ..warm }, 0.99, 2),
            // top-p 0.5 keeps only token 1 (its mass is ≥ 0.5)
            (Sampling { top_p: 0.5, ..warm }, 0.99, 1),
            // min-p 0.5 drops tokens 0, 3 and 4
            (Sampling { min_p: 0.5, ..warm }, 0.999_9, 2),
            // a low temperature sharpens toward token 1
            (
                Sampling {
                    temperature: 0.01,
                    ..warm
                },
                0.9,
                1,
            ),
        ];
        for (s, draw, want) in cases {
            assert_eq!(choose(&logits, &s, draw), want, "{s:?} draw {draw}");
        }
    }

    #[test]
    fn draws_are_uniform_enough_and_seeded() {
        let mut a = Rng::new(7);
        let mut b = Rng::new(7);
        let xs: Vec<f32> = (0..10_000).map(|_| a.draw()).collect();
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        assert_eq!(b.draw(), xs[0]);
        let low = xs.iter().filter(|x| **x < 0.5).count();
        assert!((4_700..5_300).contains(&low), "{low}");
        assert_ne!(Rng::new(8).draw(), xs[0]);
    }
}
