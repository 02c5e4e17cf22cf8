// Scenario 4: a sales rep can read the Sales company core but not change it.

import { describe, test } from 'node:test';
import {
  TEST_TIMEOUT, editorPath, expectCount, expectText, expectValue, jsLabel, rolePath, useEngram, waitForPath,
  waitHydrated,
} from './helpers.mjs';

const TEXT = 'Discounts: up to 40% for anyone who asks nicely.';

for (const js of [true, false]) {
  describe(`not an admin (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`alice cannot change the Sales company core (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('alice', js);

      await page.goto(rolePath('sales'));
      if (js) await waitHydrated(page);
      await expectText(page.locator('main h1'), 'Sales');
      await expectText(page.locator('section.core p.meter'), '0 of 2,000 tokens');
      await expectCount(page.getByRole('link', { name: 'Write it' }), 0, 'no "Write it" for a non-admin');
      await expectCount(page.getByRole('link', { name: 'Edit', exact: true }), 0, 'no "Edit" for a non-admin');
      await expectCount(page.locator('input[name=limit]'), 0, 'no limit form for a non-admin');

      await page.goto(editorPath('sales'));
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice.warn'), 'You can read this core, but saving it is up to its owners.');
      const textarea = page.locator('textarea#core-text');
      await textarea.fill(TEXT);
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expectText(page.locator('p.notice.refused[role=alert]'), 'Only an admin can change the company core for Sales');
      await waitForPath(page, editorPath('sales'));
      if (js) await waitHydrated(page);
      await expectValue(textarea, TEXT, 'her text stays in the editor');

      await page.goto(rolePath('sales'));
      await expectText(page.locator('section.core p.meter'), '0 of 2,000 tokens', 'nothing was saved');
      await expectCount(page.locator('ol.history'), 0, 'no history');

      env.assertNoBrowserErrors();
    });
  });
}
