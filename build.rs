//! The wasm modules that read import files get an 8 MB stack in linear memory (Rust's default is
//! 1 MB): JSON is parsed recursively, and a LibreChat export's tree nests each reply in the one
//! before, so a long chat nests up to `core::transfer::import::MAX_DEPTH` levels. (The engine's
//! own call stack is the tighter bound; MAX_DEPTH is set by it.) Nothing else changes: stack is
//! memory, not bytes downloaded.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        for bin in ["satori-import", "satori-dialogs"] {
            println!("cargo:rustc-link-arg-bin={bin}=-zstack-size=8388608");
        }
    }
}
