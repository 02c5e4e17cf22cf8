# Shared by scripts/demo and scripts/check: installs what the build needs, at pinned versions,
# only when it is missing. Sourced, not run.

CARGO_LEPTOS_VERSION=0.3.10
WASM_BINDGEN_VERSION=0.2.130
CARGO_DENY_VERSION=0.20.2

# The elapsed minutes show in CI's log which step takes the time.
say() { printf '\n==> [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*" >&2; }

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

# The check's licence and source audit; the demo does not need it.
ensure_cargo_deny() {
  if [ "$(cargo deny --version 2>/dev/null)" != "cargo-deny ${CARGO_DENY_VERSION}" ]; then
    say "installing cargo-deny ${CARGO_DENY_VERSION}"
    cargo install cargo-deny --version "${CARGO_DENY_VERSION}" --locked
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

# The integration tests drive /mcp with the Model Context Protocol's own Python client, pinned in
# tools/mcp-client/requirements.txt and installed into a venv there.
ensure_mcp_client() {
  local venv=tools/mcp-client/.venv want
  want=$(sed -n 's/^mcp==//p' tools/mcp-client/requirements.txt)
  if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("mcp"))' 2>/dev/null)" != "$want" ]; then
    say "installing the MCP client the tests use (Python's mcp ${want})"
    # Debian ships venv and pip apart from python3 itself.
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
      say "installing Debian's python3-venv"
      apt-get update
      DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv
    fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r tools/mcp-client/requirements.txt
  fi
  export ENGRAM_MCP_PYTHON="$PWD/$venv/bin/python"
}

# scripts/schemathesis fuzzes the API against its OpenAPI document with Schemathesis, pinned in
# tools/schemathesis/requirements.txt and installed into a venv there, as the MCP client is.
ensure_schemathesis() {
  local venv=tools/schemathesis/.venv want
  want=$(sed -n 's/^schemathesis==//p' tools/schemathesis/requirements.txt)
  if [ "$("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("schemathesis"))' 2>/dev/null)" != "$want" ]; then
    say "installing Schemathesis ${want}"
    if ! python3 -c 'import venv, ensurepip' 2>/dev/null; then
      say "installing Debian's python3-venv"
      apt-get update
      DEBIAN_FRONTEND=noninteractive apt-get install -y python3 python3-venv
    fi
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check -r tools/schemathesis/requirements.txt
  fi
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

# The tests' PostgreSQL: Debian's package, installed when missing.
ensure_postgresql() {
  if ! ls -d /usr/lib/postgresql/*/bin >/dev/null 2>&1; then
    say "installing Debian's postgresql"
    apt-get update
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql
  fi
}

# PostgreSQL's tools refuse to run as root (CI's user), so there they run as `postgres`.
as_postgres() {
  if [ "$(id -u)" -eq 0 ]; then
    runuser -u postgres -- "$@"
  else
    "$@"
  fi
}

# Starts a throwaway cluster for the tests on a free port, and exports ENGRAM_TEST_POSTGRES_URL,
# an admin URL; each test makes its own database there. Durability is off: nothing in it is kept.
# The caller stops it with stop_test_postgres (scripts/check does so from an EXIT trap).
start_test_postgres() {
  local bin port
  bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  TEST_PG_DIR=$(mktemp -d)
  TEST_PG_BIN=$bin
  [ "$(id -u)" -eq 0 ] && chown postgres "$TEST_PG_DIR"
  port=$(free_port)
  say "starting a throwaway PostgreSQL ($("$bin/postgres" --version | awk '{print $3}')) on port $port"
  (cd "$TEST_PG_DIR" && as_postgres "$bin/initdb" -D "$TEST_PG_DIR/data" -A trust -U postgres >"$TEST_PG_DIR/initdb.log")
  (cd "$TEST_PG_DIR" && as_postgres "$bin/pg_ctl" -D "$TEST_PG_DIR/data" -l "$TEST_PG_DIR/log" -w \
    -o "-p $port -k $TEST_PG_DIR -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
        -c full_page_writes=off -c max_connections=200" start >/dev/null)
  export ENGRAM_TEST_POSTGRES_URL="postgres://postgres@127.0.0.1:$port/postgres"
}

stop_test_postgres() {
  if [ -n "${TEST_PG_DIR:-}" ] && [ -d "$TEST_PG_DIR" ]; then
    if [ -f "$TEST_PG_DIR/data/postmaster.pid" ]; then
      (cd "$TEST_PG_DIR" && as_postgres "$TEST_PG_BIN/pg_ctl" -D "$TEST_PG_DIR/data" -m immediate stop >/dev/null) || true
    fi
    rm -rf "$TEST_PG_DIR"
    TEST_PG_DIR=
  fi
}

# A TCP port on 127.0.0.1 that nothing listens on.
free_port() {
  local port
  while :; do
    port=$((20000 + RANDOM % 20000))
    if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
      echo "$port"
      return
    fi
  done
}
