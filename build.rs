//! The wasm modules that read import files get an 8 MB stack (Rust's default is 1 MB): JSON is
//! parsed recursively, and a LibreChat export's tree nests each reply in the one before, so a
//! long chat nests thousands of levels (`core::transfer::import::MAX_DEPTH` levels at most, about
//! 2 000 per MB of stack). Nothing else changes: stack is linear memory, not bytes downloaded.

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_ARCH").as_deref() == Ok("wasm32") {
        for bin in ["satori-import", "satori-dialogs"] {
            println!("cargo:rustc-link-arg-bin={bin}=-zstack-size=8388608");
        }
    }
}
