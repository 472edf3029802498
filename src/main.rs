//! Entry point of the web app: takes the interface language, reads the stored records, then
//! mounts the Leptos UI on `<body>` — each step in a task of its own, so a long chat's start-up
//! never holds the page for one long task.

fn main() {
    wasm_bindgen_futures::spawn_local(async {
        satori::adapters::theme::follow();
        satori::adapters::menus::start();
        satori::adapters::language::start().await;
        gloo_timers::future::TimeoutFuture::new(0).await;
        satori::ui::state::preload();
        gloo_timers::future::TimeoutFuture::new(0).await;
        satori::ui::mount();
        satori::adapters::language::drawn();
    });
}
