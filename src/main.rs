//! Entry point of the web app: mounts the Leptos UI on `<body>`.

fn main() {
    satori::ui::mount();
}
