//! Which rows of a long list to draw: the conversation draws only the messages near the
//! viewport, with one spacer above and one below standing in for the rest.
//!
//! Rows have heights in pixels, measured once drawn and estimated from their text before
//! ([`estimate`]). Invariants, checked by the tests below:
//! - [`visible`] returns the rows that intersect a band, never empty for a non-empty list, and the
//!   first row when the band is above the list, the last when it is below;
//! - [`plan`] keeps the rows drawn while the viewport stays well inside them (scrolling a little
//!   changes nothing), and otherwise returns rows covering the viewport and one viewport either
//!   side, never more than [`MAX_ROWS`], so the page holds a bounded number of messages whatever
//!   the chat's length;
//! - the spacers ([`before`], [`after`]) plus the drawn rows add up to the whole list's height.

use std::ops::Range;

/// The most rows drawn at once, whatever their heights (a guard against tiny estimates).
pub const MAX_ROWS: usize = 80;

/// Pixels above the rows `0..range.start`: the height of the spacer before the drawn rows.
pub fn before(heights: &[f64], range: &Range<usize>) -> f64 {
    heights[..range.start.min(heights.len())].iter().sum()
}

/// Pixels below the rows drawn: the height of the spacer after them.
pub fn after(heights: &[f64], range: &Range<usize>) -> f64 {
    heights[range.end.min(heights.len())..].iter().sum()
}

/// The rows that intersect the band `top..bottom` (pixels from the top of the list).
pub fn visible(heights: &[f64], top: f64, bottom: f64) -> Range<usize> {
    let n = heights.len();
    if n == 0 {
        return 0..0;
    }
    let mut y = 0.0;
    let mut start = None;
    let mut end = n;
    for (i, h) in heights.iter().enumerate() {
        let next = y + h.max(0.0);
        if start.is_none() && next > top {
            start = Some(i);
        }
        if y >= bottom {
            end = i;
            break;
        }
        y = next;
    }
    let start = start.unwrap_or(n - 1).min(n - 1);
    start..end.max(start + 1)
}

/// The last rows, filling at least `span` pixels (how a chat opens: at its latest message).
pub fn tail(heights: &[f64], span: f64) -> Range<usize> {
    let n = heights.len();
    let mut y = 0.0;
    let mut start = n;
    while start > 0 && y < span && n - start < MAX_ROWS {
        start -= 1;
        y += heights[start].max(0.0);
    }
    start..n
}

/// Rows around row `i`, filling at least `span` pixels on each side (a search result shown).
pub fn around(heights: &[f64], i: usize, span: f64) -> Range<usize> {
    let n = heights.len();
    if n == 0 {
        return 0..0;
    }
    let i = i.min(n - 1);
    let top: f64 = heights[..i].iter().sum();
    let bottom = top + heights[i];
    cap(visible(heights, top - span, bottom + span), i)
}

/// Keep at most [`MAX_ROWS`] rows, centred on `keep`.
fn cap(r: Range<usize>, keep: usize) -> Range<usize> {
    if r.len() <= MAX_ROWS {
        return r;
    }
    let start = keep
        .saturating_sub(MAX_ROWS / 2)
        .clamp(r.start, r.end - MAX_ROWS);
    start..start + MAX_ROWS
}

/// The rows to draw for a viewport `top..top + height` when `drawn` are drawn: `None` while
/// `drawn` still covers half a viewport either side and is not much larger than needed, else
/// the rows covering one viewport either side.
pub fn plan(heights: &[f64], drawn: &Range<usize>, top: f64, height: f64) -> Option<Range<usize>> {
    let n = heights.len();
    if n == 0 {
        return (!drawn.is_empty()).then_some(0..0);
    }
    let height = height.max(1.0);
    let bottom = top + height;
    let need = visible(heights, top - height / 2.0, bottom + height / 2.0);
    let room = visible(heights, top - 3.0 * height, bottom + 3.0 * height);
    let fits = drawn.end <= n
        && drawn.start <= need.start
        && drawn.end >= need.end
        && drawn.start >= room.start
        && drawn.end <= room.end
        && drawn.len() <= MAX_ROWS;
    if fits {
        return None;
    }
    let want = visible(heights, top - height, bottom + height);
    let middle = top + height / 2.0;
    let centre = visible(heights, middle, middle).start;
    Some(cap(want, centre))
}

/// What to draw once the list changed from `old_len` rows to `new_len`: rows drawn up to the
/// end keep following the end (a new message appears); otherwise the same rows, clipped.
pub fn follow(drawn: &Range<usize>, old_len: usize, new_len: usize) -> Range<usize> {
    let end = if drawn.end >= old_len {
        new_len
    } else {
        drawn.end.min(new_len)
    };
    drawn.start.min(end)..end
}

/// A height in pixels for a message not yet drawn: its lines wrapped at `chars_per_line`
/// (characters of three or four UTF-8 bytes, CJK and emoji, count as two), plus `frame` for the
/// header, the actions and the gap. One pass over the bytes: it runs for every message of a
/// chat when it opens. Drawn rows replace this with what they measure.
pub fn estimate(text: &str, chars_per_line: f64, line: f64, frame: f64) -> f64 {
    let per_line = chars_per_line.max(8.0);
    let wrapped = |width: u32| {
        if width == 0 {
            0.5
        } else {
            (f64::from(width) / per_line).ceil()
        }
    };
    let mut lines = 0.0;
    let mut width = 0u32;
    for &b in text.as_bytes() {
        match b {
            b'\n' => {
                lines += wrapped(width);
                width = 0;
            }
            0x80..=0xBF => {}
            0xE0.. => width += 2,
            _ => width += 1,
        }
    }
    if width > 0 {
        lines += wrapped(width);
    }
    frame + f64::max(lines, 1.0) * line
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rows(spec: &[(usize, f64)]) -> Vec<f64> {
        spec.iter()
            .flat_map(|&(n, h)| std::iter::repeat_n(h, n))
            .collect()
    }

    #[test]
    fn visible_rows_of_a_band() {
        let h = rows(&[(10, 100.0)]);
        for (top, bottom, want) in [
            (0.0, 250.0, 0..3),
            (150.0, 250.0, 1..3),
            (100.0, 200.0, 1..2),
            (-500.0, -100.0, 0..1),
            (5000.0, 6000.0, 9..10),
            (950.0, 5000.0, 9..10),
            (-100.0, 5000.0, 0..10),
        ] {
            assert_eq!(visible(&h, top, bottom), want, "{top}..{bottom}");
        }
        assert_eq!(visible(&[], 0.0, 100.0), 0..0);
        // A band below a list of height zero: its last row.
        assert_eq!(visible(&[0.0, 0.0], 0.0, 10.0), 1..2);
    }

    #[test]
    fn spacers_and_rows_add_up() {
        let h: Vec<f64> = (0..50)
            .map(|i| 20.0 + (i * 37 % 11) as f64 * 13.0)
            .collect();
        let total: f64 = h.iter().sum();
        for r in [0..0, 0..50, 3..9, 49..50, 10..10] {
            let drawn: f64 = h[r.clone()].iter().sum();
            assert_eq!(before(&h, &r) + drawn + after(&h, &r), total, "{r:?}");
        }
    }

    #[test]
    fn a_chat_opens_at_its_end() {
        let h = rows(&[(2000, 100.0)]);
        assert_eq!(tail(&h, 1600.0), 1984..2000);
        assert_eq!(tail(&h[..3], 1600.0), 0..3);
        assert_eq!(tail(&[], 1600.0), 0..0);
        // Tiny rows: capped.
        assert_eq!(tail(&rows(&[(500, 1.0)]), 1600.0).len(), MAX_ROWS);
    }

    #[test]
    fn a_search_result_is_drawn_with_its_neighbours() {
        let h = rows(&[(2000, 100.0)]);
        assert_eq!(around(&h, 1000, 800.0), 992..1009);
        assert_eq!(around(&h, 0, 800.0), 0..9);
        assert_eq!(around(&h, 5000, 800.0), 1991..2000);
        let tiny = rows(&[(2000, 1.0)]);
        let r = around(&tiny, 1000, 800.0);
        assert!(r.contains(&1000) && r.len() == MAX_ROWS, "{r:?}");
    }

    #[test]
    fn scrolling_a_little_keeps_the_rows_drawn() {
        let h = rows(&[(2000, 100.0)]);
        // Viewport 800 px at the end: drawn rows from `tail(2 viewports)`.
        let drawn = tail(&h, 1600.0);
        let end = 2000.0 * 100.0 - 800.0;
        assert_eq!(plan(&h, &drawn, end, 800.0), None);
        assert_eq!(plan(&h, &drawn, end - 300.0, 800.0), None);
        // Scrolled up by a viewport: the rows move with it.
        let moved = plan(&h, &drawn, end - 800.0, 800.0).expect("moves");
        assert_eq!(moved, 1976..2000);
        assert_eq!(plan(&h, &moved, end - 800.0, 800.0), None);
        // Jumped to the top.
        assert_eq!(plan(&h, &moved, 0.0, 800.0), Some(0..16));
        // Far too many rows drawn for the viewport: fewer.
        assert_eq!(plan(&h, &(0..2000), 0.0, 800.0), Some(0..16));
    }

    #[test]
    fn the_rows_drawn_stay_bounded_wherever_the_viewport_goes() {
        let h: Vec<f64> = (0..3000).map(|i| 30.0 + (i * 7919 % 997) as f64).collect();
        let total: f64 = h.iter().sum();
        let mut drawn = tail(&h, 1600.0);
        let mut top = total - 800.0;
        while top > 0.0 {
            top -= 333.0;
            if let Some(next) = plan(&h, &drawn, top.max(0.0), 800.0) {
                drawn = next;
            }
            assert!(drawn.len() <= MAX_ROWS);
            let seen = visible(&h, top.max(0.0), top.max(0.0) + 800.0);
            assert!(
                drawn.start <= seen.start && drawn.end >= seen.end,
                "{top}: {drawn:?} {seen:?}"
            );
        }
        assert_eq!(drawn.start, 0);
    }

    #[test]
    fn new_messages_follow_the_end() {
        for (drawn, old, new, want) in [
            (10..20, 20, 22, 10..22),
            (10..15, 20, 22, 10..15),
            (10..20, 20, 12, 10..12),
            (10..20, 20, 5, 5..5),
            (0..0, 0, 3, 0..3),
        ] {
            assert_eq!(follow(&drawn, old, new), want, "{drawn:?} {old}->{new}");
        }
    }

    #[test]
    fn estimates_grow_with_wrapped_lines() {
        let (cpl, line, frame) = (80.0, 24.0, 50.0);
        for (text, lines) in [
            ("", 1.0),
            ("hello", 1.0),
            (&"x".repeat(81) as &str, 2.0),
            ("a\nb\nc", 3.0),
            ("a\n\nb", 2.5),
            (&"中".repeat(41), 2.0),
            (&"中".repeat(40), 1.0),
        ] {
            assert_eq!(
                estimate(text, cpl, line, frame),
                frame + lines * line,
                "{text:?}"
            );
        }
    }
}
