//! Time, measurements and fresh ids from the browser.

use wasm_bindgen::JsCast;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// A fresh random id (`crypto.randomUUID()`), with a fallback of the time and 104 random bits
/// for non-secure contexts, where `randomUUID` is missing.
pub fn new_id() -> String {
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
    let rnd = || (js_sys::Math::random() * (1u64 << 52) as f64) as u64;
    format!("{:x}-{:x}-{:x}", now_ms(), rnd(), rnd())
}

/// The time of day now, in the browser's locale and time zone (e.g. `14:03:07`).
pub fn local_time() -> String {
    js_sys::Date::new_0()
        .to_locale_time_string("default")
        .as_string()
        .unwrap_or_default()
}

/// Milliseconds since the page started, as precise as the browser allows (for measurements).
pub fn precise_ms() -> f64 {
    web_sys::window()
        .and_then(|w| w.performance())
        .map_or(0.0, |p| p.now())
}

/// Record a User Timing measure `name` from `start` (a [`precise_ms`] value) to now, so
/// benchmarks and the browser's performance panel can read what a step cost.
pub fn measure_since(name: &str, start: f64) {
    let Some(p) = web_sys::window().and_then(|w| w.performance()) else {
        return;
    };
    let options = js_sys::Object::new();
    let _ = js_sys::Reflect::set(&options, &"start".into(), &start.into());
    let _ = js_sys::Reflect::set(&options, &"end".into(), &p.now().into());
    if let Ok(f) = js_sys::Reflect::get(&p, &"measure".into()) {
        if let Ok(f) = f.dyn_into::<js_sys::Function>() {
            let _ = f.call2(&p, &name.into(), &options);
        }
    }
}
