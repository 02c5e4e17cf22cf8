// Scenario 1: the seed demo — an admin writes the Sales company core from the roles page.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, editorPath, expectText, expectValue, jsLabel, markDocument, rolePath, stayedOnDocument, useEngram,
  waitForPath, waitHydrated,
} from './helpers.mjs';

const STAGES = 'Stages: New, Qualified, Proposal, Won, Lost.';

for (const js of [true, false]) {
  describe(`seed demo (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`ada writes the Sales company core from the roles page (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('ada', js);
      if (js) {
        await waitHydrated(page);
        await markDocument(page);
      }

      // The company's pages sit under the top bar's Company menu.
      await page.locator('header.top details.company > summary').click();
      await Promise.all([
        waitForPath(page, '/company/roles'),
        page.getByRole('link', { name: 'Roles and core knowledge', exact: true }).click(),
      ]);
      await expectText(page.locator('main h1'), 'Roles and core knowledge');
      if (js) {
        // The hydrated router follows links without loading a new document.
        assert.equal(await stayedOnDocument(page), true, 'the link was followed client-side');
      }

      await Promise.all([
        waitForPath(page, rolePath('sales')),
        page.locator('ul.roles').getByRole('link', { name: 'Sales', exact: true }).click(),
      ]);
      await expectText(page.locator('main h1'), 'Sales');
      const core = page.locator('section.core');
      await expectText(core.locator('h2').first(), 'Company core');

      await Promise.all([
        waitForPath(page, editorPath('sales')),
        core.getByRole('link', { name: 'Write it', exact: true }).click(),
      ]);
      const textarea = page.locator('textarea#core-text');
      await textarea.waitFor();
      const meter = page.locator('p.meter');
      await expectText(meter, '0 of 2,000 tokens', 'meter of an empty core');

      if (js) {
        // A broken wasm build fails here: the live meter only moves once the page has hydrated.
        await waitHydrated(page);
      }
      await textarea.fill(STAGES);
      if (js) {
        await expectText(meter, '11 of 2,000 tokens', 'live meter before saving');
      }

      await Promise.all([
        waitForPath(page, rolePath('sales')),
        page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      await expectText(page.locator('p.notice.ok'), 'Saved version 1');
      await expectText(page.locator('section.core p.meter'), '11 of 2,000 tokens', 'meter after saving');
      await expectText(page.locator('pre.core-text'), STAGES, 'the saved text');
      await expectText(page.locator('ol.history li a').first(), 'Version 1');
      await expectValue(page.locator('section.core').locator('input[name=limit]'), '2000', 'the limit field');

      env.assertNoBrowserErrors();
    });
  });
}
