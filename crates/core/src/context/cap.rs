//! Stage 5, the hard cap, and the head-and-tail cut it shares with the per-item cap.
//!
//! This is the only place a user's or model's text is cut, and a cut is always visible: the
//! start and the end are kept with a marker saying how much is missing in between. If cutting
//! every message as far as allowed still does not fit, [`fit`] says so and the request is
//! refused — an over-budget request is never sent.

use super::count::Counter;
use super::{Fate, Step, Work};

/// Fewest content tokens a cut leaves in a message.
pub const MIN_KEEP: u32 = 24;

/// The marker put where text was cut.
pub fn marker(chars: usize) -> String {
    format!("\n\n[… {chars} characters cut to fit the context …]\n\n")
}

/// `text` shortened to at most `target` tokens (as `counter` counts) by keeping its start and
/// end around a [`marker`]; `text` itself when it already fits. The result may exceed `target`
/// only when the marker alone does.
pub fn head_tail(text: &str, target: u32, counter: &mut dyn Counter) -> String {
    let tokens = counter.count(text).tokens;
    if tokens <= target {
        return text.to_string();
    }
    let bounds: Vec<usize> = text
        .char_indices()
        .map(|(i, _)| i)
        .chain(std::iter::once(text.len()))
        .collect();
    let chars = bounds.len() - 1;
    // Characters to keep: proportional first, then smaller until it fits.
    let mut keep = (chars as u64 * u64::from(target) / u64::from(tokens.max(1))) as usize;
    keep = keep.min(chars.saturating_sub(1));
    for _ in 0..64 {
        let head = keep * 3 / 5;
        let tail = keep - head;
        let cut = chars - head - tail;
        let candidate = format!(
            "{}{}{}",
            &text[..bounds[head]],
            marker(cut),
            &text[bounds[chars - tail]..]
        );
        if counter.count(&candidate).tokens <= target || keep == 0 {
            return candidate;
        }
        keep = keep * 4 / 5;
    }
    marker(chars)
}

/// Cut the largest contents until the request fits `budget`; false when it cannot.
pub(crate) fn fit(work: &mut Work<'_>, budget: u32, counter: &mut dyn Counter) -> bool {
    let mut stuck = vec![false; work.items.len()];
    for _ in 0..(work.items.len() * 4 + 8) {
        let total = work.total();
        if total <= budget {
            return true;
        }
        let over = total - budget;
        let largest = work
            .items
            .iter()
            .enumerate()
            .filter(|(n, _)| !stuck[*n])
            .map(|(n, i)| (n, counter.count(&i.content).tokens))
            .filter(|(_, t)| *t > MIN_KEEP + 16)
            .max_by_key(|(n, t)| (*t, usize::MAX - n));
        let Some((n, tokens)) = largest else {
            return false;
        };
        let target = tokens.saturating_sub(over).max(MIN_KEEP);
        let item = &mut work.items[n];
        let cut = head_tail(&item.content, target, counter);
        let after = counter.count(&cut).tokens;
        if after >= tokens {
            stuck[n] = true;
            continue;
        }
        item.content = std::borrow::Cow::Owned(cut);
        item.recount(counter);
        item.fate = Fate::Cut;
        let name = match &item.source {
            super::Source::Summary => "summary".to_string(),
            _ => item.id.to_string(),
        };
        work.log.push(Step::Cut(name, tokens, after));
    }
    work.total() <= budget
}
