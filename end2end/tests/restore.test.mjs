// Scenario 3: an earlier version comes back as a new version.

import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  TEST_TIMEOUT, expectCount, expectText, jsLabel, markDocument, rolePath, saveCoreViaApi, stayedOnDocument, useEngram,
  versionPath, waitForPath, waitHydrated,
} from './helpers.mjs';

const SLUG = 'marketing';
const V1 = 'Voice: plain words, no superlatives.';
const V2 = 'Voice: bold claims, many exclamation marks!';

for (const js of [true, false]) {
  describe(`restore (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`restoring version 1 saves it as version 3 (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { ctx, page } = await env.signedInPage('ada', js);
      await saveCoreViaApi(ctx, SLUG, 0, V1, 'first');
      await saveCoreViaApi(ctx, SLUG, 1, V2, 'second');

      await page.goto(rolePath(SLUG));
      if (js) {
        await waitHydrated(page);
        await markDocument(page);
      }
      await expectText(page.locator('pre.core-text'), V2, 'version 2 is current');
      const history = page.locator('ol.history');
      await expectCount(history.locator('li'), 2, 'two versions in History');

      await Promise.all([
        waitForPath(page, versionPath(SLUG, 1)),
        history.getByRole('link', { name: 'Version 1', exact: true }).click(),
      ]);
      if (js) assert.equal(await stayedOnDocument(page), true, 'the link was followed client-side');
      await expectText(page.locator('main h1'), 'Marketing company core, version 1');
      await expectText(page.locator('pre.core-text'), V1, 'the version page shows version 1');
      await expectCount(page.locator('pre.diff del'), 1, 'the diff removes one line');
      await expectCount(page.locator('pre.diff ins'), 1, 'the diff adds one line');

      await Promise.all([
        waitForPath(page, rolePath(SLUG)),
        page.getByRole('button', { name: 'Restore', exact: true }).click(),
      ]);
      if (js) await waitHydrated(page);
      await expectText(page.locator('p.notice.ok'), 'Restored version 1 as version 3');
      await expectText(page.locator('pre.core-text'), V1, 'the current text is version 1 again');
      await expectCount(page.locator('ol.history li'), 3, 'three versions in History');
      await expectText(page.locator('ol.history li a').first(), 'Version 3');

      env.assertNoBrowserErrors();
    });
  });
}
