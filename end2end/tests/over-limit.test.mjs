// Scenario 5: a text over the core's limit. With JavaScript the meter warns and Save stays off;
// without it the server refuses and the text is kept.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, editorPath, expectCount, expectDisabled, expectText, expectValue, jsLabel, rolePath, useEngram,
  waitForPath, waitHydrated,
} from './helpers.mjs';

const SLUG = 'support';
const LONG = 'x'.repeat(9640); // 2,410 tokens
const SHORT = 'x'.repeat(4000); // 1,000 tokens

for (const js of [true, false]) {
  describe(`over the limit (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`a text over the limit cannot be saved (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('ada', js);
      await page.goto(editorPath(SLUG));
      const textarea = page.locator('textarea#core-text');
      const meter = page.locator('p.meter');
      const save = page.getByRole('button', { name: 'Save', exact: true });
      await expectText(meter, '0 of 2,000 tokens');
      if (js) await waitHydrated(page);

      await textarea.fill(LONG);

      if (js) {
        await expectText(meter, '2,410 of 2,000 tokens', 'live meter over the limit');
        await expectCount(page.locator('p.meter.over'), 1, 'the meter is marked over');
        await expectDisabled(save, true, 'Save is off over the limit');

        await textarea.fill(SHORT);
        await expectText(meter, '1,000 of 2,000 tokens', 'live meter after shortening');
        await expectCount(page.locator('p.meter.over'), 0, 'the meter is no longer marked over');
        await expectDisabled(save, false, 'Save is on again under the limit');

        await textarea.fill(LONG);
        await expectDisabled(save, true, 'Save is off again over the limit');
        await expectValue(textarea, LONG, 'the text is in the editor');
      } else {
        await expectDisabled(save, false, 'without JavaScript Save is never off');
        await save.click();
        await expectText(page.locator('p.notice.refused[role=alert]'), 'This core is over its limit: 2,410 of 2,000 tokens');
        await waitForPath(page, editorPath(SLUG));
        await expectValue(textarea, LONG, 'the refused text stays in the editor');
        assert.equal(await save.isDisabled(), false, 'Save is still on after the refusal');

        await page.goto(rolePath(SLUG));
        await expectCount(page.locator('pre.core-text'), 0, 'nothing was saved');
      }

      env.assertNoBrowserErrors();
    });
  });
}
