// Scenario: Draft from what exists. Ada drafts the demo's Sales company core from the Sales
// Assistant's playbook, the Acme ATS connector's notes for agents and the company's glossary;
// the draft opens in the editor, nothing loads until she saves it, and then it is version 1.
// With JavaScript on and off.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, editorPath, expectText, expectTextContains, jsLabel, rolePath, useEngram, waitForPath, waitHydrated,
} from './helpers.mjs';

const PLAYBOOK_LINE = 'Quote in INR first, and in USD only when asked.';
const GLOSSARY_LINE = 'ACV means annual contract value, counted in INR before tax.';

for (const js of [true, false]) {
  describe(`draft from what exists (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`ada drafts the Sales core and saves it (${jsLabel(js)})`, { timeout: TEST_TIMEOUT * 2 }, async () => {
      const { page } = await env.signedInPage('ada', js);
      await page.goto(rolePath('sales'));
      if (js) await waitHydrated(page);
      const core = page.locator('section.core');
      await expectText(core.locator('p.empty'), 'No company core yet.');

      await Promise.all([
        waitForPath(page, editorPath('sales')),
        core.getByRole('button', { name: 'Draft from what exists', exact: true }).click(),
      ]);
      if (js) await waitHydrated(page);
      const line = page.locator('main p[role=alert]');
      await expectTextContains(line, "A draft from what exists, written by memory's model from the Sales Assistant's playbook");
      await expectTextContains(line, 'Nothing loads until you save it.');
      const draft = await page.locator('textarea#core-text').inputValue();
      assert.ok(draft.includes(PLAYBOOK_LINE), draft);
      assert.ok(draft.includes(GLOSSARY_LINE), draft);

      // Until it is saved, the role has no core.
      const other = await page.context().newPage();
      await other.goto(rolePath('sales'));
      await expectText(other.locator('section.core p.empty'), 'No company core yet.');
      await other.close();

      await Promise.all([
        waitForPath(page, rolePath('sales')),
        page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      await expectText(page.locator('p.notice.ok'), 'Saved version 1');
      await expectTextContains(page.locator('pre.core-text'), GLOSSARY_LINE);
      await expectTextContains(page.locator('ol.history li').first(), 'Drafted from what exists');
      env.assertNoBrowserErrors();
    });
  });
}
