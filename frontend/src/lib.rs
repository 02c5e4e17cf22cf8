//! The hydrate entry: the browser takes over the server-rendered page.

// Release builds keep full view types (debug builds erase them), which nest deeper than the default limit.
#![recursion_limit = "256"]

#[wasm_bindgen::prelude::wasm_bindgen]
pub fn hydrate() {
    console_error_panic_hook::set_once();
    leptos::mount::hydrate_body(app::App);
}
