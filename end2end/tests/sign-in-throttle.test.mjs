// Issue 9: repeated wrong passwords are slowed, then refused with a sentence shown on the
// sign-in page itself, the same for an account that exists and one that does not.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { TEST_TIMEOUT, email, expectText, expectValue, jsLabel, useEngram } from './helpers.mjs';

const REFUSED = 'That email and password do not match an account';
const THROTTLED = 'Too many sign-in attempts. Wait 5 minutes, then try again.';

async function attempt(page, who, password) {
  await page.locator('input[name=email]').fill(who);
  await page.locator('input[name=password]').fill(password);
  const [response] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith('/auth/sign-in')),
    page.getByRole('button', { name: 'Sign in' }).click(),
  ]);
  await page.waitForLoadState();
  return response;
}

for (const js of [true, false]) {
  describe(`sign-in throttle (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`six wrong passwords, then the sign-in page says to wait (${jsLabel(js)})`, { timeout: 60_000 }, async () => {
      for (const who of [email('ada'), 'nobody@acme.example']) {
        const ctx = await env.newContext(js);
        const page = await ctx.newPage();
        await page.goto('/signin');
        for (let i = 1; i <= 6; i++) {
          const r = await attempt(page, who, 'not-the-password');
          // Without a session, a refusal stores none: the sign-in page comes back at once.
          assert.equal(r.status(), 200, `attempt ${i} for ${who}`);
          await expectText(page.locator('p.notice.refused'), REFUSED, `attempt ${i} for ${who}`);
        }
        const r = await attempt(page, who, 'not-the-password');
        assert.equal(r.status(), 429, who);
        const wait = Number(r.headers()['retry-after']);
        assert.ok(wait > 290 && wait <= 300, `${who}: Retry-After ${wait}`);
        await expectText(page.locator('p.notice.refused'), THROTTLED, who);
        await expectValue(page.locator('input[name=email]'), who, 'the email typed stays');
        await ctx.close();
      }
      // The browser notes the 429 itself; anything else (a hydration error, say) is a failure.
      const errors = env.browserErrors.filter((e) => !/status of 429/.test(e));
      assert.deepEqual(errors, [], 'the browser reported errors');
    });
  });
}
