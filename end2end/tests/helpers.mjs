// Shared set-up for the end-to-end tests: a fresh Engram server (demo company, empty temporary
// database) and one headless Chromium per test file.
//
// Environment (all optional):
//   ENGRAM_BIN        the server binary        (default <repo>/target/debug/engram)
//   ENGRAM_SITE_ROOT  cargo-leptos's site dir  (default <repo>/target/site)
//   CHROMIUM_PATH     the browser              (default /usr/bin/chromium)
//   E2E_SERVER_LOG=1  copy the server's stderr to this process's stderr

import { after, afterEach, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SERVER_BIN = process.env.ENGRAM_BIN || path.join(REPO_ROOT, 'target', 'debug', 'engram');
export const SITE_ROOT = process.env.ENGRAM_SITE_ROOT || path.join(REPO_ROOT, 'target', 'site');
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';
export const DEMO_PASSWORD = 'engram-demo';

/** Per-test time budget; pass as `{ timeout: TEST_TIMEOUT }` to `test`. */
export const TEST_TIMEOUT = 30_000;
/** How long one Playwright action or wait may take. */
const ACTION_TIMEOUT = 30_000;

/** Test names carry the JavaScript setting: "... (JS on)" / "... (JS off)". */
export const jsLabel = (js) => (js ? 'JS on' : 'JS off');

/** A free TCP port on 127.0.0.1: bind port 0, read it back, let it go. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/** `n` distinct free ports: each is bound to port 0 at once, read back, then all are let go. */
export async function freePorts(n) {
  const servers = await Promise.all(
    Array.from({ length: n }, () => new Promise((resolve, reject) => {
      const srv = net.createServer();
      srv.unref();
      srv.on('error', reject);
      srv.listen(0, '127.0.0.1', () => resolve(srv));
    })),
  );
  const ports = servers.map((s) => s.address().port);
  await Promise.all(servers.map((s) => new Promise((r) => s.close(r))));
  return ports;
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** The status of a GET, on a connection of its own that is closed afterwards (no keep-alive). */
function statusOf(url) {
  return new Promise((resolve, reject) => {
    const req = http.get(url, { agent: false, timeout: 2_000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('timeout', () => req.destroy(new Error('timed out')));
    req.on('error', reject);
  });
}

/**
 * Starts `engram demo` (or, with `{ command: 'serve' }`, `engram serve`: no company at all) on a
 * free port with a fresh database in a temporary directory. Resolves once GET /signin answers (200
 * for the demo; an empty database's redirect to /setup for serve). Returns { baseURL, sourceURL,
 * stop, log, dir }: the demo's vault is `dir`/vault, and its Acme ATS answers at sourceURL.
 */
export async function startServer({ command = 'demo', env: extraEnv = {} } = {}) {
  const ready = command === 'demo' ? [200] : [200, 302, 303, 307];
  if (!existsSync(SERVER_BIN)) {
    throw new Error(`The server binary is missing at ${SERVER_BIN}: run \`cargo leptos build\` first.`);
  }
  // cargo-leptos names the wasm by its content's hash (engram.<hash>.wasm).
  const pkg = path.join(SITE_ROOT, 'pkg');
  const wasm = existsSync(pkg) && readdirSync(pkg).some((f) => /^engram(\.[A-Za-z0-9_-]{22})?\.wasm$/.test(f));
  if (!wasm) throw new Error(`The site's wasm is missing in ${pkg}: run \`cargo leptos build\` first.`);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'engram-e2e-'));
  // Both ports are found while both are held, so they can never be the same one.
  const [port, sourcePort] = await freePorts(2);
  const baseURL = `http://127.0.0.1:${port}`;
  const sourceURL = `http://127.0.0.1:${sourcePort}`;
  let log = '';
  const child = spawn(SERVER_BIN, [command], {
    cwd: dir,
    env: {
      ...process.env,
      ENGRAM_ADDR: `127.0.0.1:${port}`,
      ENGRAM_DEMO_SOURCE_PORT: String(sourcePort),
      LEPTOS_SITE_ROOT: SITE_ROOT,
      LEPTOS_OUTPUT_NAME: 'engram',
      ENGRAM_DATABASE_URL: `sqlite://${path.join(dir, 'e2e.db')}`,
      // Each request's start and answer, so a failure's log shows where the server was.
      RUST_LOG: process.env.RUST_LOG || 'info,sqlx=warn,server::request_id=debug',
      ...extraEnv,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const collect = (chunk) => {
    const s = chunk.toString();
    log += s;
    if (log.length > 200_000) log = log.slice(-100_000);
    if (process.env.E2E_SERVER_LOG) process.stderr.write(s);
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  let exited = null;
  const exitPromise = new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      exited = { code, signal };
      resolve();
    });
  });

  const stop = async () => {
    if (exited === null) {
      child.kill('SIGTERM');
      let timer;
      const killed = await Promise.race([
        exitPromise.then(() => true),
        new Promise((r) => { timer = setTimeout(() => r(false), 5_000); }),
      ]);
      clearTimeout(timer);
      if (!killed && exited === null) {
        child.kill('SIGKILL');
        await exitPromise;
      }
    }
    await rm(dir, { recursive: true, force: true });
  };

  const deadline = Date.now() + 60_000;
  for (;;) {
    if (exited !== null) {
      await stop();
      throw new Error(`engram exited (${JSON.stringify(exited)}) before it served:\n${log}`);
    }
    try {
      if (ready.includes(await statusOf(`${baseURL}/signin`))) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`engram did not answer GET /signin with ${ready.join(' or ')} within 60 s:\n${log}`);
    }
    await sleep(200);
  }
  return { baseURL, sourceURL, stop, log: () => log, dir };
}

/**
 * Runs `body`; if it fails, the error carries the last lines the server logged, so a failure
 * seen only in CI can be read from CI's output.
 */
export async function withServerLog(server, body) {
  try {
    return await body();
  } catch (e) {
    const tail = server.log().split('\n').slice(-80).join('\n');
    if (e && typeof e === 'object') e.message = `${e.message}\n--- the server's last log lines ---\n${tail}`;
    throw e;
  }
}

/** Launches the headless Chromium these machines have. */
export function launchBrowser() {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get update && apt-get install -y chromium`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/**
 * Call once at the top of a test file. Starts a server and a browser before the file's tests and
 * stops both after them; closes every context a test opened after that test.
 *
 * `serverOptions` (or an async function giving them) go to `startServer`: `{ command, env }`.
 *
 * Returns an object whose members are filled in by `before`:
 *   env.baseURL, env.server, env.browser, env.newContext(js), env.signedInPage(login, js)
 */
export function useEngram(serverOptions = {}) {
  const env = { baseURL: null, server: null, browser: null, browserErrors: [] };
  const open = new Set();

  before(async () => {
    // Options may be a function, for a stand-in the test starts first (its URL goes to the server).
    env.server = await startServer(typeof serverOptions === 'function' ? await serverOptions() : serverOptions);
    env.baseURL = env.server.baseURL;
    try {
      env.browser = await launchBrowser();
    } catch (e) {
      await env.server.stop();
      env.server = null;
      throw e;
    }
  });

  afterEach(async () => {
    for (const ctx of open) await ctx.close().catch(() => {});
    open.clear();
    if (process.env.E2E_BROWSER_LOG && env.browserErrors.length) {
      process.stderr.write(`browser errors:\n  ${env.browserErrors.join('\n  ')}\n`);
    }
    env.browserErrors.length = 0;
  });

  after(async () => {
    for (const ctx of open) await ctx.close().catch(() => {});
    open.clear();
    if (env.browser) await env.browser.close().catch(() => {});
    if (env.server) await env.server.stop();
  });

  /** A new browser context with JavaScript on or off; closed after the test. */
  env.newContext = async (js) => {
    const ctx = await env.browser.newContext({ baseURL: env.baseURL, javaScriptEnabled: js });
    ctx.setDefaultTimeout(ACTION_TIMEOUT);
    ctx.setDefaultNavigationTimeout(ACTION_TIMEOUT);
    if (js) await ctx.addInitScript(MARK_WASM_READY);
    trackPageLoads(ctx);
    ctx.on('page', (page) => {
      page.on('pageerror', (e) => env.browserErrors.push(`${page.url()}: uncaught ${e.message}`));
      page.on('console', (m) => {
        // A browser's own request for /favicon.ico is not the app's error.
        if (m.type() !== 'error' || m.location().url.endsWith('/favicon.ico')) return;
        env.browserErrors.push(`${page.url()}: console.error ${m.text()}`);
      });
    });
    open.add(ctx);
    return ctx;
  };

  /** A new context signed in as `login`, and a page in it (on the home page). */
  env.signedInPage = async (login, js) => {
    const ctx = await env.newContext(js);
    const page = await ctx.newPage();
    await signIn(page, login);
    return { ctx, page };
  };

  /** Fails if any page of this test threw or logged an error (a hydration panic, say). */
  env.assertNoBrowserErrors = () => {
    assert.deepEqual(env.browserErrors, [], 'the browser reported errors');
  };

  /** Changes a record in the demo's Acme ATS, as someone working in it would. */
  env.changeRecord = async (kind, id, change) => {
    const headers = { 'content-type': 'application/json', 'x-admin-key': 'acme-ats-admin', authorization: 'Bearer acme-ats-company-key' };
    const tool = { leads: 'get_lead', tickets: 'get_ticket', contacts: 'get_contact' }[kind];
    const got = await fetch(`${env.server.sourceURL}/tools/${tool}`, { method: 'POST', headers, body: JSON.stringify({ arguments: { id } }) });
    const record = { ...(await got.json()).result, ...change };
    const put = await fetch(`${env.server.sourceURL}/admin/${kind}/${id}`, { method: 'PUT', headers, body: JSON.stringify(record) });
    if (!put.ok) throw new Error(`PUT /admin/${kind}/${id} answered ${put.status}`);
  };

  /** The demo vault this server reads and writes. */
  env.vaultPath = (...parts) => path.join(env.server.dir, 'vault', ...parts);

  /** The server's log so far, for failure messages. */
  env.serverLog = () => (env.server ? env.server.log() : '');

  return env;
}

export const email = (login) => `${login}@acme.example`;

/** Signs in through the form at /signin and waits until the browser has left it. */
export async function signIn(page, login, next) {
  await page.goto(next ? `/signin?next=${encodeURIComponent(next)}` : '/signin');
  await page.locator('input[name=email]').fill(email(login));
  await page.locator('input[name=password]').fill(DEMO_PASSWORD);
  await Promise.all([
    page.waitForURL((url) => url.pathname !== '/signin'),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
}

/** The editor's URL for a role's company core. */
export const editorPath = (slug) => `/cores/company:role:${slug}/edit`;
export const rolePath = (slug) => `/company/roles/${slug}`;
export const versionPath = (slug, n) => `/cores/company:role:${slug}/versions/${n}`;

/** The pathname of a page URL, decoded (the scope's colons may come back as %3A). */
export const pathOf = (page) => decodeURIComponent(new URL(page.url()).pathname);

/** Waits until the browser is at `pathname` (colons or their %3A form both match). */
export function waitForPath(page, pathname) {
  return page.waitForURL((url) => decodeURIComponent(url.pathname) === pathname);
}

// Runs before any page script: notes when a WebAssembly module finishes instantiating. The
// hydration script calls `hydrate()` right after wasm-bindgen's init resolves.
export const MARK_WASM_READY = `(() => {
  window.__engramWasmStage = 'the wasm was not asked for';
  const mark = (p) => {
    window.__engramWasmStage = 'the wasm is compiling';
    return p.then(
      (r) => { window.__engramWasmReady = true; window.__engramWasmStage = 'the wasm is instantiated'; return r; },
      (e) => { window.__engramWasmStage = 'the wasm failed: ' + e; throw e; },
    );
  };
  const streaming = WebAssembly.instantiateStreaming;
  if (streaming) WebAssembly.instantiateStreaming = function (...a) { return mark(streaming.apply(this, a)); };
  const plain = WebAssembly.instantiate;
  WebAssembly.instantiate = function (...a) { return mark(plain.apply(this, a)); };
})();`;

/** Per page: its documents and their policies, its /pkg requests and how each ended, its console errors. */
const pageLoads = new WeakMap();

/** Keeps, per page of `ctx`, how its loads went, for `whyNotHydrated`. */
export function trackPageLoads(ctx) {
  ctx.on('page', (page) => {
    const seen = [];
    pageLoads.set(page, seen);
    const t0 = Date.now();
    const note = (what) => (r) => {
      if (!r.url().includes('/pkg/')) return;
      seen.push(`${Date.now() - t0} ms ${what} ${r.url().split('/').pop()}`);
      if (seen.length > 40) seen.shift();
    };
    page.on('request', note('asked'));
    page.on('requestfinished', note('finished'));
    page.on('requestfailed', (r) => note(`failed (${r.failure()?.errorText})`)(r));
    page.on('framenavigated', (f) => { if (f === page.mainFrame()) seen.push(`${Date.now() - t0} ms opened ${f.url()}`); });
    page.on('response', async (r) => {
      if (r.request().resourceType() !== 'document') return;
      const csp = (await r.allHeaders().catch(() => ({})))['content-security-policy'];
      seen.push(`${Date.now() - t0} ms document ${r.status()} ${r.url()} with the policy ${csp}`);
    });
    page.on('console', (m) => { if (m.type() === 'error') seen.push(`${Date.now() - t0} ms console: ${m.text().slice(0, 300)}`); });
  });
}

/**
 * What a page that never hydrated was doing: how far its document and wasm got, what it asked of
 * /pkg, its document's policy and the errors its console printed.
 */
async function whyNotHydrated(page) {
  const state = page.evaluate(() => ({
    document: document.readyState,
    wasm: window.__engramWasmStage,
    pkg: performance.getEntriesByType('resource')
      .filter((e) => e.name.includes('/pkg/'))
      .map((e) => `${e.name.split('/').pop()} in ${Math.round(e.duration)} ms`),
  }));
  const answered = await Promise.race([state.catch((e) => ({ error: e.message })), sleep(3_000).then(() => null)]);
  const asked = `; what it loaded: ${(pageLoads.get(page) ?? []).slice(-16).join(', ')}`;
  if (answered) return `the page says ${JSON.stringify(answered)}${asked}`;
  return `its main thread does not answer${asked}`;
}

/**
 * Waits until the page has hydrated (JavaScript on only). Every page: the app's wasm has been
 * instantiated and the page has settled. The editor, also: a change to the textarea moves the
 * live meter (its text and meter are put back as they were). Fails if the wasm never loads or
 * the editor never comes alive.
 */
export async function waitHydrated(page, timeout = ACTION_TIMEOUT) {
  try {
    await page.waitForFunction(() => window.__engramWasmReady === true, null, { timeout, polling: 100 });
  } catch (e) {
    assert.fail(`The app's wasm never loaded at ${page.url()}: ${e.message.split('\n')[0]}; ${await whyNotHydrated(page)}`);
  }
  await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
  if ((await page.locator('textarea#core-text').count()) === 0) return;

  const probe = async () => {
    const ta = document.querySelector('textarea#core-text');
    const meter = document.querySelector('p.meter');
    if (!ta || !meter) return 'no editor on this page';
    const original = ta.value;
    const before = meter.textContent;
    // Ten more words and twenty more characters always raise the count.
    ta.value = original + ' a a a a a a a a a a';
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    await new Promise((r) => setTimeout(r, 100));
    const during = meter.textContent;
    ta.value = original;
    ta.dispatchEvent(new Event('input', { bubbles: true }));
    if (during === before) return `the meter stayed at "${before}"`;
    for (let i = 0; i < 40 && meter.textContent !== before; i++) {
      await new Promise((r) => setTimeout(r, 25));
    }
    return meter.textContent === before ? 'hydrated' : `the meter did not come back to "${before}"`;
  };
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await page.evaluate(probe);
    } catch (e) {
      last = e.message; // e.g. the page navigated while probing
    }
    if (last === 'hydrated') return;
    if (Date.now() > deadline) {
      assert.fail(`The editor at ${page.url()} did not hydrate within ${timeout} ms: ${last}`);
    }
    await sleep(250);
  }
}

/** Marks the current document, so `stayedOnDocument` can tell a client-side navigation from a load. */
export const markDocument = (page) => page.evaluate(() => { window.__engramSameDocument = true; });
export const stayedOnDocument = (page) => page.evaluate(() => window.__engramSameDocument === true);

/** Saves a company core through the JSON API with this context's session. Returns the saved version. */
/** Opens a company agent's page from the Agents list by its name; returns the page's path. */
export async function openCompanyAgent(page, js, name) {
  await page.goto('/company/agents');
  if (js) await waitHydrated(page);
  await Promise.all([page.waitForURL(/\/company\/agents\/\d+$/), page.getByRole('link', { name, exact: true }).first().click()]);
  if (js) await waitHydrated(page);
  return pathOf(page);
}

export async function saveCoreViaApi(ctx, slug, basedOn, text, note = '') {
  const res = await ctx.request.post(`/api/memory/cores/company:role:${slug}`, {
    data: { based_on: basedOn, text, note },
  });
  if (res.status() !== 201) {
    throw new Error(`POST /api/memory/cores/company:role:${slug} answered ${res.status()}: ${await res.text()}`);
  }
  return res.json();
}

// ---- Assertions that wait (playwright-core has no `expect`) -----------------------------------


const norm = (s) => (s ?? '').replace(/\s+/g, ' ').trim();

/** Polls `read()` until `ok(value)` or the timeout; returns the last value read. */
async function poll(read, ok, timeout) {
  const deadline = Date.now() + timeout;
  let last;
  for (;;) {
    try {
      last = await read();
      if (ok(last)) return last;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) return last;
    await sleep(100);
  }
}

/** Asserts the locator's text, with whitespace collapsed, equals `expected`. */
export async function expectText(locator, expected, message, timeout = ACTION_TIMEOUT) {
  const got = await poll(async () => norm(await locator.textContent({ timeout: 1_000 })), (v) => v === expected, timeout);
  assert.equal(got instanceof Error ? `${got.message}` : got, expected, message);
}

/** Asserts the locator's text, with whitespace collapsed, contains `expected`. */
export async function expectTextContains(locator, expected, message, timeout = ACTION_TIMEOUT) {
  const got = await poll(
    async () => norm(await locator.textContent({ timeout: 1_000 })),
    (v) => typeof v === 'string' && v.includes(expected),
    timeout,
  );
  assert.ok(typeof got === 'string' && got.includes(expected), `${message ?? ''}: expected "${expected}" in "${got instanceof Error ? got.message : got}"`);
}

/** Asserts a textarea's or input's value equals `expected` exactly. */
export async function expectValue(locator, expected, message, timeout = ACTION_TIMEOUT) {
  const got = await poll(() => locator.inputValue({ timeout: 1_000 }), (v) => v === expected, timeout);
  if (got instanceof Error) assert.fail(`${message ?? 'value'}: ${got.message}`);
  if (got !== expected && (got.length > 200 || expected.length > 200)) {
    assert.fail(`${message ?? 'value'}: expected ${expected.length} characters, got ${got.length}: "${got.slice(0, 80)}…"`);
  }
  assert.equal(got, expected, message);
}

/** Asserts how many elements the locator matches. */
export async function expectCount(locator, expected, message, timeout = ACTION_TIMEOUT) {
  const got = await poll(() => locator.count(), (v) => v === expected, timeout);
  assert.equal(got, expected, message);
}

/** Asserts a button's disabled state. */
export async function expectDisabled(locator, expected, message, timeout = ACTION_TIMEOUT) {
  const got = await poll(() => locator.isDisabled({ timeout: 1_000 }), (v) => v === expected, timeout);
  assert.equal(got, expected, message);
}
