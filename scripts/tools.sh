# Shared by scripts/demo and scripts/check: installs what the build needs, at pinned versions,
# only when it is missing. Sourced, not run.

CARGO_LEPTOS_VERSION=0.3.10
WASM_BINDGEN_VERSION=0.2.130

say() { printf '\n==> %s\n' "$*" >&2; }

ensure_rust_tools() {
  if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
    say "adding the wasm32-unknown-unknown target"
    rustup target add wasm32-unknown-unknown
  fi
  if [ "$(cargo leptos --version 2>/dev/null)" != "cargo-leptos ${CARGO_LEPTOS_VERSION}" ]; then
    say "installing cargo-leptos ${CARGO_LEPTOS_VERSION} (about 13 minutes on 2 cores)"
    cargo install cargo-leptos --version "${CARGO_LEPTOS_VERSION}" --locked
  fi
  # Not --locked: its lockfile wants a webpki-roots version the registry lacks.
  if [ "$(wasm-bindgen --version 2>/dev/null)" != "wasm-bindgen ${WASM_BINDGEN_VERSION}" ]; then
    say "installing wasm-bindgen-cli ${WASM_BINDGEN_VERSION}"
    cargo install wasm-bindgen-cli --version "${WASM_BINDGEN_VERSION}"
  fi
}

# Release builds need binaryen's wasm-opt; Debian's is too old and gives a build that never hydrates.
ensure_binaryen() {
  if [ ! -x tools/node_modules/.bin/wasm-opt ]; then
    say "installing binaryen from npm"
    (cd tools && npm ci --no-audit --no-fund)
  fi
  export PATH="$PWD/tools/node_modules/.bin:$PATH"
}

ensure_chromium() {
  if [ ! -x /usr/bin/chromium ]; then
    say "installing Debian's chromium"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y chromium
  fi
  if [ ! -d end2end/node_modules/playwright-core ]; then
    say "installing playwright-core"
    (cd end2end && npm ci --no-audit --no-fund)
  fi
}
