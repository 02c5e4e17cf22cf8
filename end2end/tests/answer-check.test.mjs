// Scenario: answer, then check. Alice read Hebbal Biotech's lead this morning, when it was still
// Qualified; it has been Won at Acme ATS since. She asks about it, and under the answer she sees
// the check and its change line: with JavaScript without a reload, without it by the page's own.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  expectText, expectTextContains, jsLabel, markDocument, stayedOnDocument, useEngram, waitHydrated,
} from './helpers.mjs';

const QUESTION = 'Where are we with Hebbal Biotech?';
const CHANGE = 'stage: Qualified → Won (Acme ATS, read just now)';
// The demo model answers within a second or two, then the check reads Acme ATS once.
const CHECK_TIMEOUT = 20_000;

for (const js of [true, false]) {
  describe(`the check after an answer (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`alice sees the stage that changed since she read it (${jsLabel(js)})`, { timeout: 90_000 }, async () => {
      const { page } = await env.signedInPage('alice', js);
      await page.goto('/ask');
      if (js) await waitHydrated(page);
      await page.locator('select[name=agent]').selectOption({ label: 'Sales Assistant (Sales)' });
      await page.locator('textarea#question').fill(QUESTION);
      await Promise.all([
        page.waitForURL((url) => /^\/threads\/\d+$/.test(url.pathname)),
        page.getByRole('button', { name: 'Ask', exact: true }).click(),
      ]);
      await expectText(page.locator('main h1'), QUESTION);
      if (js) {
        await waitHydrated(page);
        await markDocument(page);
      }

      const run = page.locator('section.run').first();
      const check = run.locator('div.check[data-check=changed]');
      await check.waitFor({ timeout: CHECK_TIMEOUT });
      await expectText(check.locator('p.check-state'), 'Changed');
      await expectText(check.locator('ul.changes li').first(), CHANGE);
      assert.ok((await run.locator('.answer p.text').textContent()).trim().length > 0, 'the answer shows above it');
      if (js) {
        assert.equal(await stayedOnDocument(page), true, 'the check appeared without a reload');
      }

      // Details lists the check as a step of the run.
      await run.locator('details.steps summary').click();
      await expectTextContains(run.locator('li[data-kind=checked]'), 'Checked 1 record against Acme ATS: 1 change');

      // Asked again, the demo model reads the lead again: what the block showed is what it read.
      await page.locator('textarea#question').fill(QUESTION);
      await page.getByRole('button', { name: 'Ask', exact: true }).click();
      const second = page.locator('section.run').nth(1);
      await second.locator('div.check[data-check=checked]').waitFor({ timeout: CHECK_TIMEOUT });
      await expectText(second.locator('div.check p.check-state'), 'Checked');
      assert.equal(await second.locator('div.check ul.changes').count(), 0, 'no change lines');
    });
  });
}
