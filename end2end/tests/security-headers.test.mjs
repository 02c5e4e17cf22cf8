// Issue 9: pages carry a strict Content-Security-Policy and the other security headers, and the
// page still hydrates under it: no inline script without the nonce, no violation reported.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, editorPath, email, expectText, jsLabel, signIn, useEngram, waitForPath, waitHydrated,
  withServerLog,
} from './helpers.mjs';

// Collects every violation the page reports, from before any of its own scripts run.
const COLLECT_VIOLATIONS = `(() => {
  window.__cspViolations = [];
  document.addEventListener('securitypolicyviolation', (e) => {
    window.__cspViolations.push(e.violatedDirective + ' ' + (e.blockedURI || 'inline'));
  });
})();`;

function assertHeaders(response, what) {
  const h = response.headers();
  const policy = h['content-security-policy'] ?? '';
  assert.match(policy, /script-src 'self' 'nonce-[A-Za-z0-9_-]{16,}' 'wasm-unsafe-eval'/, `${what}: ${policy}`);
  assert.match(policy, /frame-ancestors 'none'/, `${what}: ${policy}`);
  assert.doesNotMatch(policy, /unsafe-inline/, `${what}: ${policy}`);
  assert.equal(h['x-frame-options'], 'DENY', what);
  assert.equal(h['x-content-type-options'], 'nosniff', what);
  assert.equal(h['referrer-policy'], 'same-origin', what);
}

for (const js of [true, false]) {
  describe(`security headers (${jsLabel(js)})`, () => {
    const env = useEngram();

    // Signing in, hydrating the editor and posting it take one Playwright wait each: the test's
    // budget is two of them, so a wait that runs out fails inside it, with the server's log.
    test(`pages carry a strict policy and still work under it (${jsLabel(js)})`, { timeout: TEST_TIMEOUT * 2 }, () => withServerLog(env.server, async () => {
      const ctx = await env.newContext(js);
      if (js) await ctx.addInitScript(COLLECT_VIOLATIONS);
      const violations = [];
      ctx.on('page', (page) => page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) violations.push(m.text());
      }));
      const page = await ctx.newPage();

      assertHeaders(await page.goto('/signin'), '/signin');
      await signIn(page, 'ada');
      assertHeaders(await page.goto(editorPath('sales')), 'the editor');
      const meter = page.locator('p.meter');
      await expectText(meter, '0 of 2,000 tokens', 'meter of an empty core');
      if (js) {
        // The live meter moves only once the wasm has loaded and hydrated the page.
        await waitHydrated(page);
        await page.locator('textarea#core-text').fill('Stages: New, Qualified, Proposal, Won, Lost.');
        await expectText(meter, '11 of 2,000 tokens', 'the hydrated meter counts as you type');
        assert.deepEqual(await page.evaluate(() => window.__cspViolations), [], 'violations reported to the page');
      }
      // A plain form post goes through under form-action 'self'.
      await page.locator('textarea#core-text').fill('Stages: New, Qualified, Proposal, Won, Lost.');
      await Promise.all([
        waitForPath(page, '/company/roles/sales'),
        page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      assert.deepEqual(violations, [], 'violations in the console');
      env.assertNoBrowserErrors();
    }));

    test(`a page refuses to be framed by another (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const ctx = await env.newContext(js);
      const page = await ctx.newPage();
      const blocked = [];
      page.on('console', (m) => { if (/frame-ancestors/.test(m.text())) blocked.push(m.text()); });
      // A page of another origin (about:blank's opaque one) framing the sign-in page.
      await page.setContent(`<iframe src="${env.baseURL}/signin"></iframe>`);
      const deadline = Date.now() + 10_000;
      while (blocked.length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
      assert.ok(blocked.length > 0, 'the browser refused the frame for frame-ancestors');
      const framed = page.frames().find((f) => f.url().endsWith('/signin'));
      const hasForm = framed ? await framed.locator(`input[name=email]`).count().catch(() => 0) : 0;
      assert.equal(hasForm, 0, `the sign-in form (${email('ada')}) is not shown inside the frame`);
    });
  });
}
