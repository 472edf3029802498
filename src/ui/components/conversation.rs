//! The conversation log: the visible branch of the open session, one article per message.
//!
//! Only the messages near the viewport are drawn (`core::window` decides which); a spacer above
//! and one below stand in for the rest, so a chat of thousands of messages keeps the page small.
//! Drawn messages are measured; the rest are estimated from their text. When the drawn rows
//! change, the first message in view is put back where it was (the browser's own scroll
//! anchoring is off: it does not follow these changes); at the latest message the view stays
//! there, following a reply as it arrives, unless the user scrolled up.

use crate::core::session::Role;
use crate::core::window;
use crate::ui::components::message::{MessageView, Row};
use crate::ui::state::{Chats, LiveTurn, Overlay};
use leptos::html;
use leptos::prelude::*;
use std::ops::Range;
use wasm_bindgen::JsCast;

/// Pixels from the bottom within which the view counts as "at the latest message".
const NEAR_BOTTOM: i32 = 120;
/// Line height and per-message frame (header, actions, gap) of the estimates, in pixels.
const LINE: f64 = 24.0;
const FRAME: f64 = 70.0;
/// Average width of a character of message text, in pixels.
const CHAR: f64 = 7.6;
/// A chat with at least this many messages is drawn a task after the page (see `ready`).
const LONG: usize = 200;
/// Consecutive re-plans without the drawn rows settling, before waiting for the next scroll.
const MAX_REPLANS: u8 = 8;

/// The rows drawn and the spacers standing in for the others.
#[derive(Clone, PartialEq, Default)]
struct Drawn {
    rows: Range<usize>,
    above: f64,
    below: f64,
}

/// Row heights, by position in the branch shown: measured once drawn (kept while the row's key
/// and the width stay the same), estimated from the text before, scaled by how far estimates
/// have been off so far; and when the next check runs and what it does first.
#[derive(Default)]
struct Sizes {
    width: f64,
    keys: Vec<String>,
    heights: Vec<f64>,
    known: Vec<bool>,
    estimated: f64,
    measured: f64,
    /// The next check scrolls to the end first (content grew at the end, or the user asked).
    stick: bool,
    scheduled: bool,
    replans: u8,
    /// The view's scroll position at the last scroll event or the app's own last scroll, px.
    last_top: i32,
}

impl Sizes {
    fn guess(&self, row: &Row) -> f64 {
        let m = &row.msg;
        if m.example || m.role == Role::System {
            return 2.0 * LINE + FRAME / 2.0;
        }
        let per_line = (self.width - 32.0).clamp(200.0, 832.0) / CHAR;
        let reasoning = if m.reasoning.is_empty() { 0.0 } else { LINE };
        let scale = if self.estimated > 0.0 {
            (self.measured / self.estimated).clamp(0.5, 3.0)
        } else {
            1.0
        };
        (window::estimate(&m.content, per_line, LINE, FRAME) + reasoning) * scale
    }

    /// Heights for `rows`: rows whose key is unchanged at the same position keep theirs,
    /// measured or estimated (so the spacers only change where rows did).
    fn rebuild(&mut self, rows: &[Row]) {
        let keys: Vec<String> = rows.iter().map(Row::key).collect();
        let mut heights = Vec::with_capacity(rows.len());
        let mut known = Vec::with_capacity(rows.len());
        for (i, row) in rows.iter().enumerate() {
            let kept = self.keys.get(i) == Some(&keys[i]);
            heights.push(if kept {
                self.heights[i]
            } else {
                self.guess(row)
            });
            known.push(kept && self.known[i]);
        }
        (self.keys, self.heights, self.known) = (keys, heights, known);
    }

    /// The width changed: every height is estimated again (measurements are void).
    fn resized(&mut self, width: f64, rows: &[Row]) {
        self.width = width;
        (self.keys, self.known) = (Vec::new(), Vec::new());
        (self.estimated, self.measured) = (0.0, 0.0);
        self.rebuild(rows);
    }

    /// Row `i` measured `h` pixels high.
    fn measured(&mut self, rows: &[Row], i: usize, h: f64) {
        if i >= self.heights.len() || i >= rows.len() {
            return;
        }
        if !self.known[i] {
            self.known[i] = true;
            self.estimated += self.guess(&rows[i]);
            self.measured += h;
        }
        self.heights[i] = h;
    }
}

/// Everything a check needs (all handles, so it is `Copy`).
#[derive(Clone, Copy)]
struct List {
    log: NodeRef<html::Div>,
    rows: Memo<Vec<Row>>,
    sizes: StoredValue<Sizes>,
    drawn: RwSignal<Drawn>,
    /// Whether the view is at the latest message (our own scrolls count).
    pinned: RwSignal<bool>,
}

thread_local! {
    // Why a static: search and the app's own scrolls reach the one conversation on screen from
    // outside its component.
    /// The conversation on screen, for [`show_message`] and [`windowed`].
    static LIST: std::cell::Cell<Option<List>> = const { std::cell::Cell::new(None) };
}

impl List {
    /// Draw `rows`, with spacers for the others.
    fn draw(self, rows: Range<usize>) {
        let d = self.sizes.with_value(|s| Drawn {
            above: window::before(&s.heights, &rows),
            below: window::after(&s.heights, &rows),
            rows,
        });
        if self.drawn.with_untracked(|now| *now != d) {
            self.keep_focus(&d.rows);
            self.drawn.set(d);
        }
    }

    /// The keyboard focus is in a message about to be taken out of the drawn rows: it moves to
    /// the conversation itself, so the keyboard stays there instead of falling to the page.
    fn keep_focus(self, next: &Range<usize>) {
        let (Some(log), Some(active)) = (self.log.get_untracked(), document().active_element())
        else {
            return;
        };
        let Some(id) = active
            .closest("article[data-message]")
            .ok()
            .flatten()
            .filter(|a| log.contains(Some(a)))
            .and_then(|a| a.get_attribute("data-message"))
        else {
            return;
        };
        let stays = self.rows.with_untracked(|r| {
            r.get(next.start..next.end.min(r.len()))
                .is_some_and(|drawn| drawn.iter().any(|row| row.msg.id == id))
        });
        if !stays {
            let _ = log.focus();
        }
    }

    /// Draw the same rows with spacers from the heights as they are now; when the spacer above
    /// changes (rows above re-estimated: the width changed, a row changed elsewhere), the view
    /// moves with it, so what is on screen stays put.
    fn respace(self) {
        let (range, was) = self.drawn.with_untracked(|d| (d.rows.clone(), d.above));
        self.draw(range);
        let moved = self.drawn.with_untracked(|d| d.above) - was;
        if moved.abs() >= 0.5 && !self.pinned.get_untracked() {
            leptos::task::spawn_local(async move {
                if let Some(el) = self.log.get_untracked() {
                    self.scroll_to(&el, el.scroll_top() + moved.round() as i32);
                }
            });
        }
    }

    /// Redraws that bring back messages already there (scrolling, jumps) are not announced as
    /// new by the log's live region: it is off until they are drawn.
    fn quiet(self, on: bool) {
        if let Some(el) = self.log.get_untracked() {
            let _ = el.set_attribute("aria-live", if on { "off" } else { "polite" });
        }
    }

    /// Draw the last messages and stay at the end (a search result shown is no longer marked).
    fn draw_end(self) {
        unmark();
        self.pinned.set(true);
        self.sizes.update_value(|f| {
            f.stick = true;
            f.replans = 0;
        });
        let h = self.height();
        self.draw(self.sizes.with_value(|s| window::tail(&s.heights, 2.0 * h)));
        self.schedule();
    }

    fn height(self) -> f64 {
        self.log
            .get_untracked()
            .map(|el| f64::from(el.client_height()))
            .filter(|h| *h > 0.0)
            .or_else(|| web_sys::window()?.inner_height().ok()?.as_f64())
            .unwrap_or(800.0)
    }

    /// Check at the next frame (once, however often asked).
    fn schedule(self) {
        if !self.sizes.with_value(|f| f.scheduled) {
            self.sizes.update_value(|f| f.scheduled = true);
            request_animation_frame(move || self.check());
        }
    }

    /// Measure what is drawn, then draw what the viewport needs.
    fn check(self) {
        let stick = self.sizes.with_value(|f| f.stick);
        self.sizes.update_value(|f| {
            f.scheduled = false;
            f.stick = false;
        });
        let Some(el) = self.log.get_untracked() else {
            return;
        };
        if stick && !has_found(&el) {
            self.scroll_to(&el, el.scroll_height());
        }
        let range = self.drawn.with_untracked(|d| d.rows.clone());
        // The spacers around the articles drawn.
        let kids = el.children();
        let n = kids.length();
        if n as usize != range.len() + 2 {
            return; // not drawn yet: the change that is drawing it schedules another check
        }
        let width = f64::from(el.client_width());
        let tops: Vec<f64> = (1..n)
            .filter_map(|i| kids.item(i))
            .map(|k| f64::from(k.unchecked_into::<web_sys::HtmlElement>().offset_top()))
            .collect();
        self.rows.with_untracked(|r| {
            self.sizes.update_value(|s| {
                if (width - s.width).abs() > 0.5 {
                    s.resized(width, r);
                }
                for (k, pair) in tops.windows(2).enumerate() {
                    s.measured(r, range.start + k, pair[1] - pair[0]);
                }
            })
        });
        // The log is the offset parent of its children: the view's top in list coordinates.
        let top = match kids.item(0) {
            Some(above) => f64::from(
                el.scroll_top() - above.unchecked_into::<web_sys::HtmlElement>().offset_top(),
            ),
            None => return,
        };
        let plan = self
            .sizes
            .with_value(|s| window::plan(&s.heights, &range, top, f64::from(el.client_height())));
        match plan {
            None => {
                self.sizes.update_value(|f| f.replans = 0);
                self.respace(); // spacers follow what was measured
            }
            Some(next) if self.sizes.with_value(|f| f.replans < MAX_REPLANS) => {
                let pinned = self.pinned.get_untracked();
                self.sizes.update_value(|f| {
                    f.replans += 1;
                    f.stick = pinned;
                });
                // The first message in view, and how far below the view's top it is: it stays
                // there once the rows are drawn (rows drawn above it have their real heights now).
                let scroll = el.scroll_top();
                let anchor = (1..n.saturating_sub(1))
                    .filter_map(|k| {
                        Some((k, kids.item(k)?.unchecked_into::<web_sys::HtmlElement>()))
                    })
                    .find(|(_, a)| a.offset_top() + a.offset_height() > scroll)
                    .map(|(k, a)| (range.start + k as usize - 1, a.offset_top() - scroll));
                self.quiet(true);
                self.draw(next);
                // Runs after the rows are drawn (effects run first, in order) and before paint.
                leptos::task::spawn_local(async move {
                    self.quiet(false);
                    if let (Some(el), Some((i, offset)), false) =
                        (self.log.get_untracked(), anchor, pinned)
                    {
                        let start = self.drawn.with_untracked(|d| d.rows.start);
                        if let Some(a) = i
                            .checked_sub(start)
                            .and_then(|k| el.children().item(k as u32 + 1))
                        {
                            let now = a.unchecked_into::<web_sys::HtmlElement>().offset_top()
                                - el.scroll_top();
                            self.scroll_to(&el, el.scroll_top() + now - offset);
                        }
                    }
                    self.schedule();
                });
            }
            Some(_) => {}
        }
    }

    /// Scroll the log to `top` (the app's own scroll): its event, a frame later, compares with
    /// this position, so rows growing below meanwhile do not read as the user moving.
    fn scroll_to(self, el: &web_sys::HtmlDivElement, top: i32) {
        el.set_scroll_top(top);
        self.remember_top(el);
    }

    /// Where the view is now, for the next scroll event to compare with.
    fn remember_top(self, el: &web_sys::HtmlDivElement) {
        let now = el.scroll_top();
        self.sizes.update_value(|f| f.last_top = now);
    }

    fn on_scroll(self) {
        if let Some(el) = self.log.get_untracked() {
            let top = el.scroll_top();
            // (A pixel or two is layout at fractional zoom, not the user.)
            let up = self.sizes.with_value(|f| top < f.last_top - 2);
            let at_end = el.scroll_height() - top - el.client_height() < NEAR_BOTTOM;
            // Away from the end without moving up: rows grew below the view after a scroll to
            // the end (a scroll's event comes a frame later), so the view goes on to the end.
            // Only the user moving up leaves it.
            let pinned = at_end || (self.pinned.get_untracked() && !up);
            if self.pinned.get_untracked() != pinned {
                self.pinned.set(pinned);
            }
            self.sizes.update_value(|f| {
                f.last_top = top;
                if !pinned {
                    f.stick = false; // the user scrolled away: a pending "stay at the end" is void
                } else if !at_end {
                    f.stick = true;
                }
            });
        }
        self.sizes.update_value(|f| f.replans = 0);
        self.schedule();
    }
}

/// The search result shown is no longer marked.
fn unmark() {
    if let Ok(Some(old)) = document().query_selector(".msg.found") {
        let _ = old.class_list().remove_1("found");
    }
}

fn has_found(el: &web_sys::HtmlDivElement) -> bool {
    matches!(el.query_selector(".msg.found"), Ok(Some(_)))
}

/// `role="log"` named "Conversation", and "Jump to latest" while the view is above the end.
#[component]
pub fn Conversation() -> impl IntoView {
    let chats = expect_context::<Chats>();
    let turn = expect_context::<LiveTurn>();
    let overlay = expect_context::<Overlay>();
    // A long chat's rows come a task after the page: its start-up is then two tasks, neither
    // long (the rest of the page first, then the rows, before the next frame or the one after).
    let ready = RwSignal::new(chats.session.with_untracked(|s| s.messages.len() < LONG));
    if !ready.get_untracked() {
        set_timeout(move || ready.set(true), std::time::Duration::ZERO);
    }
    let rows = Memo::new(move |_| {
        if !ready.get() {
            return Vec::new();
        }
        chats.session.with(|s| {
            let branch = s.branch();
            let n = branch.len();
            branch
                .into_iter()
                .enumerate()
                .map(|(i, (m, variant, variants))| Row {
                    msg: m.clone(),
                    variant,
                    variants,
                    last: i + 1 == n,
                })
                .collect::<Vec<_>>()
        })
    });

    let list = List {
        log: NodeRef::new(),
        rows,
        sizes: StoredValue::new(Sizes::default()),
        drawn: RwSignal::new(Drawn::default()),
        pinned: RwSignal::new(true),
    };
    LIST.set(Some(list));
    on_cleanup(|| LIST.set(None));

    // The rows changed: another chat opened (draw its end), or messages came or went.
    Effect::new(move |prev: Option<(String, bool, usize)>| {
        let id = chats.session.with(|s| s.id.clone());
        let ready = ready.get();
        if !ready {
            return (id, false, 0); // nothing to draw yet (measuring the view would cost a layout)
        }
        let n = rows.with(|r| {
            list.sizes.update_value(|s| {
                if s.width == 0.0 {
                    s.width = web_sys::window()
                        .and_then(|w| w.inner_width().ok()?.as_f64())
                        .unwrap_or(800.0);
                }
                s.rebuild(r)
            });
            r.len()
        });
        match &prev {
            Some((was, true, old)) if *was == id => {
                list.draw(
                    list.drawn
                        .with_untracked(|d| window::follow(&d.rows, *old, n)),
                );
                list.respace();
                if list.pinned.get_untracked() {
                    list.sizes.update_value(|f| f.stick = true);
                }
                list.schedule();
            }
            _ => {
                crate::ui::components::message::forget_edits(); // edits belong to their chat
                list.draw_end();
            }
        }
        (id, ready, n)
    });
    // A reply starts: show the end. Text arrives or the formatting changes the heights: stay at
    // the end if the view was there.
    Effect::new(move |prev: Option<Option<String>>| {
        // Agent mode's tools running (a live turn without a reply) do not move the view.
        let live = turn
            .live
            .with(|l| l.as_ref().map(|l| l.id.clone()))
            .filter(|id| !id.is_empty());
        overlay.markdown_ready.track();
        if live.is_some() && prev.as_ref().is_some_and(|p| *p != live) {
            list.draw_end();
        } else if list.pinned.get_untracked() {
            list.sizes.update_value(|f| f.stick = true);
            list.schedule();
        }
        live
    });

    // The button hides once at the end: the keyboard focus moves to the conversation.
    let jump = move |_| {
        list.draw_end();
        if let Some(el) = list.log.get_untracked() {
            let _ = el.focus();
        }
    };
    // One listener for every "Copy code" button in rendered markdown. Code with hidden characters
    // (marked `md-hidden` by the renderer, each holding its character) is copied as it is, and the
    // button says so.
    let on_click = move |ev: leptos::ev::MouseEvent| {
        let Some(target) = ev
            .target()
            .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        else {
            return;
        };
        let Ok(Some(button)) = target.closest(".copy-code") else {
            return;
        };
        let code = button
            .closest(".code-block")
            .ok()
            .flatten()
            .and_then(|b| b.query_selector("code").ok().flatten());
        if let (Some(code), Some(w)) = (code, web_sys::window()) {
            let hidden = matches!(code.query_selector(".md-hidden"), Ok(Some(_)));
            let _ = w
                .navigator()
                .clipboard()
                .write_text(&code.text_content().unwrap_or_default());
            button.set_text_content(Some(if hidden {
                "Copied (contains hidden characters)"
            } else {
                "Copied"
            }));
        }
    };
    // Heights go through the CSSOM: `style-src 'self'` forbids style attributes.
    let spacer = |px: f64| format!("{}px", px.round() as i64);
    view! {
        <div class="log-wrap">
            <div class="log" role="log" aria-label="Conversation" tabindex="0" node_ref=list.log on:click=on_click on:scroll=move |_| list.on_scroll()>
                <div class="spacer" aria-hidden="true" style:height=move || list.drawn.with(|d| spacer(d.above))></div>
                <For
                    each=move || {
                        let range = list.drawn.with(|d| d.rows.clone());
                        rows.with(|r| r[range.start.min(r.len())..range.end.min(r.len())].to_vec())
                    }
                    key=Row::key
                    children=move |row| view! { <MessageView row=row /> }
                />
                <div class="spacer" aria-hidden="true" style:height=move || list.drawn.with(|d| spacer(d.below))></div>
            </div>
            <button type="button" class="jump" class:hidden=move || list.pinned.get() on:click=jump>"Jump to latest"</button>
        </div>
    }
}

/// The window changed size: the drawn rows may no longer cover the view.
pub fn resized() {
    if let Some(list) = LIST.get() {
        list.schedule();
    }
}

/// Whether some messages of the open chat are not drawn (find in page cannot see them).
pub fn windowed() -> bool {
    LIST.get()
        .is_some_and(|l| l.drawn.with_untracked(|d| d.rows.len()) < l.rows.with_untracked(Vec::len))
}

/// Draw message `id` of the open chat with its neighbours, scroll it into view and mark it (a
/// search result chosen).
pub fn show_message(id: &str) {
    let Some(list) = LIST.get() else {
        return;
    };
    let Some(i) = list
        .rows
        .with_untracked(|r| r.iter().position(|row| row.msg.id == id))
    else {
        return;
    };
    list.pinned.set(false);
    list.sizes.update_value(|f| {
        f.stick = false;
        f.replans = 0;
    });
    let h = list.height();
    list.quiet(true);
    list.draw(list.sizes.with_value(|s| window::around(&s.heights, i, h)));
    let id = id.to_string();
    // Once drawn (effects run first, in order), before the next check looks at the view.
    leptos::task::spawn_local(async move {
        list.quiet(false);
        let doc = document();
        // Ids come from imported files: every character but letters and digits as a CSS escape.
        let quoted: String = id
            .chars()
            .map(|c| match c {
                'a'..='z' | 'A'..='Z' | '0'..='9' => c.to_string(),
                c => format!("\\{:x} ", c as u32),
            })
            .collect();
        unmark();
        if let Ok(Some(el)) = doc.query_selector(&format!("article[data-message=\"{quoted}\"]")) {
            el.scroll_into_view();
            let _ = el.class_list().add_1("found");
            if let Some(log) = list.log.get_untracked() {
                list.remember_top(&log);
            }
        }
        list.schedule();
    });
}
