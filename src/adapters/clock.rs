//! Time and fresh ids from the browser.

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// A fresh random id (`crypto.randomUUID()`), with a time-and-counter fallback for
/// non-secure contexts, where `randomUUID` is missing.
pub fn new_id() -> String {
    use std::cell::Cell;
    thread_local!(static COUNTER: Cell<u64> = const { Cell::new(0) });
    if let Some(id) = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .and_then(|c| {
            js_sys::Reflect::get(&c, &"randomUUID".into())
                .ok()
                .filter(|f| f.is_function())
                .map(|_| c)
        })
        .map(|c| c.random_uuid())
    {
        return id;
    }
    let n = COUNTER.with(|c| {
        c.set(c.get() + 1);
        c.get()
    });
    let rnd = (js_sys::Math::random() * 1e12) as u64;
    format!("{:x}-{:x}-{:x}", now_ms(), n, rnd)
}

/// The time of day now, in the browser's locale and time zone (e.g. `14:03:07`).
pub fn local_time() -> String {
    js_sys::Date::new_0()
        .to_locale_time_string("default")
        .as_string()
        .unwrap_or_default()
}
