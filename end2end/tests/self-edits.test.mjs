// A bot's edits to its own memory (seed 003): its owner sees a forget that waits on Suggested
// changes and approves it, then undoes another edit from the agent page within its grace period.

import { describe, test } from 'node:test';
import { TEST_TIMEOUT, expectCount, expectTextContains, jsLabel, useEngram, waitForPath, waitHydrated } from './helpers.mjs';

const IMPROVE = '/org/improve';
const SCOUT = '/org/agents/scout';

for (const js of [true, false]) {
  describe(`a bot's self-edits (${jsLabel(js)})`, () => {
    const env = useEngram();

    test(`the owner approves a waiting self-edit and undoes another (${jsLabel(js)})`, { timeout: TEST_TIMEOUT }, async () => {
      const { page } = await env.signedInPage('sam', js);
      await page.goto(IMPROVE);
      if (js) await waitHydrated(page);
      const waiting = page.locator('article#self-edit-2');
      await expectTextContains(waiting.locator('h3'), 'Self-edit #2: forget 3');
      await expectTextContains(waiting.locator('p.reason'), 'Sam hands over leads without a contact too');
      await expectTextContains(waiting.locator('pre.diff span.del'), 'I prefer leads with a named contact I can hand over.');
      await expectTextContains(waiting.locator('p.meta'), 'waiting for its owner or lead (delete_fact, requireApproval)');
      await Promise.all([waitForPath(page, IMPROVE), waiting.getByRole('button', { name: 'Approve' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Approved self-edit #2: forget 3 is carried out, and can be undone until');
      await expectTextContains(page.locator('#waiting-self-edits'), 'No self-edits wait for you.');

      await page.goto(`${SCOUT}#self-edits`);
      if (js) await waitHydrated(page);
      await expectCount(page.locator('section#memory > ul.memory > li#line-3'), 0, 'the forgotten line left the active lines');
      await expectTextContains(page.locator('details.closed'), 'forgotten by scout: Sam hands over leads without a contact too');
      const strengthened = page.locator('article#self-edit-1');
      await expectTextContains(strengthened.locator('p.reason'), 'The CRM check found the owner in two runs');
      await expectTextContains(strengthened.locator('pre.diff span.add'), '(worth 1)');
      await expectTextContains(page.locator('li#line-1'), 'worth 1');
      await Promise.all([waitForPath(page, SCOUT), strengthened.getByRole('button', { name: 'Undo' }).click()]);
      await expectTextContains(page.locator('p.notice.ok'), 'Undid self-edit #1: strengthen strategy:1 is taken back');
      await expectTextContains(page.locator('article#self-edit-1 p.meta'), 'undone by person:sam@acme.example');
      await expectTextContains(page.locator('li#line-1'), 'worth 0');
      await expectCount(page.locator('article#self-edit-1').getByRole('button', { name: 'Undo' }), 0);
      env.assertNoBrowserErrors();
    });
  });
}
