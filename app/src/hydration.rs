//! The page's hydration scripts: what Leptos's `HydrationScripts` writes, without its wasm
//! preload. A browser with JavaScript off still fetches a preload it will never use, and did so
//! on every page it opened (an unused preload is never finished into the cache), until all its
//! connections to the server were busy with wasm and its next request waited: a JS-off form post
//! stalled for 30 s. With JavaScript on, the module below fetches the wasm itself as it starts.

use leptos::prelude::*;

/// Leptos 0.8's hydration script (`leptos/src/hydration/hydration_script.js`), called without
/// deferral.
const SCRIPT: &str = r#"(function (root, pkg_path, output_name, wasm_output_name) {
	import(`${root}/${pkg_path}/${output_name}.js`)
		.then(mod => {
			mod.default({module_or_path: `${root}/${pkg_path}/${wasm_output_name}.wasm`}).then(() => {
				mod.hydrate();
			});
		});
})"#;

/// The JS and wasm file names, with cargo-leptos's hashes when it hashes the site's files, read
/// from the hash file beside the binary as Leptos reads it.
fn file_names(options: &LeptosOptions) -> (String, String) {
    let mut js = options.output_name.to_string();
    let mut wasm = options.output_name.to_string();
    if options.hash_files {
        let hash_path = std::env::current_exe()
            .ok()
            .and_then(|p| p.parent().map(|p| p.to_path_buf()))
            .unwrap_or_default()
            .join(options.hash_file.as_ref());
        match std::fs::read_to_string(&hash_path) {
            Ok(hashes) => {
                for (file, hash) in hashes.lines().filter_map(|l| l.trim().split_once(':')) {
                    match file {
                        "js" => js.push_str(&format!(".{}", hash.trim())),
                        "wasm" => wasm.push_str(&format!(".{}", hash.trim())),
                        _ => {}
                    }
                }
            }
            Err(e) => tracing::error!(path = %hash_path.display(), error = %e, "no hash file for the site's files"),
        }
    } else if option_env!("LEPTOS_OUTPUT_NAME").is_none() {
        wasm.push_str("_bg");
    }
    (js, wasm)
}

#[component]
pub fn PageScripts(options: LeptosOptions) -> impl IntoView {
    let (js, wasm) = file_names(&options);
    let pkg = options.site_pkg_dir.to_string();
    let nonce = leptos::nonce::use_nonce();
    view! {
        <link rel="modulepreload" href=format!("/{pkg}/{js}.js") crossorigin=""/>
        <script type="module" nonce=nonce>{format!("{SCRIPT}(\"\", {pkg:?}, {js:?}, {wasm:?});")}</script>
    }
}
