//! Icons of the page's sprite (Lucide, ISC licence): `scripts/postbuild.mjs` puts into the page
//! exactly the icons the sources name as `#i-NAME`. Icons are decoration: the control around one
//! carries the accessible name (and a tooltip with it). Each is markup for `inner_html` (the
//! control's only content; a menu item has its icon and its text as one such string): far fewer
//! bytes of wasm than SVG elements built one by one.

macro_rules! icons {
    ($($name:ident = $href:literal),* $(,)?) => {
        $(
            #[doc = concat!("The icon `", $href, "`.")]
            pub const $name: &str = concat!(
                r#"<svg class="icon" aria-hidden="true"><use href=""#, $href, r#""></use></svg>"#
            );
        )*
    };
}

icons! {
    BOT = "#i-bot",
    COPY = "#i-copy",
    ELLIPSIS = "#i-ellipsis",
    EYE_OFF = "#i-eye-off",
    GAUGE = "#i-gauge",
    PANEL_LEFT = "#i-panel-left",
    PENCIL = "#i-pencil",
    PIN = "#i-pin",
    REFRESH = "#i-refresh-cw",
    RETRY = "#i-rotate-ccw",
    SETTINGS = "#i-settings",
}
