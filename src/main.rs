//! Entry point of the web app: takes the interface language, then mounts the Leptos UI on
//! `<body>`.

fn main() {
    wasm_bindgen_futures::spawn_local(async {
        satori::adapters::language::start().await;
        satori::ui::mount();
    });
}
