// Scenario 2: two people open the same core; the second save is refused, and Reload shows the
// newest version with the person's own text kept below it.

import { describe, test } from 'node:test';
import {
  TEST_TIMEOUT, editorPath, expectText, expectValue, jsLabel, rolePath, saveCoreViaApi, useEngram, waitForPath,
  waitHydrated,
} from './helpers.mjs';

const SLUG = 'engineering';
const BASE = 'Deploys: main is always releasable.';
const FIRST = 'Deploys: main is always releasable. Every change has a review.';
const SECOND = 'Deploys: main is always releasable. Fridays are for fixes only.';

for (const js of [true, false]) {
  describe(`concurrent edits (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`a stale save is refused and Reload keeps the person's text (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const a = await env.signedInPage('ada', js);
      const b = await env.signedInPage('ada', js);
      await saveCoreViaApi(a.ctx, SLUG, 0, BASE);

      for (const { page } of [a, b]) {
        await page.goto(editorPath(SLUG));
        await expectText(page.locator('p.meta').first(), 'Editing version 1');
        await expectValue(page.locator('textarea#core-text'), BASE, 'the editor opens with version 1');
        if (js) await waitHydrated(page);
      }

      // The first saves.
      await a.page.locator('textarea#core-text').fill(FIRST);
      await Promise.all([
        waitForPath(a.page, rolePath(SLUG)),
        a.page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      await expectText(a.page.locator('p.notice.ok'), 'Saved version 2');

      // The second, still on version 1, is refused and keeps its text.
      const textB = b.page.locator('textarea#core-text');
      await textB.fill(SECOND);
      await b.page.getByRole('button', { name: 'Save', exact: true }).click();
      const refusal = b.page.locator('p.notice.refused[role=alert]');
      await expectText(refusal, 'This core changed since you opened it: reload and try again');
      await waitForPath(b.page, editorPath(SLUG));
      if (js) await waitHydrated(b.page);
      await expectValue(textB, SECOND, 'the refused text stays in the editor');

      // Reload: the newest version above, the person's own text below.
      await b.page.getByRole('button', { name: 'Reload', exact: true }).click();
      await expectText(b.page.locator('p.notice.refused[role=alert]'), 'Reloaded version 2. Your text is below to copy from.');
      await waitForPath(b.page, editorPath(SLUG));
      if (js) await waitHydrated(b.page);
      await expectText(b.page.getByRole('heading', { name: 'Your text' }), 'Your text');
      await expectValue(b.page.locator('textarea#core-text'), FIRST, 'the editor now holds the newest version');
      await expectValue(b.page.locator('textarea#kept-text'), SECOND, "the person's own text is kept below");
      await expectText(b.page.locator('p.meta').first(), 'Editing version 2');

      env.assertNoBrowserErrors();
    });
  });
}
